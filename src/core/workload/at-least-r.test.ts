import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeastRMatches, cheaperSide, type MatchSide } from './at-least-r.ts';
import { localIndexToTarget } from './queries.ts';
import { tableSize } from './table.ts';

/** dims (1–4 axes of 1–4 categories), r in 1..k, and a table over dims from `cell`. */
const tableCase = <T>(cell: fc.Arbitrary<T>) =>
  fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }).chain((dims) =>
    fc.record({
      dims: fc.constant(dims),
      r: fc.integer({ min: 1, max: dims.length }),
      table: fc.array(cell, { minLength: tableSize(dims), maxLength: tableSize(dims) }),
    }),
  );

/** Σ_z P(z)·[z matches y on at least r axes], literally, for every target y. */
function bruteForce(table: readonly number[], dims: readonly number[], r: number): number[] {
  const targets = Array.from({ length: table.length }, (_, i) => localIndexToTarget(i, dims));
  return targets.map((y) =>
    targets.reduce((sum, z, zi) => {
      const matches = z.filter((v, j) => v === y[j]).length;
      return sum + (matches >= r ? table[zi] : 0);
    }, 0),
  );
}

const SIDES: readonly MatchSide[] = ['matches', 'mismatches'];

describe('atLeastRMatches', () => {
  it('counts matches of every target against every cell, on either side (brute force)', () => {
    fc.assert(
      fc.property(tableCase(fc.double({ min: 0, max: 1, noNaN: true })), ({ dims, r, table }) => {
        const expected = bruteForce(table, dims, r);
        for (const side of SIDES) {
          const got = atLeastRMatches(Float64Array.from(table), dims, r, { side });
          const worst = Math.max(...got.map((v, i) => Math.abs(v - expected[i])));
          expect(worst).toBeLessThan(1e-9);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('gives integer counts exactly, the same on both sides and with a given total (exact answers)', () => {
    fc.assert(
      fc.property(tableCase(fc.integer({ min: 0, max: 1000 })), ({ dims, r, table }) => {
        const expected = bruteForce(table, dims, r);
        const total = table.reduce((a, b) => a + b, 0);
        for (const side of SIDES)
          expect([...atLeastRMatches(Float64Array.from(table), dims, r, { side, total })]).toEqual(expected);
      }),
      { numRuns: 80 },
    );
  });

  it('tracks the side with fewer classes: min(r, k − r + 1), ties to matches', () => {
    expect(cheaperSide(4, 1)).toBe('matches');
    expect(cheaperSide(3, 2)).toBe('matches'); // 2 classes either way
    expect(cheaperSide(4, 3)).toBe('mismatches'); // 3 vs 2
    expect(cheaperSide(4, 4)).toBe('mismatches'); // r = k: one class, no pass
  });

  it('refuses r outside 1..k', () => {
    expect(() => atLeastRMatches(new Float64Array(4), [2, 2], 0)).toThrow(RangeError);
    expect(() => atLeastRMatches(new Float64Array(4), [2, 2], 3)).toThrow(RangeError);
  });
});
