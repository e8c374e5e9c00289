/**
 * Tables: row-major arrays of numbers over the product of some features' domains (dims), the
 * last listed feature varying fastest. The operations every table user shares — size and
 * strides, marginalise (sum out), broadcast-add, group categories — in one place, after
 * private-pgm's `Factor` (McKenna et al.; src/mbi/factor.py) but as functions on Float64Arrays:
 * the hot loops (kernels, exact answers) keep plain typed arrays and no per-table object.
 *
 * The "at least r of k matches" transform, the one r-of-k-specific table operation, is in
 * at-least-r.ts.
 */

/** Product of the dimensions: the number of cells of a row-major table over them. */
export function tableSize(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

/** Row-major strides: strides[j] = product of dims after j (the last one is 1). */
export function rowMajorStrides(dims: readonly number[]): number[] {
  const strides = new Array<number>(dims.length);
  let s = 1;
  for (let j = dims.length - 1; j >= 0; j--) {
    strides[j] = s;
    s *= dims[j];
  }
  return strides;
}

/** Sums a row-major table over dims down to the positions in `keep` (ascending). */
export function marginalize(
  table: Float64Array,
  dims: readonly number[],
  keep: readonly number[],
): Float64Array {
  const keepDims = keep.map((p) => dims[p]);
  const keepStrides = rowMajorStrides(keepDims);
  const stride = dims.map(() => 0);
  keep.forEach((p, i) => {
    stride[p] = keepStrides[i];
  });
  const out = new Float64Array(tableSize(keepDims));
  const k = dims.length;
  const counter = new Array<number>(k).fill(0);
  const last = dims[k - 1];
  const lastStride = stride[k - 1];
  let target = 0;
  for (let c = 0; c < table.length; c += last) {
    for (let v = 0; v < last; v++) out[target + v * lastStride] += table[c + v];
    // Odometer over the leading axes, keeping the output offset in step.
    for (let j = k - 2; j >= 0; j--) {
      target += stride[j];
      if (++counter[j] < dims[j]) break;
      target -= stride[j] * dims[j];
      counter[j] = 0;
    }
  }
  return out;
}

/** Sums out one axis of a row-major table over dims (marginalize onto the other axes). */
export function sumOut(table: Float64Array, dims: readonly number[], axis: number): Float64Array {
  return marginalize(
    table,
    dims,
    dims.map((_, p) => p).filter((p) => p !== axis),
  );
}

/**
 * out[y] += coefficient · table[y_T] for every y in the row-major table over dims, where table is
 * row-major over the dims of `subset` (positions within dims, ascending).
 */
export function broadcastAdd(
  out: Float64Array,
  dims: readonly number[],
  subset: readonly number[],
  table: Float64Array,
  coefficient: number,
): void {
  const subDims = subset.map((p) => dims[p]);
  if (table.length !== tableSize(subDims)) {
    throw new RangeError(
      `table for subset [${subset}] has ${table.length} cells, expected ${tableSize(subDims)}`,
    );
  }
  if (out.length !== tableSize(dims))
    throw new RangeError(`output has ${out.length} cells, expected ${tableSize(dims)}`);
  if (subset.length === 0) {
    const v = coefficient * table[0];
    for (let i = 0; i < out.length; i++) out[i] += v;
    return;
  }
  const runs = mergeRuns(dims, subset);
  const inner = runs[runs.length - 1];
  const outer = runs.slice(0, -1);
  const counter = new Array<number>(outer.length).fill(0);
  let base = 0;
  for (let o = 0; o < out.length; o += inner.size) {
    if (inner.tableStride === 0) {
      const v = coefficient * table[base];
      for (let i = 0; i < inner.size; i++) out[o + i] += v;
    } else {
      for (let i = 0; i < inner.size; i++) out[o + i] += coefficient * table[base + i];
    }
    // Odometer over the outer runs, updating the table offset incrementally.
    for (let j = outer.length - 1; j >= 0; j--) {
      const run = outer[j];
      base += run.tableStride;
      if (++counter[j] < run.size) break;
      base -= run.tableStride * run.size;
      counter[j] = 0;
    }
  }
}

interface Run {
  readonly size: number;
  /** Stride of the run in the subset table: 0 for positions outside the subset. */
  readonly tableStride: number;
}

/**
 * Consecutive positions that are all in the subset (or all outside it) merge into one axis:
 * inside a run of members the subset-table index is contiguous, outside it is constant. This
 * keeps the inner loop long even when the last feature has 2 categories.
 */
function mergeRuns(dims: readonly number[], subset: readonly number[]): Run[] {
  const member = dims.map(() => false);
  for (const p of subset) member[p] = true;
  const strides = rowMajorStrides(subset.map((p) => dims[p]));
  const strideAt = new Map(subset.map((p, i) => [p, strides[i]]));
  const runs: { size: number; tableStride: number; member: boolean }[] = [];
  for (let j = dims.length - 1; j >= 0; j--) {
    const first = runs[0];
    if (first !== undefined && first.member === member[j]) first.size *= dims[j];
    else runs.unshift({ size: dims[j], tableStride: member[j] ? strideAt.get(j)! : 0, member: member[j] });
  }
  return runs;
}

/** A feature's categories mapped to `count` groups: category v belongs to group `of[v]`. */
export interface CategoryGroups {
  readonly of: Int32Array;
  readonly count: number;
}

/** Per feature of a table, its groups, or undefined where the feature keeps its categories. */
export type TableGrouping = readonly (CategoryGroups | undefined)[];

/** The grouped table's dims. */
export function groupedDims(dims: readonly number[], grouping: TableGrouping): number[] {
  return dims.map((d, j) => grouping[j]?.count ?? d);
}

/** For every cell of the row-major table over dims, its cell in the grouped table. */
export function cellGroups(dims: readonly number[], grouping: TableGrouping): Int32Array {
  const coarse = groupedDims(dims, grouping);
  let out = Int32Array.of(0);
  // Row-major, one axis at a time: cell = cell_prefix · d_j + v, grouped likewise.
  dims.forEach((d, j) => {
    const next = new Int32Array(out.length * d);
    const of = grouping[j]?.of;
    for (let p = 0; p < out.length; p++) {
      const base = out[p] * coarse[j];
      for (let v = 0; v < d; v++) next[p * d + v] = base + (of ? of[v] : v);
    }
    out = next;
  });
  return out;
}

/** Σ of the table's cells into their groups' cells. */
export function groupTable(table: Float64Array, cells: Int32Array, groupedCells: number): Float64Array {
  const out = new Float64Array(groupedCells);
  for (let y = 0; y < table.length; y++) out[cells[y]] += table[y];
  return out;
}

/** Whether the grouping merges anything. */
export function isGrouped(grouping: TableGrouping | undefined): grouping is TableGrouping {
  return grouping?.some((g) => g !== undefined) ?? false;
}
