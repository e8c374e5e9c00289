/**
 * Which exact tables the engine reads from the private data: a counting engine (DuckDB, a
 * database) computes exactly these, in one scan, and hands them over as a CountedDataset
 * (data/counted.ts) instead of the rows.
 *
 * Every exact answer the engine needs is a function of one of them: a threshold's answers come
 * from the table over its features (workload/at-least-r.ts for r < k); table mode's units (the
 * workload's downward closure, table-mode/units.ts) are sub-tables of a threshold's table, summed
 * out of it (counted-tables.ts); the one-way start reads every feature's one-way; the report
 * evaluates the workload and the evaluation workloads on their own tables.
 */
import type { Schema } from '../data/schema.ts';
import type { Workload } from '../workload/types.ts';

export interface TableNeeds {
  readonly schema: Schema;
  readonly workload: Workload;
  readonly evalWorkload?: Workload;
  readonly evalWorkloads?: readonly Workload[];
}

/**
 * The feature sets (each ascending) whose exact tables the engine reads, given the same input
 * as the run: every one-way, then every threshold's features of the workload and of the
 * evaluation workloads. Unique; ordered by size, then column by column.
 */
export function requiredFeatureSets(input: TableNeeds): number[][] {
  const sets = new Map<string, number[]>();
  input.schema.columns.forEach((_, f) => {
    sets.set(String(f), [f]);
  });
  const workloads = [
    input.workload,
    ...(input.evalWorkload ? [input.evalWorkload] : []),
    ...(input.evalWorkloads ?? []),
  ];
  for (const w of workloads) {
    for (const t of w.thresholds) {
      const features = [...new Set(t.features)].sort((a, b) => a - b);
      sets.set(features.join(','), features);
    }
  }
  return [...sets.values()].sort(compareSets);
}

function compareSets(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return a[j] - b[j];
  return 0;
}
