/**
 * Discovery's per-column histograms of a CSV or Parquet file in ONE scan by an embedded DuckDB:
 * the counting query (sql/counting.ts) with one grouping set per column plus the empty set (the
 * row count), each column's RAW text grouped. discovery/histograms.ts feeds them to discovery's
 * counters (trimming, missing markers, number and date syntax stay in the JS code).
 *
 * Exact statistics of the private data: never logged, never released.
 */

import type { ColumnHistograms, HistogramCounter } from '../data/histograms.ts';
import type { TableOptions } from '../data/table.ts';
import { groupingSetsQuery, setKey } from '../sql/counting.ts';
import { type DuckDbOptions, resultChunks } from '../sql/duckdb.ts';
import { fileRelation, onFileRelation } from './tables.ts';

/**
 * The histogram counter of a CSV or Parquet file (by extension); columns by name. Throws
 * NotForDuckDb (tables.ts) for a CSV DuckDB would read otherwise than the streaming reader, and
 * DuckDB's own error where it cannot read the file as declared (a row of the wrong width, a
 * quote left open): the streaming path reads such a file (and says what is wrong with it).
 */
export function fileHistogramCounter(
  file: string,
  opts: Pick<TableOptions, 'header' | 'delimiter'> & {
    readonly duckdb?: DuckDbOptions;
    readonly signal?: AbortSignal;
  } = {},
): HistogramCounter {
  return async (names) => {
    const { relation, source } = await fileRelation(file, names, opts);
    return onFileRelation(
      relation,
      async (c, counted) => {
        const query = groupingSetsQuery(counted, [...names.map((n) => [source(n)]), []], 'duckdb');
        return histogramsFromChunks(
          names.map((n) => query.columns.indexOf(source(n))),
          names,
          query.columns.length,
          resultChunks(c, query.sql),
        );
      },
      opts,
    );
  };
}

/**
 * The histograms from a one-way counting query's rows ([v0…vm−1, g0…gm−1, n]); `positions[j]`:
 * the query column of `names[j]` (two names on one column share its histogram).
 */
export function histogramsFromRows(
  positions: readonly number[],
  names: readonly string[],
  m: number,
  rows: Iterable<readonly unknown[]>,
): ColumnHistograms {
  const histograms = histogramAccumulator(positions, names, m);
  histograms.add(rows);
  return histograms.result();
}

/**
 * histogramsFromRows over a result read a chunk at a time (sql/duckdb.ts resultChunks): a column
 * with millions of distinct texts never has its whole result held as rows.
 */
export async function histogramsFromChunks(
  positions: readonly number[],
  names: readonly string[],
  m: number,
  chunks: AsyncIterable<Iterable<readonly unknown[]>>,
): Promise<ColumnHistograms> {
  const histograms = histogramAccumulator(positions, names, m);
  for await (const rows of chunks) histograms.add(rows);
  return histograms.result();
}

function histogramAccumulator(positions: readonly number[], names: readonly string[], m: number) {
  const byPosition = new Map<number, Map<string, number>>();
  for (const p of positions) byPosition.set(p, new Map());
  let n = 0;
  return {
    add(rows: Iterable<readonly unknown[]>): void {
      for (const row of rows) {
        const key = setKey(row.slice(m, 2 * m).map(Number));
        const count = Number(row[2 * m]);
        if (key === '') {
          n = count;
          continue;
        }
        const histogram = byPosition.get(Number(key));
        if (!histogram) continue;
        const text = String(row[Number(key)] ?? '');
        histogram.set(text, (histogram.get(text) ?? 0) + count);
      }
    },
    result: (): ColumnHistograms => ({
      n,
      columns: new Map(names.map((name, j) => [name, byPosition.get(positions[j])!])),
    }),
  };
}
