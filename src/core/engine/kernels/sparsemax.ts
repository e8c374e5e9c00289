/**
 * Sparsemax: the Euclidean projection of a vector onto the probability simplex
 * (Martins & Astudillo 2016): p_i = max(z_i − τ, 0) with τ chosen so that Σ p_i = 1.
 *
 * τ is found by Michelot's pivot iteration: start with all entries, set τ = (Σ kept − 1)/#kept,
 * drop the entries ≤ τ, repeat until nothing is dropped. τ only grows, the true support is never
 * dropped, and each pass works on the shrinking candidate list, so a block that is already
 * nearly sparse (the usual case after the first steps) costs about two passes over its entries
 * instead of a sort.
 */
import type { RelaxedShape } from '../relaxed.ts';

/** The sparsemax threshold τ of z[offset + stride·v], v < size. `scratch` holds ≥ size numbers. */
export function sparsemaxThreshold(
  z: ArrayLike<number>,
  offset: number,
  stride: number,
  size: number,
  scratch: Float64Array,
): number {
  let count = size;
  let sum = 0;
  for (let v = 0; v < size; v++) {
    const x = z[offset + v * stride];
    scratch[v] = x;
    sum += x;
  }
  let tau = (sum - 1) / count;
  for (;;) {
    let kept = 0;
    let keptSum = 0;
    for (let v = 0; v < count; v++) {
      const x = scratch[v];
      if (x > tau) {
        scratch[kept++] = x;
        keptSum += x;
      }
    }
    // The maximum always exceeds τ (it is above the mean of the kept entries, which is > τ).
    if (kept === count) return tau;
    count = kept;
    tau = (keptSum - 1) / count;
  }
}

/** Projects a plain vector onto the simplex (tests, small blocks). */
export function sparsemax(z: ArrayLike<number>): Float64Array {
  const tau = sparsemaxThreshold(z, 0, 1, z.length, new Float64Array(z.length));
  return Float64Array.from(z, (x) => Math.max(x - tau, 0));
}

/**
 * Projects every feature block of every row of a column-major D' in place. `blocks` limits the
 * work to the features whose columns may have moved (default: all).
 *
 * A block is a contiguous (size × n') slab; it is read in tiles of TILE rows, transposed into a
 * small row-major buffer (contiguous reads of the slab), the threshold τ found per row, and the
 * result written back column by column (contiguous again).
 */
export function projectRelaxed(
  values: Float64Array,
  shape: RelaxedShape,
  blocks: readonly number[] = shape.layout.sizes.map((_, j) => j),
): void {
  const { rows, layout } = shape;
  let maxSize = 1;
  for (const j of blocks) maxSize = Math.max(maxSize, layout.sizes[j]);
  const tile = new Float64Array(TILE * maxSize);
  const scratch = new Float64Array(maxSize);
  const tau = new Float64Array(TILE);
  for (const j of blocks) {
    const size = layout.sizes[j];
    const base = layout.offsets[j] * rows;
    if (size === 1) {
      // The simplex of one category is the point 1, whatever a step did.
      values.fill(1, base, base + rows);
      continue;
    }
    for (let i0 = 0; i0 < rows; i0 += TILE) {
      const n = Math.min(TILE, rows - i0);
      for (let v = 0; v < size; v++) {
        const col = base + v * rows + i0;
        for (let t = 0; t < n; t++) tile[t * size + v] = values[col + t];
      }
      for (let t = 0; t < n; t++) tau[t] = sparsemaxThreshold(tile, t * size, 1, size, scratch);
      for (let v = 0; v < size; v++) {
        const col = base + v * rows + i0;
        for (let t = 0; t < n; t++) {
          const p = values[col + t] - tau[t];
          values[col + t] = p > 0 ? p : 0;
        }
      }
    }
  }
}

/** Rows per tile: a tile of the largest blocks (≈100 categories) stays within L1. */
const TILE = 32;
