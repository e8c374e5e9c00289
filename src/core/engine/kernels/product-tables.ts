/**
 * Forward tables of the relaxed data by row-wise outer products of sparse blocks: the product
 * table of features F, P_F(y) = (1/n') Σ_rows Π_{f∈F} x_{row,f}[y_f], accumulated directly over
 * the nonzeros of the rows (no assumption on D'), by rows or by lines (bit for bit the same).
 * threshold-answers.ts combines them into r-of-k answers; backprop.ts takes their gradient.
 */
import { rowMajorStrides, tableSize } from '../../workload/table.ts';
import { atLeast, scratch } from './scratch.ts';
import type { SparseBlock, SparseRows } from './sparse-rows.ts';

/**
 * P_F over the features' dims, row-major in the listed order, divided by n': by lines
 * ({@link productTableByLines}) when the table's lines are long and many rows reach each, else
 * row by row ({@link productTableByRows}). Both give the same table bit for bit.
 */
export function productTable(
  sp: SparseRows,
  features: readonly number[],
  dims: readonly number[],
  /** Where to write the table (its cells are overwritten); default a new array. */
  out?: Float64Array,
): Float64Array {
  // One feature: a pass over its nonzeros (productTableByLines), each cell's rows in ascending
  // order as the row-by-row form adds them, without sorting the block by category first (the
  // one-way targets' tables were a third of the adaptive plan's forward work at ε = 0.1).
  return features.length === 1 || linesPay(sp, features, dims)
    ? productTableByLines(sp, features, dims, out)
    : productTableByRows(sp, features, dims, out);
}

/** `out` zeroed over the table's cells, or a new zeroed table. */
function zeroedTable(dims: readonly number[], out: Float64Array | undefined): Float64Array {
  const cells = tableSize(dims);
  if (!out) return new Float64Array(cells);
  if (out.length !== cells)
    throw new RangeError(`a table of ${cells} cells cannot be written to ${out.length}`);
  return out.fill(0);
}

/**
 * When lines pay (measured per table on the D's of the `quick` runs and of 4-way tables, both
 * kernels timed): a row's nonzeros in the last feature cover at least MIN_LINE_DENSITY of it
 * (2–3× faster at 0.4–1, even at 0.3, 0.6–0.8× at 0.15) and number at least MIN_LINE_NONZEROS
 * (lines of 2 cells lose whatever their density), and lines collect MIN_ROWS_PER_LINE rows on
 * average (n' · Π of the other features' densities) for the eight-row updates.
 */
const MIN_LINE_DENSITY = 0.35;
const MIN_LINE_NONZEROS = 4;
const MIN_ROWS_PER_LINE = 16;

/**
 * Whether the bucketed line updates beat the row-by-row outer product. Their bucketing costs
 * about as much per (row, prefix) as the row-by-row form spends per nonzero; they win by
 * updating a cache-resident line eight rows at a time, which pays when the last feature is dense
 * in the rows.
 */
function linesPay(sp: SparseRows, features: readonly number[], dims: readonly number[]): boolean {
  const k = features.length;
  if (k < 2) return false;
  const density = (j: number) => sp.blocks[features[j]].rowStart[sp.rows] / (sp.rows * dims[j]);
  let rowsPerLine = sp.rows;
  for (let j = 0; j < k - 1; j++) rowsPerLine *= density(j);
  const last = density(k - 1);
  return (
    rowsPerLine >= MIN_ROWS_PER_LINE && last >= MIN_LINE_DENSITY && last * dims[k - 1] >= MIN_LINE_NONZEROS
  );
}

/**
 * P_F by lines. Work: about Σ_rows Π nnz (the nonzero combinations), done as dense line updates
 * where rows are dense.
 *
 * The rows are bucketed feature by feature, depth first (a stable counting sort on each row's
 * nonzero categories): at the last level every prefix y_0 … y_{k−2} holds the rows that reach it
 * with their product so far, and its line of the table (the last feature's |dims[k−1]| cells,
 * contiguous and cache-resident) gets Σ_rows p · x_row,last. Eight rows at a time that line is
 * updated from a dense row-major copy of the last block over the union of their supports (one
 * pass over the line per eight rows instead of an indexed scatter per nonzero), unless the rows
 * are too sparse for that to pay, then nonzero by nonzero. As D' densifies over the rounds (half
 * or more of its entries nonzero) most lines go the dense way: on the final D' of the `quick`
 * ε = 1 run the 16 tables take half the time of the row-by-row form, the largest 4-way tables
 * 0.4 of it (bench/README.md, closing note).
 *
 * Every cell still receives its rows' contributions one at a time in ascending row order, each
 * (Π middle values · first value) · last value, and zeros add +0: the table is bit-identical to the
 * row-by-row outer product (the selection scores, and so a seeded run, do not change).
 */
