/**
 * Scratch memory shared by the table kernels (forward tables, back-propagation): each thread has
 * its own module instance, and no kernel calls another while it holds these, so one set per
 * thread is enough; allocating it per table cost a measurable share of the step in garbage
 * collection. The arrays grow through {@link atLeast}.
 */
import type { SparseRows } from './sparse-rows.ts';

/** Growing scratch for the (index, product) pairs of one row's outer product. */
export class Combos {
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

/** The shared scratch (see the module comment). */
export const scratch = {
  combos: new Combos(),
  /** byCategory's CSC of a block. */
  start: new Int32Array(128),
  fill: new Int32Array(128),
  row: new Int32Array(4096),
  value: new Float64Array(4096),
  /** backpropProductTable's lines of a chunk of rows, and one group's derivative per row. */
  local: new Float64Array(0),
  derivative: new Float64Array(64),
  /** accumulateLines' (line start, product) pairs. */
  base: new Int32Array(256),
  product: new Float64Array(256),
  /** axisLast's lines. */
  lines: new Float64Array(0),
};

/** `a` if it holds `length` numbers, else a new array of its kind, twice as large or `length`. */
export function atLeast<A extends Int32Array | Float64Array>(a: A, length: number): A {
  if (a.length >= length) return a;
  return new (a.constructor as new (n: number) => A)(Math.max(length, 2 * a.length));
}
