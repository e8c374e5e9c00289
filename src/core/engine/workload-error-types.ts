/**
 * The shapes of a run's error tables (workload-errors.ts computes them), in their own file with
 * no imports so that the renderer's API types can use them without Node types.
 */

/** One line of the table: max |error| of each answer source over a set of queries. */
export interface ErrorRow {
  readonly relaxed: number;
  readonly released: number;
  readonly all0: number;
  readonly gm: number;
}

export interface WorkloadErrorTable {
  readonly thresholds: number;
  readonly queries: number;
  /** Over the whole workload. */
  readonly max: ErrorRow;
  /** One row per threshold, in workload order. */
  readonly perThreshold: readonly ErrorRow[];
}

/** The workload's table and the evaluation workloads' (in the order given). */
export interface ErrorTables {
  readonly present: WorkloadErrorTable;
  readonly future: readonly WorkloadErrorTable[];
}