export function productTableByLines(
  sp: SparseRows,
  features: readonly number[],
  dims: readonly number[],
  into?: Float64Array,
): Float64Array {
  const out = zeroedTable(dims, into);
  if (features.length === 1) {
    const { rowStart, category, value } = sp.blocks[features[0]];
    for (let e = 0; e < rowStart[sp.rows]; e++) out[category[e]] += value[e];
  } else {
    new ProductTableFill(sp, features, dims, out).run();
  }
  const scale = 1 / sp.rows;
  for (let c = 0; c < out.length; c++) out[c] *= scale;
  return out;
}

/**
 * P_F row by row (see productTable): the better way when the tables' lines are short or few rows
 * reach each line (sparse D', a small last feature).
 *
 * The table is filled one slab (first feature = v) at a time, from the rows where the first
 * feature has v: the slab (Π of the other sizes, ≤ a few MB) stays in cache while those rows add
 * into it, instead of every row scattering into the whole table (a 4-way table reaches
 * 10^7–10^8 cells; memory traffic, not arithmetic, then sets the time). Within a row, the
 * nonzero combinations of the middle features are expanded and the last feature's nonzeros are
 * the inner loop. Work: Σ_rows Π nnz.
 */
export function productTableByRows(
  sp: SparseRows,
  features: readonly number[],
  dims: readonly number[],
  into?: Float64Array,
): Float64Array {
  const out = zeroedTable(dims, into);
  const k = features.length;
  const strides = rowMajorStrides(dims);
  const first = byCategory(sp.blocks[features[0]], dims[0]);
  const middle = features.slice(1, k - 1);
  const middleStrides = strides.slice(1, k - 1);
  const last = k > 1 ? sp.blocks[features[k - 1]] : undefined;
  const combos = scratch.combos;
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
      const { category, value } = last;
      if (middle.length === 0) {
        // Combos of no feature: one, of product 1 (1·x = x).
        for (let t = start; t < end; t++) out[slab + category[t]] += x * value[t];
        continue;
      }
      if (middle.length === 1) {
        // One middle feature (3-way tables), unrolled: its products (1·x₁ = x₁) as Combos forms them.
        const m = sp.blocks[middle[0]];
        const sm = middleStrides[0];
        for (let a = m.rowStart[i]; a < m.rowStart[i + 1]; a++) {
          const base = slab + m.category[a] * sm;
          const p = m.value[a] * x;
          for (let t = start; t < end; t++) out[base + category[t]] += p * value[t];
        }
        continue;
      }
      const len = combos.expand(sp, i, middle, middleStrides, slab);
      const { index, product } = combos;
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

/**
 * A block's nonzeros by category (CSC): rows row[start[v] … start[v+1]) have category v,
 * ascending. The arrays are shared scratch, valid until the next call.
 */
function byCategory(
  block: SparseBlock,
  size: number,
): { start: Int32Array; row: Int32Array; value: Float64Array } {
  const { rowStart, category, value } = block;
  const start = (scratch.start = atLeast(scratch.start, size + 1));
  start.fill(0, 0, size + 1);
  for (let e = 0; e < category.length; e++) start[category[e] + 1]++;
  for (let v = 0; v < size; v++) start[v + 1] += start[v];
  const fill = (scratch.fill = atLeast(scratch.fill, size));
  fill.set(start.subarray(0, size));
  const rowOf = (scratch.row = atLeast(scratch.row, category.length));
  const values = (scratch.value = atLeast(scratch.value, category.length));
  for (let i = 0; i + 1 < rowStart.length; i++) {
    for (let e = rowStart[i]; e < rowStart[i + 1]; e++) {
      const at = fill[category[e]]++;
      rowOf[at] = i;
      values[at] = value[e];
    }
  }
  return { start, row: rowOf, value: values };
}

/**
 * Rows bucketed so far at one level, with Π of the middle features' values so far and the first
 * feature's value; at the level before the last feature, `middle` holds the whole product p.
 */
class RowBuckets {
  row = new Int32Array(64);
  middle = new Float64Array(64);
  first = new Float64Array(64);

  reserve(n: number): void {
    if (n <= this.row.length) return;
    let size = this.row.length;
    while (size < n) size *= 2;
    this.row = new Int32Array(size);
    this.middle = new Float64Array(size);
    this.first = new Float64Array(size);
  }
}

/** The last feature's block as dense rows (row-major, n' × size) with each row's support. */
interface DenseBlock {
  readonly size: number;
  readonly values: Float64Array;
  /** Support of row i: categories lo[i] … hi[i] − 1 (lo = hi = 0 when empty), nnz[i] nonzeros. */
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly nnz: Int32Array;
}

function denseBlock(block: SparseBlock, size: number, rows: number): DenseBlock {
  const { rowStart, category, value } = block;
  const values = new Float64Array(rows * size);
  const lo = new Int32Array(rows);
  const hi = new Int32Array(rows);
  const nnz = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    const start = rowStart[i];
    const end = rowStart[i + 1];
    nnz[i] = end - start;
    if (end === start) continue;
    lo[i] = category[start];
    hi[i] = category[end - 1] + 1;
    for (let e = start; e < end; e++) values[i * size + category[e]] = value[e];
  }
  return { size, values, lo, hi, nnz };
}

