import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localIndexToTarget } from './queries.ts';
import { marginalize, rowMajorStrides, sumOut, tableSize } from './table.ts';

describe('table algebra', () => {
  it('marginalize sums out the other axes', () => {
    const dims = [2, 3, 2];
    const table = Float64Array.from({ length: 12 }, (_, i) => i);
    // Keep axis 1: Σ over axes 0 and 2.
    expect([...marginalize(table, dims, [1])]).toEqual([0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11]);
    expect([...marginalize(table, dims, [0, 1, 2])]).toEqual([...table]);
    expect([...marginalize(table, dims, [])]).toEqual([66]);
  });

  it('marginalize and sumOut agree with summing every cell into its kept coordinates (brute force)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }).chain((dims) =>
          fc.record({
            dims: fc.constant(dims),
            keep: fc.subarray(dims.map((_, p) => p)),
            axis: fc.integer({ min: 0, max: dims.length - 1 }),
            table: fc.array(fc.integer({ min: -50, max: 50 }), {
              minLength: tableSize(dims),
              maxLength: tableSize(dims),
            }),
          }),
        ),
        ({ dims, keep, axis, table }) => {
          const literal = (kept: readonly number[]) => {
            const keptDims = kept.map((p) => dims[p]);
            const strides = rowMajorStrides(keptDims);
            const out = new Array<number>(tableSize(keptDims)).fill(0);
            table.forEach((v, i) => {
              const y = localIndexToTarget(i, dims);
              out[kept.reduce((at, p, j) => at + y[p] * strides[j], 0)] += v;
            });
            return out;
          };
          expect([...marginalize(Float64Array.from(table), dims, keep)]).toEqual(literal(keep));
          const others = dims.map((_, p) => p).filter((p) => p !== axis);
          expect([...sumOut(Float64Array.from(table), dims, axis)]).toEqual(literal(others));
        },
      ),
      { numRuns: 100 },
    );
  });
});
