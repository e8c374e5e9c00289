/**
 * Implicit query indexing. Workloads reach 10^7–10^8 queries, so a query is never an object in
 * memory: it is (threshold index, local index), and the local index runs row-major over the
 * threshold's features in the order they are listed (the LAST listed feature varies fastest).
 * A global index concatenates the thresholds in workload order; totals can pass 2^32 (and in
 * principle 2^53), so global offsets are bigints.
 */
import { tableSize } from './table.ts';
import type { Threshold, Workload } from './types.ts';

/** The table helpers, where many callers have long imported them from (their home is table.ts). */
export { rowMajorStrides, tableSize } from './table.ts';

/** Domain sizes of t.features, in the order they are listed. */
export function thresholdSizes(t: Threshold, sizes: readonly number[]): number[] {
  return t.features.map((f) => {
    const s = sizes[f];
    if (s === undefined) throw new RangeError(`feature index ${f} is outside the ${sizes.length} features`);
    return s;
  });
}

/**
 * Number of queries (targets) of one threshold. A single threshold's table always fits in a JS
 * number exactly: workload validation refuses thresholds above Number.MAX_SAFE_INTEGER.
 */
export function queryCount(t: Threshold, sizes: readonly number[]): number {
  return tableSize(thresholdSizes(t, sizes));
}

/** Total number of queries of a workload, exact at any size. */
export function totalQueryCount(w: Workload, sizes: readonly number[]): bigint {
  let total = 0n;
  for (const t of w.thresholds) total += BigInt(queryCount(t, sizes));
  return total;
}

/** The target y (one category per listed feature) of a local index. */
export function localIndexToTarget(local: number, dims: readonly number[]): number[] {
  const size = tableSize(dims);
  if (!Number.isInteger(local) || local < 0 || local >= size) {
    throw new RangeError(`local index ${local} is outside 0..${size - 1}`);
  }
  const target = new Array<number>(dims.length);
  for (let j = dims.length - 1; j >= 0; j--) {
    target[j] = local % dims[j];
    local = Math.floor(local / dims[j]);
  }
  return target;
}

/** The local index of a target y (inverse of {@link localIndexToTarget}). */
export function targetToLocalIndex(target: readonly number[], dims: readonly number[]): number {
  if (target.length !== dims.length) {
    throw new RangeError(`target has ${target.length} values but the threshold has ${dims.length} features`);
  }
  let local = 0;
  for (let j = 0; j < dims.length; j++) {
    const y = target[j];
    if (!Number.isInteger(y) || y < 0 || y >= dims[j]) {
      throw new RangeError(`target value ${y} at position ${j} is outside 0..${dims[j] - 1}`);
    }
    local = local * dims[j] + y;
  }
  return local;
}

/** Where each threshold's queries start in the global order. */
export interface QueryIndex {
  /** offsets[i] = global index of threshold i's first query; offsets[m] = total. */
  readonly offsets: readonly bigint[];
  readonly total: bigint;
}

export function buildQueryIndex(w: Workload, sizes: readonly number[]): QueryIndex {
  const offsets: bigint[] = [0n];
  let total = 0n;
  for (const t of w.thresholds) {
    total += BigInt(queryCount(t, sizes));
    offsets.push(total);
  }
  return { offsets, total };
}

/** Global index of query (threshold, local). */
export function toGlobalIndex(index: QueryIndex, threshold: number, local: number): bigint {
  const m = index.offsets.length - 1;
  if (!Number.isInteger(threshold) || threshold < 0 || threshold >= m) {
    throw new RangeError(`threshold index ${threshold} is outside 0..${m - 1}`);
  }
  const start = index.offsets[threshold];
  const size = index.offsets[threshold + 1] - start;
  if (!Number.isInteger(local) || local < 0 || BigInt(local) >= size) {
    throw new RangeError(`local index ${local} is outside 0..${size - 1n} for threshold ${threshold}`);
  }
  return start + BigInt(local);
}

/** (threshold, local) of a global index, by binary search over the offsets. */
export function fromGlobalIndex(
  index: QueryIndex,
  global: bigint | number,
): { threshold: number; local: number } {
  const g = BigInt(global);
  if (g < 0n || g >= index.total) throw new RangeError(`global index ${g} is outside 0..${index.total - 1n}`);
  // Largest i with offsets[i] <= g; empty thresholds cannot occur (every domain size is >= 1).
  let lo = 0;
  let hi = index.offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (index.offsets[mid] <= g) lo = mid;
    else hi = mid - 1;
  }
  return { threshold: lo, local: Number(g - index.offsets[lo]) };
}
