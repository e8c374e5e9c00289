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

/** Michelot's iteration with a branch per entry: the form the branch-free passes must equal bit for bit. */
function branchingThreshold(z: readonly number[]): number {
  let candidates = [...z];
  let tau = (z.reduce((a, b) => a + b, 0) - 1) / z.length;
  for (;;) {
    const kept: number[] = [];
    let keptSum = 0;
    for (const x of candidates) {
      if (x > tau) {
        kept.push(x);
        keptSum += x;
      }
    }
    if (kept.length === candidates.length) return tau;
    candidates = kept;
    tau = (keptSum - 1) / kept.length;
  }
}

function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  return a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]));
}

/** Entries with many exact zeros and ties, as projected rows after a small step have. */
const rowsWithZeros = fc.array(
  fc.oneof(fc.constant(0), fc.constant(0.25), fc.double({ min: -1, max: 2, noNaN: true })),
  { minLength: 1, maxLength: 30 },
);

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

  it('equals the branching iteration bit for bit', () => {
    fc.assert(
      fc.property(fc.oneof(vectors, rowsWithZeros), (z) => {
        const tau = branchingThreshold(z);
        expect(
          sameBits(
            sparsemax(z),
            Float64Array.from(z, (x) => (x - tau > 0 ? x - tau : 0)),
          ),
        ).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('projects a column-major D bit for bit like the branching iteration, row by row', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 80 }), (seed, rows) => {
        const shape = smallShape([3, 1, 9, 2, 40], rows);
        const raw = randomRelaxed(shape, seed, false);
        // Some exact zeros, as after a projection.
        for (let i = 0; i < raw.length; i += 3) raw[i] = 0;
        const projected = Float64Array.from(raw);
        projectRelaxed(projected, shape);
        const rowMajor = toRowMajor(raw, shape);
        const expected = new Float64Array(rowMajor.length);
        const { width, offsets, sizes } = shape.layout;
        for (let i = 0; i < rows; i++) {
          sizes.forEach((size, j) => {
            const row = [...rowMajor.subarray(i * width + offsets[j], i * width + offsets[j] + size)];
            const tau = size === 1 ? 0 : branchingThreshold(row);
            row.forEach((x, v) => {
              expected[i * width + offsets[j] + v] = size === 1 ? 1 : x - tau > 0 ? x - tau : 0;
            });
          });
        }
        expect(sameBits(toRowMajor(projected, shape), expected)).toBe(true);
      }),
      { numRuns: 30 },
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
