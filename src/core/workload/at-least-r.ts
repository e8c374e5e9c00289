/**
 * The "at least r of k matches" transform, the one step between a k-way table and the answers
 * of an r-of-k threshold: A(y) = Σ_z P(z)·[#{j : z_j = y_j} ≥ r], for a row-major table P over
 * dims. The exact answers (exact.ts, on counts) and the kernels (on the relaxed data's table,
 * kernels/threshold-answers.ts) both call it.
 *
 * Axis by axis, each cell is sorted into classes by how many axes so far matched (or did not
 * match) the target, and the axis turns from "z_j" into "y_j":
 *   matches:    M'_m[y] = (Σ_z M_m[z] − M_m[y]) + M_{m−1}[y]     (classes m = 0 … r − 1)
 *   mismatches: U'_u[y] = U_u[y] + (Σ_z U_{u−1}[z] − U_{u−1}[y])   (classes u = 0 … k − r)
 * Every cell of P is in exactly one class, so A = ΣP − Σ_{m<r} M_m = Σ_{u≤k−r} U_u: "at least
 * r" needs no class of its own. O(k · classes · |P|) time, classes · |P| memory, instead of the
 * 2^k − 1 broadcast marginals of inclusion–exclusion (exactAnswersByInclusionExclusion keeps
 * that form as the reference).
 *
 * Each cell's sums run over v in ascending order and its classes combine in ascending class
 * order whatever the side's chunking, so a given side gives the same numbers bit for bit.
 */
import { rowMajorStrides } from './table.ts';

/** Which classes to track: matches so far (r of them) or mismatches so far (k − r + 1). */
export type MatchSide = 'matches' | 'mismatches';

/** The side with fewer classes (ties: matches). */
export function cheaperSide(k: number, r: number): MatchSide {
  return r <= k - r + 1 ? 'matches' : 'mismatches';
}

export interface AtLeastROptions {
  /** Default 'matches' (the kernels' side: their seeded runs are pinned to it). */
  readonly side?: MatchSide;
  /** ΣP when known exactly (n for counts); default: summed from P. Only the matches side uses it. */
  readonly total?: number;
}

/** Neighbouring lines along an axis processed together (contiguous runs of this many cells). */
const CHUNK = 2048;

/** A(y) for every target y, row-major over dims. `P` is consumed (it holds the result's storage). */
export function atLeastRMatches(
  P: Float64Array,
  dims: readonly number[],
  r: number,
  options: AtLeastROptions = {},
): Float64Array {
  const k = dims.length;
  if (!Number.isInteger(r) || r < 1 || r > k)
    throw new RangeError(`r must be an integer in 1..${k}, got ${r}`);
  const side = options.side ?? 'matches';
  const size = P.length;
  let total = 0;
  if (side === 'matches') {
    if (options.total !== undefined) total = options.total;
    else for (let i = 0; i < size; i++) total += P[i];
  }
  const classes = side === 'matches' ? r : k - r + 1;
  const levels: Float64Array[] = [P];
  for (let c = 1; c < classes; c++) levels.push(new Float64Array(size));
  // The mismatches side with one class (r = k) moves nothing: P is already the answer.
  if (side === 'matches' || classes > 1) {
    const strides = rowMajorStrides(dims);
    const sums = levels.map(() => new Float64Array(CHUNK));
    for (let axis = 0; axis < k; axis++) passAxis(levels, sums, dims[axis], strides[axis], side);
  }
  const out = levels[0];
  if (side === 'matches') {
    for (let i = 0; i < size; i++) {
      let fewer = out[i];
      for (let c = 1; c < classes; c++) fewer += levels[c][i];
      out[i] = total - fewer;
    }
  } else {
    for (let c = 1; c < classes; c++) {
      const level = levels[c];
      for (let i = 0; i < size; i++) out[i] += level[i];
    }
  }
  return out;
}

/** One axis (size d, row-major stride `stride`) of atLeastRMatches, in place over every line. */
function passAxis(
  levels: readonly Float64Array[],
  sums: readonly Float64Array[],
  d: number,
  stride: number,
  side: MatchSide,
): void {
  const size = levels[0].length;
  const block = stride * d;
  const classes = levels.length;
  // Lines along the axis, a chunk of neighbouring lines at a time: every access below walks
  // contiguous runs of `width` cells (the axis step is `stride` cells).
  for (let outer = 0; outer < size; outer += block) {
    for (let inner = 0; inner < stride; inner += CHUNK) {
      const width = Math.min(CHUNK, stride - inner);
      for (let c = 0; c < classes; c++) {
        const sum = sums[c];
        const a = levels[c];
        sum.fill(0, 0, width);
        for (let v = 0; v < d; v++) {
          const run = outer + v * stride + inner;
          for (let i = 0; i < width; i++) sum[i] += a[run + i];
        }
      }
      for (let v = 0; v < d; v++) {
        const run = outer + v * stride + inner;
        // Descending class: class c − 1 still holds its old value when class c is written.
        for (let c = classes - 1; c >= 1; c--) {
          const a = levels[c];
          const below = levels[c - 1];
          if (side === 'matches') {
            const sum = sums[c];
            for (let i = 0; i < width; i++) a[run + i] = sum[i] - a[run + i] + below[run + i];
          } else {
            const sumBelow = sums[c - 1];
            for (let i = 0; i < width; i++) a[run + i] += sumBelow[i] - below[run + i];
          }
        }
        if (side === 'matches') {
          const a0 = levels[0];
          const sum0 = sums[0];
          for (let i = 0; i < width; i++) a0[run + i] = sum0[i] - a0[run + i];
        }
      }
    }
  }
}