/** Dense line updates pay off when a group's union support is at most this × its nonzeros / 8. */
const DENSE_SPAN_PER_NONZERO = 4;

class ProductTableFill {
  private readonly k: number;
  private readonly strides: number[];
  private readonly levels: RowBuckets[];
  private readonly counts: Int32Array[];
  private readonly lastSparse: SparseBlock;
  private readonly last: DenseBlock;

  constructor(
    private readonly sp: SparseRows,
    private readonly features: readonly number[],
    private readonly dims: readonly number[],
    private readonly out: Float64Array,
  ) {
    this.k = features.length;
    this.strides = rowMajorStrides(dims);
    this.levels = features.map(() => new RowBuckets());
    this.counts = dims.map((d) => new Int32Array(d + 1));
    this.lastSparse = sp.blocks[features[this.k - 1]];
    this.last = denseBlock(this.lastSparse, dims[this.k - 1], sp.rows);
  }

  run(): void {
    const root = this.levels[0];
    root.reserve(this.sp.rows);
    let n = 0;
    for (let i = 0; i < this.sp.rows; i++) {
      if (this.last.nnz[i] === 0) continue;
      root.row[n] = i;
      root.middle[n] = 1;
      root.first[n++] = 1;
    }
    this.split(0, 0, 0, n);
  }

  /** Buckets entries [start, end) of level j by feature j's categories and recurses per category. */
  private split(j: number, base: number, start: number, end: number): void {
    if (j === this.k - 1) {
      this.addLines(base, this.levels[j], start, end);
      return;
    }
    const { rowStart, category } = this.sp.blocks[this.features[j]];
    const src = this.levels[j];
    const dst = this.levels[j + 1];
    const size = this.dims[j];
    const bounds = this.counts[j];
    bounds.fill(0);
    for (let e = start; e < end; e++) {
      const i = src.row[e];
      for (let t = rowStart[i]; t < rowStart[i + 1]; t++) bounds[category[t] + 1]++;
    }
    for (let v = 0; v < size; v++) bounds[v + 1] += bounds[v];
    dst.reserve(bounds[size]);
    this.place(j, src, dst, start, end, bounds.slice(0, size));
    const stride = this.strides[j];
    for (let v = 0; v < size; v++) {
      // The deeper levels use their own counts and buckets: bounds and dst stay valid here.
      const from = bounds[v];
      const to = bounds[v + 1];
      if (to > from) this.split(j + 1, base + v * stride, from, to);
    }
  }

