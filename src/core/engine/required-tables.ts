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
import { type CountedDataset, tableKey } from '../data/counted.ts';
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
 * as the run: every one-way, and the features of every threshold of the workload and of the
 * evaluation workloads that no other threshold's features strictly contain (the engine sums a
 * contained set's table out of its superset's, exactly: integer counts). Unique; ordered by size,
 * then column by column. Leaving the contained sets out spares the counting engine a grouping set
 * each: the default workload with a target on ADULT's 14 columns lists 14 one-ways and its 78 3-way
 * sets, not its 91 2-way sets too.
 */
export function requiredFeatureSets(input: TableNeeds): number[][] {
  const workloads = [
    input.workload,
    ...(input.evalWorkload ? [input.evalWorkload] : []),
    ...(input.evalWorkloads ?? []),
  ];
  const thresholdSets = new Map<string, number[]>();
  for (const w of workloads) {
    for (const t of w.thresholds) {
      const features = [...new Set(t.features)].sort((a, b) => a - b);
      thresholdSets.set(features.join(','), features);
    }
  }
  const candidates = [...thresholdSets.values()];
  const maximal = candidates.filter((s) => !candidates.some((o) => o.length > s.length && contains(o, s)));
  const sets = new Map<string, number[]>(maximal.map((s) => [s.join(','), s]));
  input.schema.columns.forEach((_, f) => {
    sets.set(String(f), [f]);
  });
  return [...sets.values()].sort(compareSets);
}

/** Whether the ascending set `outer` holds every feature of `inner`. */
function contains(outer: readonly number[], inner: readonly number[]): boolean {
  return inner.every((f) => outer.includes(f));
}

/** The required feature sets the counted data holds no table for (empty when it is complete). */
export function missingFeatureSets(data: CountedDataset, input: Omit<TableNeeds, 'schema'>): number[][] {
  return requiredFeatureSets({ ...input, schema: data.schema }).filter((s) => !data.tables.has(tableKey(s)));
}

/**
 * Throws an internal error naming the first missing sets (by column index and name) when the
 * counted data lacks a table a run with this input reads: the counting step's bug, caught before
 * the run rather than halfway through it.
 */
export function assertTablesFor(data: CountedDataset, input: Omit<TableNeeds, 'schema'>): void {
  const missing = missingFeatureSets(data, input);
  if (missing.length === 0) return;
  const name = (f: number) => data.schema.columns[f]?.name ?? `#${f}`;
  const shown = missing.slice(0, 5).map((s) => `[${s.join(', ')}] (${s.map(name).join(', ')})`);
  throw new Error(
    `internal: the counted data lacks the exact table over features ${shown.join(', ')}` +
      `${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}: the counting step must ` +
      'compute every set requiredFeatureSets lists',
  );
}

function compareSets(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return a[j] - b[j];
  return 0;
}
