/**
 * Randomized rounding: every relaxed row is sampled `oversample` times; in each sample every
 * feature independently takes category v with probability x_{row, f}[v] (the row's block is a
 * point of the simplex). Output rows i·oversample … i·oversample + oversample − 1 come from
 * relaxed row i.
 */
import type { CodeArray } from '../data/schema.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import type { RelaxedShape } from './relaxed.ts';

export function codeArrayFor(size: number, length: number): CodeArray {
  if (size <= 2 ** 8) return new Uint8Array(length);
  if (size <= 2 ** 16) return new Uint16Array(length);
  return new Uint32Array(length);
}

/** Codes per feature of the n' · oversample rounded rows (D' column-major and projected). */
export function roundRelaxed(
  values: Float64Array,
  shape: RelaxedShape,
  oversample: number,
  noise: NoiseSource,
): CodeArray[] {
  const { rows, layout } = shape;
  const n = rows * oversample;
  const codes = layout.sizes.map((size) => codeArrayFor(size, n));
  for (let i = 0; i < rows; i++) {
    for (let s = 0; s < oversample; s++) {
      const out = i * oversample + s;
      layout.sizes.forEach((size, j) => {
        codes[j][out] = sampleCategory(values, layout.offsets[j] * rows + i, rows, size, noise.uniform());
      });
    }
  }
  return codes;
}

/**
 * The category whose cumulative probability first exceeds u. If rounding leaves the total just
 * under u, the last category with positive probability is taken.
 */
function sampleCategory(
  values: Float64Array,
  start: number,
  stride: number,
  size: number,
  u: number,
): number {
  let cumulative = 0;
  let lastPositive = 0;
  for (let v = 0; v < size; v++) {
    const p = values[start + v * stride];
    if (p > 0) {
      lastPositive = v;
      cumulative += p;
      if (u < cumulative) return v;
    }
  }
  return lastPositive;
}
