/**
 * Threshold tables on the relaxed data by row-wise outer products of sparse blocks.
 *
 * The product table of features F is P_F(y) = (1/n') Σ_rows Π_{f∈F} x_{row,f}[y_f]; the answers
 * of an r-of-k threshold S are Σ_T c_T P_T broadcast over S (inclusion–exclusion, plain form).
 * Each P_T is accumulated directly over the nonzeros of the rows (no assumption on D'); when
 * every block is on the simplex the answers are read off the one k-way table P_S instead. The
 * gradient of Σ_y G(y)·P_T(y) is back-propagated through each term's own table (the reference
 * polynomial's gradient, which does not assume the simplex).
 */
import type { OneHotLayout } from '../../data/onehot.ts';
import { combineTables, thresholdTerms } from '../../workload/inclusion-exclusion.ts';
import { rowMajorStrides, tableSize, thresholdSizes } from '../../workload/queries.ts';
import type { Threshold } from '../../workload/types.ts';
import type { SparseBlock, SparseRows } from './sparse-rows.ts';

/** Simplex deviation below which P_T may be read off P_S as a marginal. */
export const SIMPLEX_TOLERANCE = 1e-9;

/** Growing scratch for the (index, product) pairs of one row's outer product. */
class Combos {
  index = new Int32Array(64);
  product = new Float64Array(64);
  private nextIndex = new Int32Array(64);
  private nextProduct = new Float64Array(64);
  length = 0;

  /**
   * The nonzero combinations of `features` in row i: index = Σ y_f · stride_f (plus `base`),
   * product = Π x_f[y_f]. Returns the count (0 when some block of the row is all zero).
   */
  expand(
    sp: SparseRows,
    row: number,
    features: readonly number[],
    strides: readonly number[],
    base = 0,
  ): number {
    this.index[0] = base;
    this.product[0] = 1;
    let len = 1;
    for (let j = 0; j < features.length; j++) {
      const block = sp.blocks[features[j]];
      const start = block.rowStart[row];
      const nnz = block.rowStart[row + 1] - start;
      const next = len * nnz;
      if (next === 0) return (this.length = 0);
      this.reserve(next);
      const stride = strides[j];
      let w = 0;
      for (let a = 0; a < len; a++) {
        const idx = this.index[a];
        const p = this.product[a];
        for (let e = start; e < start + nnz; e++) {
          this.nextIndex[w] = idx + block.category[e] * stride;
          this.nextProduct[w++] = p * block.value[e];
        }
      }
      [this.index, this.nextIndex] = [this.nextIndex, this.index];
      [this.product, this.nextProduct] = [this.nextProduct, this.product];
      len = next;
    }
    return (this.length = len);
  }

  private reserve(n: number): void {
    if (n <= this.nextIndex.length) return;
    let size = this.nextIndex.length;
    while (size < n) size *= 2;
    const grow = <T extends Int32Array | Float64Array>(a: T, keep: boolean): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      if (keep) b.set(a);
      return b;
    };
    this.index = grow(this.index, true);
    this.product = grow(this.product, true);
    this.nextIndex = grow(this.nextIndex, false);
    this.nextProduct = grow(this.nextProduct, false);
  }
}

/**
 * P_F over the features' dims, row-major in the listed order, divided by n'.
 *
 * The table is filled one slab (first feature = v) at a time, from the rows where the first
 * feature has v: the slab (Π of the other sizes, ≤ a few MB) stays in cache while those rows add
 * into it, instead of every row scattering into the whole table (a 4-way table reaches
 * 10^7–10^8 cells; memory traffic, not arithmetic, then sets the time). Within a row, the
 * nonzero combinations of the middle features are expanded and the last feature's nonzeros are
 * the inner loop. Work: Σ_rows Π nnz.
 */
export function productTable(
  sp: SparseRows,
  features: readonly number[],
  dims: readonly number[],
): Float64Array {
  const out = new Float64Array(tableSize(dims));
  const k = features.length;
  const strides = rowMajorStrides(dims);
  const first = byCategory(sp.blocks[features[0]], dims[0]);
  const middle = features.slice(1, k - 1);
  const middleStrides = strides.slice(1, k - 1);
  const last = k > 1 ? sp.blocks[features[k - 1]] : undefined;
  const combos = new Combos();
  for (let v = 0; v < dims[0]; v++) {
    const slab = v * strides[0];
    for (let e = first.start[v]; e < first.start[v + 1]; e++) {
      const x = first.value[e];
      if (!last) {
        out[slab] += x;
        continue;
      }
      const i = first.row[e];
      const start = last.rowStart[i];
      const end = last.rowStart[i + 1];
      if (start === end) continue;
      const len = combos.expand(sp, i, middle, middleStrides, slab);
      const { index, product } = combos;
      const { category, value } = last;
      for (let a = 0; a < len; a++) {
        const base = index[a];
        const p = product[a] * x;
        for (let t = start; t < end; t++) out[base + category[t]] += p * value[t];
      }
    }
  }
  const scale = 1 / sp.rows;
  for (let c = 0; c < out.length; c++) out[c] *= scale;
  return out;
}

