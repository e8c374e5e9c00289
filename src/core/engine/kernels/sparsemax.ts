/**
 * Sparsemax: the Euclidean projection of a vector onto the probability simplex
 * (Martins & Astudillo 2016): p_i = max(z_i − τ, 0) with τ chosen so that Σ p_i = 1.
 *
 * τ is found by Michelot's pivot iteration: start with all entries, set τ = (Σ kept − 1)/#kept,
 * drop the entries ≤ τ, repeat until nothing is dropped. τ only grows, the true support is never
 * dropped, and each pass works on the shrinking candidate list, so a block that is already
 * nearly sparse (the usual case after the first steps) costs about two passes over its entries
 * instead of a sort.
 *
 * The passes are branch-free: which entries stay is often unpredictable, and a mispredicted
 * branch per entry cost more than the rest of the pass (measured: a projection with every column
 * moving 1.6–2× faster; 15% on projections captured from the `quick` runs, whose rows mostly
 * settle in one predictable pass). Each row is summed while it is transposed in. An entry is
 * kept by writing it at the end of the kept list and advancing the end by the sign bit of τ − x
 * (1 exactly when x > τ), and max(p, 0) is (p + |p|) / 2. The sums add the same entries in the
 * same order as the branching form, so τ and the projection are bit-identical to it.
 */
import type { RelaxedShape } from '../relaxed.ts';

const signWord = new Float64Array(1);
const signBits = new Uint32Array(signWord.buffer);
/** Index of the high 32-bit word (sign and exponent) of a float64 in signBits. */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** 1 if x > τ, else 0, without a branch: the sign bit of τ − x (τ is never −0 here). */
function above(x: number, tau: number): number {
  signWord[0] = tau - x;
  return signBits[HIGH_WORD] >>> 31;
}

/** max(p, 0) without a branch; exact (p + p = 2p, and p + (−p) = +0). */
function positivePart(p: number): number {
  return (p + Math.abs(p)) * 0.5;
}

/** The sparsemax threshold τ of z[offset + stride·v], v < size. `scratch` holds ≥ size numbers. */
export function sparsemaxThreshold(
  z: ArrayLike<number>,
  offset: number,
  stride: number,
  size: number,
  scratch: Float64Array,
): number {
  let sum = 0;
  for (let v = 0; v < size; v++) {
    const x = z[offset + v * stride];
    scratch[v] = x;
    sum += x;
  }
  return thresholdFrom(scratch, 0, size, sum, scratch);
}

/**
 * τ of the row z[offset … offset + size) whose entries sum (in order) to `sum`. The first pass
 * reads the row in place and writes the kept entries to `scratch` (which may be the row itself
 * at offset 0); later passes shrink that list.
 */
function thresholdFrom(
  z: Float64Array,
  offset: number,
  size: number,
  sum: number,
  scratch: Float64Array,
): number {
  let tau = (sum - 1) / size;
  let count = 0;
  let keptSum = 0;
  for (let v = 0; v < size; v++) {
    const x = z[offset + v];
    scratch[count] = x;
    const stays = above(x, tau);
    count += stays;
    keptSum += stays * x;
  }
  // The maximum always exceeds τ (it is above the mean of the kept entries, which is > τ).
  while (count < size) {
    size = count;
    tau = (keptSum - 1) / size;
    count = 0;
    keptSum = 0;
    for (let v = 0; v < size; v++) {
      const x = scratch[v];
      scratch[count] = x;
      const stays = above(x, tau);
      count += stays;
      keptSum += stays * x;
    }
  }
  return tau;
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
  const sums = new Float64Array(TILE);
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
      tileThresholds(values, base + i0, rows, size, n, tile, sums, tau, scratch);
      for (let v = 0; v < size; v++) {
        const col = base + v * rows + i0;
        for (let t = 0; t < n; t++) {
          values[col + t] = positivePart(values[col + t] - tau[t]);
        }
      }
    }
  }
}

/**
 * τ of the n rows of a tile starting at `start` (a block's column 0, row i0) into `tau`: the rows
 * are transposed into `tile` (row-major) and each is summed on the way, in category order, as the
 * threshold needs.
 */
function tileThresholds(
  values: Float64Array,
  start: number,
  rows: number,
  size: number,
  n: number,
  tile: Float64Array,
  sums: Float64Array,
  tau: Float64Array,
  scratch: Float64Array,
): void {
  sums.fill(0);
  for (let v = 0; v < size; v++) {
    const col = start + v * rows;
    for (let t = 0; t < n; t++) {
      const x = values[col + t];
      tile[t * size + v] = x;
      sums[t] += x;
    }
  }
  for (let t = 0; t < n; t++) tau[t] = thresholdFrom(tile, t * size, size, sums[t], scratch);
}

/** Rows per tile: a tile of the largest blocks (≈100 categories) stays within L1. */
const TILE = 32;

/** Where {@link projectBlockToSparse} writes a block's nonzeros: CSR over rows, capacity rows × size. */
export interface SparseBlockBuffers {
  readonly rowStart: Int32Array;
  readonly category: Int32Array;
  readonly value: Float64Array;
}

/**
 * Projects one feature block (the size × n' slab at `base` of a column-major D') in place, or
 * only reads it when `project` is false, and writes its nonzeros row by row into `out` while each
 * tile is still in cache: the same CSR as sparseRows (sparse-rows.ts) without its two passes over
 * D' (the previous profile: building the sparse rows was ~9% of a table-mode run). Returns the
 * block's largest |Σ row − 1|, summed in category order as sparseRows does (bit-identical).
 */
export function projectBlockToSparse(
  values: Float64Array,
  rows: number,
  base: number,
  size: number,
  project: boolean,
  out: SparseBlockBuffers,
): number {
  const tile = new Float64Array(TILE * size);
  const scratch = new Float64Array(size);
  const tau = new Float64Array(TILE);
  const sums = new Float64Array(TILE);
  const { rowStart, category, value } = out;
  if (project && size === 1) values.fill(1, base, base + rows);
  const projecting = project && size > 1;
  let at = 0;
  let deviation = 0;
  rowStart[0] = 0;
  for (let i0 = 0; i0 < rows; i0 += TILE) {
    const n = Math.min(TILE, rows - i0);
    if (projecting) {
      tileThresholds(values, base + i0, rows, size, n, tile, sums, tau, scratch);
    } else {
      for (let v = 0; v < size; v++) {
        const col = base + v * rows + i0;
        for (let t = 0; t < n; t++) tile[t * size + v] = values[col + t];
      }
    }
    // Row by row: each entry projected, written back to its column (the tile's TILE-row runs of
    // the block's columns stay in cache) and, when nonzero, to the sparse rows, in one pass.
    for (let t = 0; t < n; t++) {
      const row = t * size;
      const at0 = base + i0 + t;
      let sum = 0;
      if (projecting) {
        const tauT = tau[t];
        for (let v = 0; v < size; v++) {
          const x = positivePart(tile[row + v] - tauT);
          values[at0 + v * rows] = x;
          if (x !== 0) {
            category[at] = v;
            value[at++] = x;
            sum += x;
          }
        }
      } else {
        for (let v = 0; v < size; v++) {
          const x = tile[row + v];
          if (x !== 0) {
            category[at] = v;
            value[at++] = x;
            sum += x;
          }
        }
      }
      rowStart[i0 + t + 1] = at;
      deviation = Math.max(deviation, Math.abs(sum - 1));
    }
  }
  return deviation;
}
