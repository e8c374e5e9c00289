/**
 * The relaxed synthetic dataset D' (n' rows × d' one-hot columns) and its memory layout.
 *
 * The engine stores D' COLUMN-major ("feature-major"): value (row i, column c) lives at
 * c · n' + i, so a one-hot column (one category of one feature) is a contiguous run of n'
 * numbers. The hot loops (a selected query touches k columns over all rows) then read and write
 * contiguous memory, and the tensor kernels take a feature block as a plain (size × n') slice.
 * Row-major copies (the reference surrogate's layout) are made only for tests and rounding.
 */
import type { OneHotLayout } from '../data/onehot.ts';
import type { NoiseSource } from '../privacy/noise.ts';

export interface RelaxedShape {
  readonly rows: number;
  readonly layout: OneHotLayout;
}

/** Column-major D' with uniform(0, 1) entries from the run's noise source (not yet projected). */
export function uniformRelaxed(shape: RelaxedShape, noise: NoiseSource): Float64Array {
  const out = new Float64Array(shape.rows * shape.layout.width);
  for (let i = 0; i < out.length; i++) out[i] = noise.uniform();
  return out;
}

export function toRowMajor(columnMajor: ArrayLike<number>, shape: RelaxedShape): Float64Array {
  const { rows } = shape;
  const width = shape.layout.width;
  const out = new Float64Array(rows * width);
  for (let c = 0; c < width; c++) {
    for (let i = 0; i < rows; i++) out[i * width + c] = columnMajor[c * rows + i];
  }
  return out;
}

export function toColumnMajor(rowMajor: ArrayLike<number>, shape: RelaxedShape): Float64Array {
  const { rows } = shape;
  const width = shape.layout.width;
  const out = new Float64Array(rows * width);
  for (let i = 0; i < rows; i++) {
    for (let c = 0; c < width; c++) out[c * rows + i] = rowMajor[i * width + c];
  }
  return out;
}
