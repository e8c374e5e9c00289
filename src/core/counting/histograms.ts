/**
 * Discovery's per-column histograms of a CSV or Parquet file in ONE scan by an embedded DuckDB:
 * the counting query (sql/counting.ts) with one grouping set per column plus the empty set (the
 * row count), each column's RAW text grouped. discovery/histograms.ts feeds them to discovery's
 * counters (trimming, missing markers, number and date syntax stay in the JS code).
 *
 * Exact statistics of the private data: never logged, never released.
 */

import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import type { ColumnHistograms, HistogramCounter, HistogramSink } from '../data/histograms.ts';
import type { TableOptions } from '../data/table.ts';
import { histogramQuery, type Relation, setKey, textSampleQuery } from '../sql/counting.ts';
import type { DuckDbOptions } from '../sql/duckdb.ts';
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
      (c, counted) => collectHistograms(names, (sink) => streamHistograms(c, counted, names, source, sink)),
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

/**
 * Streams the named columns' histograms of `rel` (one scan: sql/counting.ts histogramQuery) into
 * `sink` a distinct text at a time, a result chunk read a column at a time: no column's histogram
 * is held here, whatever its distinct texts. `source(name)`: the relation column of a name (two
 * names on one column each get its texts). Resolves to the row count.
 */
export async function streamHistograms(
  c: DuckDBConnection,
  rel: Relation,
  names: readonly string[],
  source: (name: string) => string,
  sink: HistogramSink,
): Promise<number> {
  const query = histogramQuery(rel, names.map(source), 'duckdb');
  // The names fed by each query column.
  const fed: number[][] = query.columns.map(() => []);
  names.forEach((name, j) => {
    fed[query.columns.indexOf(source(name))].push(j);
  });
  return feedHistogramRows(await c.stream(query.sql), fed, sink);
}

/**
 * Reads a narrow histogram result (k, v, n: histogramQuery's columns) a chunk at a time into
 * `sink`: the texts of k go to the names `fed[k]`; the row of k = −1 is the row count, which it
 * resolves to.
 */
export async function feedHistogramRows(
  result: DuckDBResult,
  fed: readonly (readonly number[] | undefined)[],
  sink: HistogramSink,
): Promise<number> {
  let n = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return n;
    const ks = chunk.getColumnValues(0);
    const vs = chunk.getColumnValues(1);
    const ns = chunk.getColumnValues(2);
    for (let r = 0; r < ks.length; r++) {
      const k = ks[r] as number;
      const count = ns[r] as number;
      if (k < 0) {
        n = count;
        continue;
      }
      const text = vs[r] as string;
      for (const j of fed[k] ?? []) sink(j, text, count);
    }
  }
}

/** The histograms `stream` feeds, collected whole (a column with few distinct texts; tests). */
export async function collectHistograms(
  names: readonly string[],
  stream: (sink: HistogramSink) => Promise<number>,
): Promise<ColumnHistograms> {
  const maps = names.map(() => new Map<string, number>());
  const n = await stream((j, text, count) => {
    const m = maps[j];
    m.set(text, (m.get(text) ?? 0) + count);
  });
  return { n, columns: new Map(names.map((name, j) => [name, maps[j]])) };
}

/**
 * The report's sample of `column` (release/report/fidelity.ts histogramSample) counted in
 * DuckDB (sql/counting.ts textSampleQuery): raw texts in code-point order, each as often as its
 * records cover sample positions. For a column too wide to return its histogram.
 */
export async function textSample(
  c: DuckDBConnection,
  rel: Relation,
  column: string,
  stride: number,
): Promise<string[]> {
  return sampleRows(c, textSampleQuery(rel, column, stride, 'duckdb'));
}

/** A sample query's rows (v, k: sql/counting.ts textSampleOver) as the sample: each text k times. */
export async function sampleRows(c: DuckDBConnection, sql: string): Promise<string[]> {
  const rows = (await c.runAndReadAll(sql)).getRows();
  const out: string[] = [];
  for (const [v, k] of rows) for (let i = 0; i < Number(k); i++) out.push(String(v));
  return out;
}
