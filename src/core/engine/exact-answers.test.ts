import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { randomDataset } from '../workload/test-data.ts';
import { ExactAnswers } from './exact-answers.ts';

/** Bit-for-bit equality of two arrays of doubles (toEqual would accept −0 for +0). */
function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

describe('ExactAnswers', () => {
  const data = randomDataset([3, 4, 2], 200, 5);
  const t = { features: [2, 0, 1], r: 2, weight: 1 };

  it('single queries by counting equal the table, with or without the cache', () => {
    const table = exactThresholdAnswers(data, t);
    const cached = new ExactAnswers(data);
    const uncached = new ExactAnswers(data, 0);
    expect(sameBits(cached.of(t), table)).toBe(true);
    for (let y = 0; y < table.length; y++) {
      expect(uncached.query(t, y)).toBe(table[y]);
      expect(cached.query(t, y)).toBe(table[y]);
    }
  });

  it('keeps 16-bit counts only while they fit the byte cap', () => {
    const cells = 2 * 3 * 4;
    const small = new ExactAnswers(data, 2 * cells - 1);
    small.of(t);
    expect(small.cachedBytes).toBe(0);
    const big = new ExactAnswers(data);
    big.of(t);
    big.of(t);
    expect(big.cachedBytes).toBe(2 * cells);
    expect(big.table(t).denominator).toBe(data.n);
    expect(small.table(t).denominator).toBe(1);
  });

  it('cached counts give back the exact tables bit for bit (16- and 32-bit counts)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(37, 1000, 70_001),
        fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        (n, features, r, seed) => {
          const d = randomDataset([3, 5, 2, 4], n, seed);
          const th = { features, r: Math.min(r, features.length), weight: 1 };
          const expected = exactThresholdAnswers(d, th);
          const exact = new ExactAnswers(d);
          exact.of(th);
          expect(exact.cachedBytes).toBe(expected.length * (n < 2 ** 16 ? 2 : 4));
          const { numerators, denominator } = exact.table(th);
          const fromTable = Float64Array.from(numerators, (c) => c / denominator);
          expect(sameBits(fromTable, expected)).toBe(true);
          expect(sameBits(exact.of(th), expected)).toBe(true);
          expect(exact.query(th, expected.length - 1)).toBe(expected[expected.length - 1]);
        },
      ),
      { numRuns: 25 },
    );
  });
});
