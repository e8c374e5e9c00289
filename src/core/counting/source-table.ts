/**
 * A raw CSV parsed ONCE by an embedded DuckDB into a columnar table, then counted as often as the
 * release needs: the check before the reservation (the undeclared columns' histograms), and after
 * it discovery's histograms and the engine's exact tables. CSV parsing is most of a scan's cost
 * (about 2.1 CPU s per million adult rows; a query on the loaded table is a small part of it),
 * so one parse replaces three.
 *
 * The table is held in DuckDB's memory, up to a limit sized from the file and the machine
 * (sql/duckdb.ts sourceMemoryLimit), and spilled past it to the session's private folder (0700,
 * removed by `dispose`, idempotent, and at process exit at the latest); the owner disposes it on
 * every way out (release.ts: validate's errors, the run's end, the CLI's and the app's failures
 * between). Every column is kept as the raw text DuckDB read (NULL for an empty unquoted field),
 * so a table counted here equals the one counted straight off the file (tables.ts), by
 * construction. Each column's histogram is grouped once and kept beside the table
 * (histogram-table.ts) for every read of it: the checks, discovery, the codes of a wide column and
 * the report's sample. Where a sample of the file repeats records (categorical data, or a file of
 * copies), the table holds each distinct record once with its count (`distinctRecords`): every
 * query counts sums of those, the same tables. A Parquet file is columnar already: it is
 * counted in place, with no copy.
 *
 * Private values, read for the curator before the reservation as the streaming check reads them.
 * Nothing is measured (no noise drawn, nothing leaves the session) before the reservation: the
 * release's measurements are drawn after it, from this table and the histograms kept with it
 * (grouped for the check, an exact intermediate like the table itself).
 */

import { stat } from 'node:fs/promises';
import type { ColumnHistograms, HistogramSink, HistogramStream } from '../data/histograms.ts';
import type { Schema } from '../data/schema.ts';
import type { TableOptions } from '../data/table.ts';
import { csvColumnName, type Relation, relationSql } from '../sql/counting.ts';
import {
  type DuckDbOptions,
  type DuckDbSession,
  floatingColumns,
  onSession,
  openDuckDb,
  sourceMemoryLimit,
} from '../sql/duckdb.ts';
import { storedHistograms } from './histogram-table.ts';
import { collectHistograms } from './histograms.ts';
import {
  assertSameDialect,
  type CountedTables,
  type CountOptions,
  countCodedOnDuckDb,
  countOnDuckDb,
  fileRelation,
} from './tables.ts';

/** The loaded table's name inside its private database. */
const TABLE = 'source';
/** Its count column where it holds distinct records (CSV columns are c0, c1, …: no clash). */
const WEIGHT = 'w';

/**
 * The records a sample reads (the file's first, strictly parsed), and the share of distinct
 * records at or below which the table holds distinct records with their counts.
 *
 * Measured on adult.data × 300 (9.77M records, 32,537 distinct; 2 threads): distinct records
 * with counts load in 9.6 CPU s into 0.27 GB, and each counting query then takes 0.3 CPU s; the
 * records as they are load in 12.8 CPU s into 1.9 GB, and each query takes 5 to 8 CPU s. With
 * every record distinct (a unique column), grouping costs 37.6 CPU s against 12.8: so the sample
 * decides. Its 100,000 records cost about 0.1 CPU s; adult × 300's share is 0.33.
 */
const SAMPLE_RECORDS = 100_000;

/**
 * A loaded CSV's DuckDB memory limit is at most this (sql/duckdb.ts sourceMemoryLimit's cap
 * otherwise, 2 GiB): past it the table spills to the private folder. Measured by hand on
 * adult.data × 300 with no repeated record (1.94 GB of raw texts held in memory; the load, the
 * check, discovery and the tables, then a second stream and tables), beside other agents:
 * with 2 GiB 82 CPU s and 2.59 GB peak RSS, 768 MiB 87 CPU s and 1.27 GB, 512 MiB 91 CPU s and
 * 1.03 GB. A file whose records repeat is loaded as distinct records, far below it. (A Parquet
 * file counted in place keeps the larger limit: its grouping sets need it.)
 */
const CSV_TABLE_LIMIT = 512 * 2 ** 20;
const DISTINCT_SHARE = 0.5;

export interface SourceTable {
  /** The private spill folder (0700; gone after `dispose`). */
  readonly folder: string;
  /** Whether the table holds distinct records with their counts (a CSV whose sample repeats). */
  readonly distinct: boolean;
  /** Every named column's histogram of raw texts, and the row count (one query). */
  histograms(names: readonly string[], signal?: AbortSignal): Promise<ColumnHistograms>;
  /**
   * The same histograms streamed a distinct text at a time (the same query, none held whole):
   * for a column with millions of distinct texts (discovery/histograms.ts discoverFromStream).
   */
  readonly stream?: HistogramStream;
  /**
   * The report's sample of a column (every `stride`-th record, records in code-point order of
   * their raw texts: counting/histograms.ts textSample), for a column too wide to keep whole.
   */
  readonly textSample?: (name: string, stride: number, signal?: AbortSignal) => Promise<string[]>;
  /** The exact tables over `schema`'s codes (columns by name), and the row count (one query). */
  tables(
    schema: Schema,
    features: readonly (readonly number[])[],
    opts?: CountOptions & { readonly signal?: AbortSignal },
  ): Promise<CountedTables>;
  /** Closes DuckDB and removes the table file and spill folder (idempotent). */
  dispose(): Promise<void>;
}

