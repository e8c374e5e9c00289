/**
 * A loaded source's one-way histograms, grouped ONCE per column and kept in its private DuckDB
 * session (source-table.ts), for every read the release makes of them: the fit and discoverability
 * checks before the reservation, discovery after it (and its second pass over a column whose
 * format was chosen), a wide column's distinct texts to code (tables.ts countCodedOnDuckDb) and
 * the private report's sample of it. Each of those grouped the whole table again: on adult.data
 * × 70 with no repeated record (2.28M records, fnlwgt 1.5M distinct texts) a grouping of every
 * column cost 2.2 CPU s, the sample's and the codes' 1.4 more, and far more where the table is
 * spilled (× 300: 1.94 GB of texts under a 512 MiB limit).
 *
 * The stored rows are the histogram query's own (sql/counting.ts histogramQuery: k, the column;
 * v, its raw text, NULL as ''; n, its count, a DOUBLE; k = −1, the row count), so a read streams
 * exactly what the grouping streamed: the same texts and counts, in no particular order (every
 * reader's counts are order-free: discovery/histograms.ts). A column is grouped the first time a
 * read asks for it, with the other columns that read asks for and the store lacks (one scan).
 *
 * Private: exact counts of the private data, in the session's memory and its private 0700 spill
 * folder, gone when the session closes (on every way out: source-table.ts). Grouped for the
 * curator's checks before the reservation and read again after it, as the loaded table itself
 * is: nothing leaves the session but what each reader took before.
 */

import type { DuckDBConnection } from '@duckdb/node-api';
import type { HistogramSink } from '../data/histograms.ts';
import { histogramQuery, quoteIdent, type Relation, textSampleOver } from '../sql/counting.ts';
import { feedHistogramRows, sampleRows } from './histograms.ts';

/** The stored histograms' table in the session (no source table is named so: source, rap_coded, …). */
const TABLE = 'rap_histograms';

export interface StoredHistograms {
  /**
   * Streams the histograms of the relation columns `columns[j]` into `sink` (j: the position in
   * `columns`; a column named twice feeds both), grouping first those not stored yet. Resolves
   * to the row count.
   */
  stream(c: DuckDBConnection, columns: readonly string[], sink: HistogramSink): Promise<number>;
  /**
   * A query of `column`'s distinct texts as one column `t` (NULL as '': join on the coalesced
   * text), the column grouped first if not stored yet.
   */
  distinctTexts(c: DuckDBConnection, column: string): Promise<string>;
  /** The report's sample of `column` (histograms.ts textSample's), from its stored histogram. */
  textSample(c: DuckDBConnection, column: string, stride: number): Promise<string[]>;
}

/** The store of `rel`'s histograms in a session; empty until a read asks for a column. */
export function storedHistograms(rel: Relation): StoredHistograms {
  /** Stored relation columns: the stored k of a column is its index here. */
  const stored: string[] = [];
  let created = false;
  const ensure = async (c: DuckDBConnection, columns: readonly string[]): Promise<void> => {
    const missing = [...new Set(columns)].filter((col) => !stored.includes(col));
    if (created && missing.length === 0) return;
    const query = histogramQuery(rel, missing, 'duckdb');
    if (query.columns.join('\u0000') !== missing.join('\u0000'))
      throw new Error('internal: the histogram query reorders its columns');
    const k = quoteIdent('k');
    // The new columns' k after those stored; the row count (k = −1) is stored once.
    const rows =
      `SELECT CAST(CASE WHEN ${k} < 0 THEN -1 ELSE ${k} + ${stored.length} END AS INTEGER) AS ${k}, ` +
      `${quoteIdent('v')}, ${quoteIdent('n')} FROM (${query.sql}) AS h`;
    if (!created) await c.run(`CREATE TABLE ${TABLE} AS ${rows}`);
    else await c.run(`INSERT INTO ${TABLE} SELECT * FROM (${rows}) AS r WHERE ${k} >= 0`);
    created = true;
    stored.push(...missing);
  };
  const position = (column: string): number => {
    const k = stored.indexOf(column);
    if (k < 0) throw new Error(`internal: no stored histogram of ${column}`);
    return k;
  };
  return {
    async stream(c, columns, sink) {
      await ensure(c, columns);
      const fed: number[][] = stored.map(() => []);
      columns.forEach((column, j) => {
        fed[position(column)].push(j);
      });
      const ks = [-1, ...new Set(columns.map(position))];
      const result = await c.stream(
        `SELECT ${['k', 'v', 'n'].map((x) => quoteIdent(x)).join(', ')} FROM ${TABLE} WHERE ${quoteIdent('k')} IN (${ks.join(', ')})`,
      );
      return feedHistogramRows(result, fed, sink);
    },
    async distinctTexts(c, column) {
      await ensure(c, [column]);
      return `SELECT ${quoteIdent('v')} AS ${quoteIdent('t')} FROM ${TABLE} WHERE ${quoteIdent('k')} = ${position(column)}`;
    },
    async textSample(c, column, stride) {
      await ensure(c, [column]);
      // The grouping-sets query's shape (v0, an integer n), which textSampleQuery samples.
      const grouped =
        `SELECT ${quoteIdent('v')} AS ${quoteIdent('v0')}, CAST(${quoteIdent('n')} AS BIGINT) AS ${quoteIdent('n')} ` +
        `FROM ${TABLE} WHERE ${quoteIdent('k')} = ${position(column)}`;
      return sampleRows(c, textSampleOver(grouped, stride, 'duckdb'));
    },
  };
}
