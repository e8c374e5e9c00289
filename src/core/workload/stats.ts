/**
 * Workload statistics for the curator: how many queries, and once answered how sparse the
 * answers are (share of exactly-zero answers). Counts only: never exposes an answer.
 */
import { queryCount } from './queries.ts';
import type { Workload } from './types.ts';

export interface WorkloadStats {
  readonly thresholds: number;
  /** Total number of queries (can pass 2^32). */
  readonly queries: bigint;
  readonly largestThresholdQueries: number;
  /** Thresholds per k (k = number of features). */
  readonly thresholdsByK: Readonly<Record<number, number>>;
  /** Present when answers were given. */
  readonly zeroAnswers?: bigint;
  readonly sparsity?: number;
}

/** answers[i] = the answers of threshold i (any order within a threshold). */
export function workloadStats(
  w: Workload,
  sizes: readonly number[],
  answers?: readonly ArrayLike<number>[],
): WorkloadStats {
  let queries = 0n;
  let largest = 0;
  const thresholdsByK: Record<number, number> = {};
  for (const t of w.thresholds) {
    const count = queryCount(t, sizes);
    queries += BigInt(count);
    largest = Math.max(largest, count);
    thresholdsByK[t.features.length] = (thresholdsByK[t.features.length] ?? 0) + 1;
  }
  const base = { thresholds: w.thresholds.length, queries, largestThresholdQueries: largest, thresholdsByK };
  if (answers === undefined) return base;
  if (answers.length !== w.thresholds.length) {
    throw new RangeError(`answers for ${answers.length} thresholds, the workload has ${w.thresholds.length}`);
  }
  let zeros = 0n;
  answers.forEach((a, i) => {
    const expected = queryCount(w.thresholds[i], sizes);
    if (a.length !== expected)
      throw new RangeError(`threshold ${i} has ${a.length} answers, expected ${expected}`);
    let z = 0;
    for (let q = 0; q < a.length; q++) if (a[q] === 0) z++;
    zeros += BigInt(z);
  });
  return { ...base, zeroAnswers: zeros, sparsity: queries > 0n ? Number(zeros) / Number(queries) : 0 };
}