/**
 * Loads a CSV (or opens a Parquet file) for counting; columns are named as `names` (the file's
 * header, the column choice applied). Throws NotForDuckDb (tables.ts) for a CSV DuckDB would read
 * otherwise than the streaming reader, and DuckDB's own error where it cannot read it as declared:
 * nothing is left behind then, and the streaming reader counts.
 */
export async function loadSourceTable(
  file: string,
  names: readonly string[],
  opts: Pick<TableOptions, 'header' | 'delimiter'> & {
    readonly duckdb?: DuckDbOptions;
    readonly signal?: AbortSignal;
    /**
     * false where the file holds no double quote (data/file-facts.ts, read before): no line can
     * hold a quote after spaces, so the dialect check's scan is skipped.
     */
    readonly quotes?: boolean;
  } = {},
): Promise<SourceTable> {
  opts.signal?.throwIfAborted();
  const { relation, source } = await fileRelation(file, names, opts);
  // A CSV's size bounds its loaded texts; a Parquet file's (compressed, counted in place) says
  // nothing of what its grouping needs: adult.data × 300 is an 83 MB Parquet file, and its 48
  // grouping sets ran out of a limit sized from that (the release then streamed: 177 s).
  const memoryLimit =
    opts.duckdb?.memoryLimit ??
    sourceMemoryLimit(
      relation.kind === 'csv'
        ? Math.min((await stat(file)).size, CSV_TABLE_LIMIT / 2)
        : Number.POSITIVE_INFINITY,
    );
  const session = await openDuckDb({ ...opts.duckdb, memoryLimit, unordered: true });
  let counted: Relation;
  try {
    counted = await onSession(session, opts.signal, async (c): Promise<Relation> => {
      if (relation.kind === 'parquet')
        return { ...relation, floating: await floatingColumns(c, relation.path) };
      if (relation.kind !== 'csv') return relation;
      if (opts.quotes !== false) await assertSameDialect(c, relation);
      // Strict: a row of another width fails the load (the streaming reader keeps it as missing
      // values), so a loaded table has every row the streaming reader reads, and no other.
      const strict = relationSql({ ...relation, strict: true }, 'duckdb');
      const columns = Array.from({ length: relation.width }, (_, i) => csvColumnName(i)).join(', ');
      if (await distinctRecords(c, strict, columns)) {
        await c.run(
          `CREATE TABLE ${TABLE} AS SELECT ${columns}, COUNT(*) AS ${WEIGHT} FROM ${strict} GROUP BY ${columns}`,
        );
        return { kind: 'table', table: TABLE, weight: WEIGHT };
      }
      await c.run(`CREATE TABLE ${TABLE} AS SELECT * FROM ${strict}`);
      return { kind: 'table', table: TABLE };
    });
  } catch (err) {
    await session.close();
    throw err;
  }
  return sessionTable(session, counted, source);
}

/**
 * A SourceTable over `counted` in an open private session (a loaded CSV, a Parquet file in place,
 * or a table appended from another format's records: record-table.ts); `source` names the
 * relation column of each file column. `dispose` closes the session, which removes its folder.
 */
export function sessionTable(
  session: DuckDbSession,
  counted: Relation,
  source: (name: string) => string,
): SourceTable {
  // Each column grouped once for every read of its histogram (histogram-table.ts).
  const stored = storedHistograms(counted);
  const stream = (c: DuckDbSession['connection'], wanted: readonly string[], sink: HistogramSink) =>
    stored.stream(c, wanted.map(source), sink);
  return {
    folder: session.spill,
    distinct: counted.kind === 'table' && counted.weight !== undefined,
    histograms: (wanted, signal) =>
      onSession(session, signal, (c) => collectHistograms(wanted, (sink) => stream(c, wanted, sink))),
    stream: (wanted, sink, signal) => onSession(session, signal, (c) => stream(c, wanted, sink)),
    textSample: (name, stride, signal) =>
      onSession(session, signal, (c) => stored.textSample(c, source(name), stride)),
    tables: (schema, features, count = {}) => {
      const columns = schema.columns.map((c) => c.name);
      // A loaded table's or a Parquet file's wide columns are coded in DuckDB first (tables.ts
      // countCodedOnDuckDb), their distinct texts read off the stored histograms.
      return onSession(session, count.signal, (c) =>
        counted.kind === 'table' || counted.kind === 'parquet'
          ? countCodedOnDuckDb(c, counted, schema, features, (f) => source(columns[f]), {
              ...count,
              distinctTexts: (column) => stored.distinctTexts(c, column),
            })
          : countOnDuckDb(c, counted, schema, features, (f) => source(columns[f]), count),
      );
    },
    dispose: () => session.close(),
  };
}

/**
 * Whether the file's first records repeat enough that the table should hold distinct records
 * with their counts (SAMPLE_RECORDS, DISTINCT_SHARE). A performance choice only: both tables
 * count alike. The sample is read strictly too, so a short file's ragged row fails here as the
 * load would.
 */
async function distinctRecords(
  c: DuckDbSession['connection'],
  strict: string,
  columns: string,
): Promise<boolean> {
  const sample = await c.runAndReadAll(
    `SELECT COALESCE(SUM(k), 0) AS records, COUNT(*) AS distinct_records FROM (SELECT COUNT(*) AS k ` +
      `FROM (SELECT * FROM ${strict} LIMIT ${SAMPLE_RECORDS}) AS s GROUP BY ${columns}) AS g`,
  );
  const [records, distinct] = (sample.getRows()[0] ?? [0, 0]).map(Number);
  return records > 0 && distinct <= DISTINCT_SHARE * records;
}