/** A block's nonzeros by category (CSC): rows row[start[v] … start[v+1]) have category v, ascending. */
function byCategory(
  block: SparseBlock,
  size: number,
): { start: Int32Array; row: Int32Array; value: Float64Array } {
  const { rowStart, category, value } = block;
  const start = new Int32Array(size + 1);
  for (let e = 0; e < category.length; e++) start[category[e] + 1]++;
  for (let v = 0; v < size; v++) start[v + 1] += start[v];
  const fill = start.slice(0, size);
  const rowOf = new Int32Array(category.length);
  const values = new Float64Array(category.length);
  for (let i = 0; i + 1 < rowStart.length; i++) {
    for (let e = rowStart[i]; e < rowStart[i + 1]; e++) {
      const at = fill[category[e]]++;
      rowOf[at] = i;
      values[at] = value[e];
    }
  }
  return { start, row: rowOf, value: values };
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

/**
 * All surrogate answers of a threshold, row-major over t.features.
 *
 * On the simplex (every block of every row sums to 1) the answers are a linear function of the
 * one k-way table P_S: answer(y) = Σ_z P_S(z)·[#{j : z_j = y_j} ≥ r], computed by
 * {@link atLeastRMatches} in k passes. Off the simplex each inclusion–exclusion term's product
 * table is accumulated from the rows (the reference form).
 */
export function thresholdAnswers(sp: SparseRows, layout: OneHotLayout, t: Threshold): Float64Array {
  const k = t.features.length;
  const dims = thresholdSizes(t, layout.sizes);
  const full = productTable(sp, t.features, dims);
  if (t.r === k) return full;
  if (sp.simplexDeviation <= SIMPLEX_TOLERANCE) return atLeastRMatches(full, dims, t.r);
  return combineTables(k, dims, thresholdTerms(k, t.r), (subset) =>
    subset.length === k
      ? full
      : productTable(
          sp,
          subset.map((p) => t.features[p]),
          subset.map((p) => dims[p]),
        ),
  );
}

/**
 * A(y) = Σ_z P(z)·[z matches y on at least r of the k axes], for a row-major table P over dims.
 *
 * Axis by axis, tables A_c (c = 0 … r − 1 matches so far) turn the axis from "z_j" into "y_j":
 * a match moves c to c + 1 (A_{c−1}(y_j)), a non-match keeps c (Σ_{z_j} A_c − A_c(y_j)). Every
 * cell of P is in exactly one count class, so at the end A = ΣP − Σ_{c<r} A_c: "at least r"
 * needs no table of its own. O(k·r·|P|) time, r·|P| memory, instead of 2^k − 1 broadcast
 * product tables. `P` is consumed.
 */
export function atLeastRMatches(P: Float64Array, dims: readonly number[], r: number): Float64Array {
  const size = P.length;
  let total = 0;
  for (let i = 0; i < size; i++) total += P[i];
  const A: Float64Array[] = [P];
  for (let c = 1; c < r; c++) A.push(new Float64Array(size));
  const strides = rowMajorStrides(dims);
  const totals = Array.from({ length: r }, () => new Float64Array(CHUNK));
  dims.forEach((d, axis) => {
    const stride = strides[axis];
    const block = stride * d;
    // Lines along the axis, a chunk of neighbouring lines at a time: every access below walks
    // contiguous runs of `width` cells (the axis step is `stride` cells).
    for (let outer = 0; outer < size; outer += block) {
      for (let inner = 0; inner < stride; inner += CHUNK) {
        const width = Math.min(CHUNK, stride - inner);
        for (let c = 0; c < r; c++) {
          const tot = totals[c];
          const a = A[c];
          tot.fill(0, 0, width);
          for (let v = 0; v < d; v++) {
            const run = outer + v * stride + inner;
            for (let i = 0; i < width; i++) tot[i] += a[run + i];
          }
        }
        for (let v = 0; v < d; v++) {
          const run = outer + v * stride + inner;
          // Descending c: A_{c−1}(y) is still the old value when A_c(y) is written.
          for (let c = r - 1; c >= 1; c--) {
            const a = A[c];
            const below = A[c - 1];
            const tot = totals[c];
            for (let i = 0; i < width; i++) a[run + i] = tot[i] - a[run + i] + below[run + i];
          }
          const a0 = A[0];
          const tot0 = totals[0];
          for (let i = 0; i < width; i++) a0[run + i] = tot0[i] - a0[run + i];
        }
      }
    }
  });
  const out = A[0];
  for (let i = 0; i < size; i++) {
    let fewer = out[i];
    for (let c = 1; c < r; c++) fewer += A[c][i];
    out[i] = total - fewer;
  }
  return out;
}

/** Neighbouring lines processed together by atLeastRMatches. */
const CHUNK = 2048;

/**
 * grad += scale · ∂/∂D' Σ_y G(y) · P_F(y)·n' for a cotangent table G over the features' dims
 * (column-major grad, like D'). For each row and each feature f of F, the other features'
 * nonzero combinations index G; every category of f (zero or not) gets its partial derivative.
 */
export function backpropProductTable(
  sp: SparseRows,
  layout: OneHotLayout,
  features: readonly number[],
  dims: readonly number[],
  G: Float64Array,
  scale: number,
  grad: Float64Array,
): void {
  const strides = rowMajorStrides(dims);
  const rows = sp.rows;
  const combos = new Combos();
  let maxDim = 1;
  for (const d of dims) maxDim = Math.max(maxDim, d);
  const local = new Float64Array(maxDim);
  features.forEach((f, j) => {
    const others = features.filter((_, l) => l !== j);
    const otherStrides = strides.filter((_, l) => l !== j);
    const size = dims[j];
    const stride = strides[j];
    const columnBase = layout.offsets[f] * rows;
    for (let i = 0; i < rows; i++) {
      const len = combos.expand(sp, i, others, otherStrides);
      if (len === 0) continue;
      local.fill(0, 0, size);
      const { index, product } = combos;
      for (let a = 0; a < len; a++) {
        const idx = index[a];
        const p = product[a];
        for (let v = 0; v < size; v++) local[v] += G[idx + v * stride] * p;
      }
      for (let v = 0; v < size; v++) grad[columnBase + v * rows + i] += scale * local[v];
    }
  });
}
