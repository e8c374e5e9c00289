/**
 * The shape of exact one-way histograms of a table's columns, shared by the counters that make
 * them (src/core/counting: DuckDB, PostgreSQL) and discovery, which reads them
 * (src/core/discovery/histograms.ts). Types only: here, below both, so neither imports the other.
 */

/** Exact one-way histograms of a table's columns (private). */
export interface ColumnHistograms {
  /**
   * Records: the row count of the table. A counter that keeps a row of the wrong width (as the
   * streaming reader does) counts it under the first missing marker in every column.
   */
  readonly n: number;
  /**
   * Per requested column: each distinct text as the source holds it (SQL NULL as the empty text)
   * and its record count; the counts of every column sum to n.
   */
  readonly columns: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Counts the named columns' histograms, in one pass over the rows where the counter can. */
export type HistogramCounter = (columns: readonly string[]) => Promise<ColumnHistograms>;

/**
 * Receives one distinct text of the `column`-th requested column and its record count (a
 * streamed histogram: each text once per column, in no particular order).
 */
export type HistogramSink = (column: number, text: string, count: number) => void;

/**
 * Streams the named columns' histograms into `sink` (one pass where the counter can), holding
 * none of them whole: a column with millions of distinct texts costs its stream, not a map.
 * Resolves to the row count.
 */
export type HistogramStream = (
  columns: readonly string[],
  sink: HistogramSink,
  signal?: AbortSignal,
) => Promise<number>;
