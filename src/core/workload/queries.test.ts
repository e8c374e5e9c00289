import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildQueryIndex,
  fromGlobalIndex,
  localIndexToTarget,
  queryCount,
  rowMajorStrides,
  targetToLocalIndex,
  thresholdSizes,
  toGlobalIndex,
  totalQueryCount,
} from './queries.ts';

const dimsArb = fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 });

describe('local indexing', () => {
  it('is row-major with the last listed feature varying fastest', () => {
    expect(localIndexToTarget(0, [2, 3])).toEqual([0, 0]);
    expect(localIndexToTarget(1, [2, 3])).toEqual([0, 1]);
    expect(localIndexToTarget(3, [2, 3])).toEqual([1, 0]);
    expect(targetToLocalIndex([1, 2], [2, 3])).toBe(5);
    expect(rowMajorStrides([2, 3, 4])).toEqual([12, 4, 1]);
  });

  it('enumerates every target exactly once, in lexicographic order (property)', () => {
    fc.assert(
      fc.property(dimsArb, (dims) => {
        const size = dims.reduce((a, b) => a * b, 1);
        const problems: string[] = [];
        let prev: number[] | undefined;
        for (let q = 0; q < size; q++) {
          const y = localIndexToTarget(q, dims);
          if (y.some((v, j) => v < 0 || v >= dims[j])) problems.push(`out of range at ${q}`);
          if (targetToLocalIndex(y, dims) !== q) problems.push(`no round trip at ${q}`);
          if (prev) {
            const firstDiff = y.findIndex((v, j) => v !== prev![j]);
            if (firstDiff < 0 || y[firstDiff] < prev[firstDiff]) problems.push(`not increasing at ${q}`);
          }
          prev = y;
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('rejects out-of-range indices and targets', () => {
    expect(() => localIndexToTarget(6, [2, 3])).toThrow(RangeError);
    expect(() => localIndexToTarget(-1, [2, 3])).toThrow(RangeError);
    expect(() => targetToLocalIndex([2, 0], [2, 3])).toThrow(/position 0/);
    expect(() => targetToLocalIndex([0], [2, 3])).toThrow(/2 features/);
  });
});

describe('query counts', () => {
  const sizes = [85, 9, 100, 16, 2];
  const t = { features: [2, 0, 4], r: 1, weight: 1 };

  it('uses the listed order of the threshold features', () => {
    expect(thresholdSizes(t, sizes)).toEqual([100, 85, 2]);
    expect(queryCount(t, sizes)).toBe(17_000);
  });

  it('totals past 2^32 exactly as bigint', () => {
    const big = [65_536, 65_536, 65_536];
    const w = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [1, 2], r: 2, weight: 1 },
        { features: [0, 1, 2], r: 1, weight: 1 },
      ],
    };
    expect(totalQueryCount(w, big)).toBe(2n * 2n ** 32n + 2n ** 48n);
  });
});

describe('global indexing', () => {
  it('round-trips (threshold, local) through the global index (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 3, maxLength: 6 }),
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 6,
        }),
        (sizes, featureLists) => {
          const w = { thresholds: featureLists.map((features) => ({ features, r: 1, weight: 1 })) };
          const index = buildQueryIndex(w, sizes);
          expect(index.total).toBe(totalQueryCount(w, sizes));
          let expected = 0n;
          w.thresholds.forEach((t, i) => {
            for (let local = 0; local < queryCount(t, sizes); local++) {
              const g = toGlobalIndex(index, i, local);
              expect(g).toBe(expected++);
              expect(fromGlobalIndex(index, g)).toEqual({ threshold: i, local });
            }
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('accepts number global indices and rejects out-of-range ones', () => {
    const index = buildQueryIndex({ thresholds: [{ features: [0], r: 1, weight: 1 }] }, [3]);
    expect(fromGlobalIndex(index, 2)).toEqual({ threshold: 0, local: 2 });
    expect(() => fromGlobalIndex(index, 3)).toThrow(RangeError);
    expect(() => toGlobalIndex(index, 1, 0)).toThrow(RangeError);
    expect(() => toGlobalIndex(index, 0, 3)).toThrow(RangeError);
  });
});