  /**
   * Writes entries [start, end) of src, once per nonzero category of feature j in their row, to
   * dst at fill[category]++. The products are those of the row-by-row form: the middle values
   * multiplied in order and the first value kept apart, then folded in last (p = Π middle · first),
   * which the level before the last feature stores as the one factor its lines need.
   */
  private place(
    j: number,
    src: RowBuckets,
    dst: RowBuckets,
    start: number,
    end: number,
    fill: Int32Array,
  ): void {
    const { rowStart, category, value } = this.sp.blocks[this.features[j]];
    const { row, middle, first } = dst;
    const toLines = j === this.k - 2;
    for (let e = start; e < end; e++) {
      const i = src.row[e];
      const m = src.middle[e];
      const f = src.first[e];
      const from = rowStart[i];
      const to = rowStart[i + 1];
      if (j === 0 && toLines) {
        for (let t = from; t < to; t++) {
          const at = fill[category[t]]++;
          row[at] = i;
          middle[at] = m * value[t];
        }
      } else if (j === 0) {
        for (let t = from; t < to; t++) {
          const at = fill[category[t]]++;
          row[at] = i;
          middle[at] = m;
          first[at] = value[t];
        }
      } else if (toLines) {
        for (let t = from; t < to; t++) {
          const at = fill[category[t]]++;
          row[at] = i;
          middle[at] = m * value[t] * f;
        }
      } else {
        for (let t = from; t < to; t++) {
          const at = fill[category[t]]++;
          row[at] = i;
          middle[at] = m * value[t];
          first[at] = f;
        }
      }
    }
  }

  /** out[base + c] += Σ_e p_e · last(row_e)[c] over entries [start, end), ascending e per cell. */
  private addLines(base: number, b: RowBuckets, start: number, end: number): void {
    const out = this.out;
    const { values: d, lo, hi, nnz, size } = this.last;
    // The level before the lines stores the whole product p in `middle`.
    const { row, middle: product } = b;
    let e = start;
    for (; e + 8 <= end; e += 8) {
      // Eight rows in scalars (V8 keeps them in registers; arrays here would cost a load each).
      const i0 = row[e];
      const i1 = row[e + 1];
      const i2 = row[e + 2];
      const i3 = row[e + 3];
      const i4 = row[e + 4];
      const i5 = row[e + 5];
      const i6 = row[e + 6];
      const i7 = row[e + 7];
      const from = Math.min(lo[i0], lo[i1], lo[i2], lo[i3], lo[i4], lo[i5], lo[i6], lo[i7]);
      const to = Math.max(hi[i0], hi[i1], hi[i2], hi[i3], hi[i4], hi[i5], hi[i6], hi[i7]);
      const nonzeros = nnz[i0] + nnz[i1] + nnz[i2] + nnz[i3] + nnz[i4] + nnz[i5] + nnz[i6] + nnz[i7];
      if (8 * (to - from) > DENSE_SPAN_PER_NONZERO * nonzeros) {
        this.addSparse(base, b, e, e + 8);
        continue;
      }
      const p0 = product[e];
      const p1 = product[e + 1];
      const p2 = product[e + 2];
      const p3 = product[e + 3];
      const p4 = product[e + 4];
      const p5 = product[e + 5];
      const p6 = product[e + 6];
      const p7 = product[e + 7];
      const r0 = i0 * size;
      const r1 = i1 * size;
      const r2 = i2 * size;
      const r3 = i3 * size;
      const r4 = i4 * size;
      const r5 = i5 * size;
      const r6 = i6 * size;
      const r7 = i7 * size;
      for (let c = from; c < to; c++) {
        // One add at a time, in row order: the same rounding as adding the rows one by one.
        let acc = out[base + c];
        acc += p0 * d[r0 + c];
        acc += p1 * d[r1 + c];
        acc += p2 * d[r2 + c];
        acc += p3 * d[r3 + c];
        acc += p4 * d[r4 + c];
        acc += p5 * d[r5 + c];
        acc += p6 * d[r6 + c];
        acc += p7 * d[r7 + c];
        out[base + c] = acc;
      }
    }
    this.addSparse(base, b, e, end);
  }

  /** The same update nonzero by nonzero (sparse rows, and the last < 8 rows of a bucket). */
  private addSparse(base: number, b: RowBuckets, start: number, end: number): void {
    const out = this.out;
    const { rowStart, category, value } = this.lastSparse;
    for (let e = start; e < end; e++) {
      const i = b.row[e];
      const p = b.middle[e];
      for (let t = rowStart[i]; t < rowStart[i + 1]; t++) out[base + category[t]] += p * value[t];
    }
  }
}
