import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binOf, equalWidthEdges, integerRange, isStrictlyAscending, parseNumber } from './values.ts';

/** Brute force: the bin whose interval holds x, scanning every bin. */
function bruteBin(edges: readonly number[], x: number): number {
  const last = edges.length - 2;
  for (let b = 0; b <= last; b++) {
    const inside = b === last ? x >= edges[b] && x <= edges[b + 1] : x >= edges[b] && x < edges[b + 1];
    if (inside) return b;
  }
  return -1;
}

const ascendingEdges = fc
  .uniqueArray(fc.integer({ min: -1000, max: 1000 }), { minLength: 2, maxLength: 12 })
  .map((xs) => xs.sort((a, b) => a - b).map((x) => x / 4));

describe('parseNumber', () => {
  it.each([
    ['42', 42],
    ['-3.5', -3.5],
    ['+7', 7],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['2.5E-2', 0.025],
  ])('reads %s', (text, value) => expect(parseNumber(text)).toBe(value));

  it.each([
    '',
    ' ',
    '1,000',
    '0x1F',
    'Infinity',
    'NaN',
    '1e999',
    '12abc',
    '--1',
    '1 2',
    '.',
  ])('rejects "%s"', (text) => {
    expect(parseNumber(text)).toBeUndefined();
  });
});

describe('binOf', () => {
  it('agrees with a scan over all bins', () => {
    fc.assert(
      fc.property(ascendingEdges, fc.integer({ min: -1100, max: 1100 }), (edges, k) => {
        const x = k / 4;
        expect(binOf(edges, x)).toBe(bruteBin(edges, x));
      }),
    );
  });

  it('puts the upper edge in the last (closed) bin and rejects values outside', () => {
    expect(binOf([0, 1, 2], 2)).toBe(1);
    expect(binOf([0, 1, 2], 1)).toBe(1);
    expect(binOf([0, 1, 2], -0.1)).toBe(-1);
    expect(binOf([0, 1, 2], 2.1)).toBe(-1);
    expect(binOf([0, 1, 2], Number.NaN)).toBe(-1);
  });
});

describe('integerRange', () => {
  it('lists exactly the integers binOf puts in the bin', () => {
    fc.assert(
      fc.property(ascendingEdges, (edges) => {
        for (let b = 0; b < edges.length - 1; b++) {
          const { low, high } = integerRange(edges, b);
          const expected: number[] = [];
          for (let v = Math.floor(edges[0]) - 1; v <= Math.ceil(edges.at(-1)!) + 1; v++) {
            if (bruteBin(edges, v) === b) expected.push(v);
          }
          const got = low <= high ? Array.from({ length: high - low + 1 }, (_, i) => low + i) : [];
          expect(got).toEqual(expected);
        }
      }),
    );
  });
});

describe('equalWidthEdges', () => {
  it('spans [lower, upper] with strictly ascending edges', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        (lower, span, bins) => {
          const edges = equalWidthEdges(lower, lower + span, bins, false);
          expect(edges).toHaveLength(bins + 1);
          expect(edges[0]).toBe(lower);
          expect(edges.at(-1)).toBe(lower + span);
          expect(isStrictlyAscending(edges)).toBe(true);
        },
      ),
    );
  });

  it('gives integer columns integer edges and at least one integer per bin', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 50 }),
        (lower, span, bins) => {
          const edges = equalWidthEdges(lower, lower + span, bins, true);
          expect(edges).toHaveLength(Math.min(bins, span) + 1);
          expect(edges.every(Number.isInteger)).toBe(true);
          expect(isStrictlyAscending(edges)).toBe(true);
          expect([edges[0], edges.at(-1)]).toEqual([lower, lower + span]);
          for (let b = 0; b < edges.length - 1; b++) {
            const r = integerRange(edges, b);
            expect(r.low).toBeLessThanOrEqual(r.high);
          }
        },
      ),
    );
  });

  it('matches the ADULT age bins', () => {
    expect(equalWidthEdges(17, 90, 10, true)).toEqual([17, 24, 31, 38, 46, 53, 60, 68, 75, 82, 90]);
  });

  it('refuses empty ranges', () => {
    expect(() => equalWidthEdges(3, 3, 5, false)).toThrow('bin edges need lower < upper, got 3 and 3');
    expect(() => equalWidthEdges(0, 1.5, 2, true)).toThrow('integer bins need integer bounds, got 0 and 1.5');
  });
});
