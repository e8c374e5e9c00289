/** The product-table kernels (by lines, by rows) against the literal row-by-row outer product, bit for bit. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowMajorStrides, tableSize } from '../../workload/queries.ts';
import { randomRelaxed, smallShape } from '../testing.ts';
import { productTable, productTableByLines, productTableByRows } from './product-tables.ts';
import { type SparseRows, sparseRows } from './sparse-rows.ts';

/**
 * P_F by rows: every row adds ((Π middle values, in order) · first value) · last value to each
 * cell of its nonzero combinations, rows in ascending order; then × 1/n'.
 */
function rowByRow(sp: SparseRows, features: readonly number[], dims: readonly number[]): Float64Array {
  const out = new Float64Array(tableSize(dims));
  const strides = rowMajorStrides(dims);
  const k = features.length;
  const nonzeros = (i: number, j: number) => {
    const b = sp.blocks[features[j]];
    const list: [number, number][] = [];
    for (let e = b.rowStart[i]; e < b.rowStart[i + 1]; e++) list.push([b.category[e], b.value[e]]);
    return list;
  };
  for (let i = 0; i < sp.rows; i++) {
    if (k === 1) {
      for (const [c, x] of nonzeros(i, 0)) out[c] += x;
      continue;
    }
    let middle: [number, number][] = [[0, 1]];
    for (let j = 1; j < k - 1; j++) {
      middle = middle.flatMap(([idx, p]) =>
        nonzeros(i, j).map(([c, x]): [number, number] => [idx + c * strides[j], p * x]),
      );
    }
    for (const [c0, x0] of nonzeros(i, 0)) {
      for (const [idx, m] of middle) {
        const p = m * x0;
        for (const [cl, xl] of nonzeros(i, k - 1)) out[c0 * strides[0] + idx + cl] += p * xl;
      }
    }
  }
  for (let c = 0; c < out.length; c++) out[c] *= 1 / sp.rows;
  return out;
}

function sameBits(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

const SIZES = [4, 1, 9, 3, 12, 2];

describe('productTable', () => {
  it('equals the row-by-row outer product bit for bit (dense, sparse and mixed rows; any sign)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: SIZES.length - 1 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 90 }),
        fc.constantFrom(0, 0.3, 0.7, 0.95),
        fc.boolean(),
        (features, seed, rows, dropShare, projected) => {
          const shape = smallShape(SIZES, rows);
          const values = randomRelaxed(shape, seed, projected);
          // Zero out a share of the entries (whole rows of a block now and then), and make some
          // negative, so that lines go the dense way, the sparse way, and both within a bucket.
          for (let i = 0; i < values.length; i++) {
            const u = ((i * 2654435761 + seed * 97) >>> 0) / 2 ** 32;
            if (u < dropShare) values[i] = 0;
            else if (!projected && u > 0.97) values[i] = -values[i];
          }
          const sp = sparseRows(values, shape);
          const dims = features.map((f) => SIZES[f]);
          const expected = rowByRow(sp, features, dims);
          for (const kernel of [productTable, productTableByLines, productTableByRows])
            expect(sameBits(kernel(sp, features, dims), expected)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('is all zeros when a feature has no nonzero entry', () => {
    const shape = smallShape([3, 4], 20);
    const values = randomRelaxed(shape, 1);
    values.fill(0, 0, 3 * 20);
    const table = productTable(sparseRows(values, shape), [0, 1], [3, 4]);
    expect([...table].every((x) => x === 0)).toBe(true);
  });
});
