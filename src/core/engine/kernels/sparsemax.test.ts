import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toColumnMajor, toRowMajor } from '../relaxed.ts';
import { maxAbsDiff, randomRelaxed, smallShape } from '../testing.ts';
import { projectRelaxed, sparsemax } from './sparsemax.ts';

/** Brute force: the sort-based formula of Martins & Astudillo (2016). */
function sortSparsemax(z: readonly number[]): number[] {
  const sorted = [...z].sort((a, b) => b - a);
  let cumulative = 0;
  let support = 0;
  let supportSum = 0;
  sorted.forEach((x, i) => {
    cumulative += x;
    if (1 + (i + 1) * x > cumulative) {
      support = i + 1;
      supportSum = cumulative;
    }
  });
  const tau = (supportSum - 1) / support;
  return z.map((x) => Math.max(x - tau, 0));
}

const vectors = fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 1, maxLength: 40 });

describe('sparsemax', () => {
  it('matches the sort-based formula', () => {
    fc.assert(
      fc.property(vectors, (z) => {
        expect(maxAbsDiff(sparsemax(z), sortSparsemax(z))).toBeLessThan(1e-9);
      }),
    );
  });

  it('satisfies the KKT conditions of the simplex projection', () => {
    fc.assert(
      fc.property(vectors, (z) => {
        const p = sparsemax(z);
        expect(Math.abs(p.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-9);
        // p_i = z_i − τ on the support, z_i ≤ τ off it, for one common τ.
        const support = [...p.keys()].filter((i) => p[i] > 0);
        expect(support.length).toBeGreaterThan(0);
        const tau = z[support[0]] - p[support[0]];
        for (let i = 0; i < z.length; i++) {
          expect(p[i]).toBeGreaterThanOrEqual(0);
          if (p[i] > 0) expect(Math.abs(z[i] - p[i] - tau)).toBeLessThan(1e-9);
          else expect(z[i]).toBeLessThanOrEqual(tau + 1e-9);
        }
      }),
    );
  });

  it('is the identity on points of the simplex', () => {
    expect([...sparsemax([0.2, 0, 0.8])]).toEqual([0.2, 0, 0.8]);
    expect([...sparsemax([5])]).toEqual([1]);
  });

  it('projects every block of every row of a column-major D', () => {
    const shape = smallShape([3, 1, 5, 2], 70);
    const raw = randomRelaxed(shape, 3, false);
    const projected = Float64Array.from(raw);
    projectRelaxed(projected, shape);
    const rowMajorRaw = toRowMajor(raw, shape);
    const expected = new Float64Array(rowMajorRaw.length);
    const { width, offsets, sizes } = shape.layout;
    for (let i = 0; i < shape.rows; i++) {
      sizes.forEach((s, j) => {
        const start = i * width + offsets[j];
        expected.set(sortSparsemax([...rowMajorRaw.subarray(start, start + s)]), start);
      });
    }
    expect(maxAbsDiff(toRowMajor(projected, shape), expected)).toBeLessThan(1e-12);
    expect(maxAbsDiff(toColumnMajor(toRowMajor(raw, shape), shape), raw)).toBe(0);
  });

  it('leaves blocks that are not listed alone', () => {
    const shape = smallShape([3, 4], 5);
    const raw = randomRelaxed(shape, 4, false);
    const values = Float64Array.from(raw);
    projectRelaxed(values, shape, [1]);
    const firstBlock = 3 * shape.rows;
    expect([...values.subarray(0, firstBlock)]).toEqual([...raw.subarray(0, firstBlock)]);
    expect(maxAbsDiff(values.subarray(firstBlock), raw.subarray(firstBlock))).toBeGreaterThan(0);
  });
});
