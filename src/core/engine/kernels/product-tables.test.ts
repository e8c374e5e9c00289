/**
 * The product-table kernels (by lines, by rows) against the literal row-by-row outer product, and
 * the back-propagation against its literal form, bit for bit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutFromSizes } from '../../data/onehot.ts';
import { rowMajorStrides, tableSize } from '../../workload/queries.ts';
import { randomRelaxed, smallShape } from '../testing.ts';
import { backpropProductTable } from './backprop.ts';
import { GroupSums, soleGroupings } from './group-sums.ts';
import { groupBlock } from './grouped-tables.ts';
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

/** A sparse D' over SIZES with a share of entries dropped (whole rows of a block now and then), some negative. */
function messyRows(seed: number, rows: number, dropShare: number, projected: boolean): SparseRows {
  const shape = smallShape(SIZES, rows);
  const values = randomRelaxed(shape, seed, projected);
  for (let i = 0; i < values.length; i++) {
    const u = ((i * 2654435761 + seed * 97) >>> 0) / 2 ** 32;
    if (u < dropShare) values[i] = 0;
    else if (!projected && u > 0.97) values[i] = -values[i];
  }
  return sparseRows(values, shape);
}

/**
 * The back-propagation as first written: per feature j, per row, the other features' nonzero
 * combinations (earlier features outer, products (1·x₁)·x₂·…) index G with its full strides;
 * local[v] += G(…, v, …)·p; then grad += scale · local.
 */
function literalBackprop(
  sp: SparseRows,
  features: readonly number[],
  dims: readonly number[],
  G: Float64Array,
  scale: number,
): Float64Array {
  const layout = layoutFromSizes(SIZES);
  const grad = new Float64Array(sp.rows * layout.width);
  const strides = rowMajorStrides(dims);
  features.forEach((f, j) => {
    for (let i = 0; i < sp.rows; i++) {
      let combos: [number, number][] = [[0, 1]];
      features.forEach((g, l) => {
        if (l === j) return;
        const b = sp.blocks[g];
        const next: [number, number][] = [];
        for (const [idx, p] of combos)
          for (let e = b.rowStart[i]; e < b.rowStart[i + 1]; e++)
            next.push([idx + b.category[e] * strides[l], p * b.value[e]]);
        combos = next;
      });
      if (combos.length === 0) continue;
      const local = new Float64Array(dims[j]);
      for (const [idx, p] of combos)
        for (let v = 0; v < dims[j]; v++) local[v] += G[idx + v * strides[j]] * p;
      for (let v = 0; v < dims[j]; v++) grad[(layout.offsets[f] + v) * sp.rows + i] += scale * local[v];
    }
  });
  return grad;
}

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
          // Lines go the dense way, the sparse way, and both within a bucket.
          const sp = messyRows(seed, rows, dropShare, projected);
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

describe('backpropProductTable', () => {
  it('equals its literal form bit for bit (k = 1 … 4, sparse rows, any row range split)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: SIZES.length - 1 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom(0, 0.5, 0.9),
        fc.integer({ min: 0, max: 40 }),
        (features, seed, rows, dropShare, cut) => {
          const sp = messyRows(seed, rows, dropShare, seed % 2 === 0);
          const dims = features.map((f) => SIZES[f]);
          const G = Float64Array.from({ length: tableSize(dims) }, (_, y) => Math.sin(y * 1.7 + seed));
          const expected = literalBackprop(sp, features, dims, G, 0.37);
          const layout = layoutFromSizes(SIZES);
          const grad = new Float64Array(rows * layout.width);
          // Two row ranges (as two threads would take them) give the whole.
          const split = Math.min(cut, rows);
          backpropProductTable(sp, layout, features, dims, G, 0.37, grad, 0, split);
          backpropProductTable(sp, layout, features, dims, G, 0.37, grad, split, rows);
          expect(sameBits(grad, expected)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('backpropProductTable into grouped categories', () => {
  it('equals back-propagating into the groups and adding each group to its categories', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 30 }), (seed, rows) => {
        // Features 2 (9 categories → 4 groups) and 4 (12 → 5), feature 0 kept: a grouped 3-way table.
        const features = [0, 2, 4];
        const of2 = Int32Array.from([0, 0, 1, 2, 2, 3, 1, 0, 3]);
        const of4 = Int32Array.from([4, 0, 1, 1, 2, 3, 3, 0, 2, 4, 4, 1]);
        const sp = messyRows(seed, rows, 0.5, true);
        const group = (f: number, of: Int32Array, count: number) => {
          const g = new Float64Array(rows * count);
          const b = sp.blocks[f];
          // The grouped block as groupBlock builds it, dense: each row's share of each group.
          for (let i = 0; i < rows; i++)
            for (let e = b.rowStart[i]; e < b.rowStart[i + 1]; e++)
              g[i * count + of[b.category[e]]] += b.value[e];
          return g;
        };
        const dense = [group(0, Int32Array.from([0, 1, 2, 3]), 4), group(2, of2, 4), group(4, of4, 5)];
        const dims = [4, 4, 5];
        const local: SparseRows = {
          rows,
          blocks: dense.map((g, j) => {
            const rowStart = new Int32Array(rows + 1);
            const category: number[] = [];
            const value: number[] = [];
            for (let i = 0; i < rows; i++) {
              for (let c = 0; c < dims[j]; c++) {
                if (g[i * dims[j] + c] !== 0) {
                  category.push(c);
                  value.push(g[i * dims[j] + c]);
                }
              }
              rowStart[i + 1] = category.length;
            }
            return { rowStart, category: Int32Array.from(category), value: Float64Array.from(value) };
          }),
          simplexDeviation: 0,
        };
        const G = Float64Array.from({ length: 4 * 4 * 5 }, (_, y) => Math.cos(y + seed));
        const localLayout = layoutFromSizes(dims);
        const localGrad = new Float64Array(rows * localLayout.width);
        backpropProductTable(local, localLayout, [0, 1, 2], dims, G, 0.3, localGrad);
        const layout = layoutFromSizes(SIZES);
        const expected = new Float64Array(rows * layout.width);
        const groups = [undefined, of2, of4];
        features.forEach((f, j) => {
          for (let v = 0; v < SIZES[f]; v++) {
            const from = (localLayout.offsets[j] + (groups[j]?.[v] ?? v)) * rows;
            for (let i = 0; i < rows; i++)
              expected[(layout.offsets[f] + v) * rows + i] += localGrad[from + i];
          }
        });
        const grad = new Float64Array(rows * layout.width);
        backpropProductTable(local, localLayout, [0, 1, 2], dims, G, 0.3, grad, 0, rows, {
          layout,
          features,
          groups,
        });
        expect(grad.every((x, i) => x === expected[i])).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('collects into group sums handed over once, bit for bit the table-by-table adds (any row split)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        (seed, rows, cut) => {
          // Two grouped 2-way tables over features 2 (9 categories → 4 groups) and 4 (12 → 5).
          const split = Math.min(cut, rows);
          const of2 = Int32Array.from([0, 0, 1, 2, 2, 3, 1, 0, 3]);
          const of4 = Int32Array.from([4, 0, 1, 1, 2, 3, 3, 0, 2, 4, 4, 1]);
          const sp = messyRows(seed, rows, 0.5, true);
          const local: SparseRows = {
            rows,
            blocks: [
              groupBlock(sp.blocks[2], { of: of2, count: 4 }, rows),
              groupBlock(sp.blocks[4], { of: of4, count: 5 }, rows),
            ],
            simplexDeviation: 0,
          };
          const dims = [4, 5];
          const localLayout = layoutFromSizes(dims);
          const layout = layoutFromSizes(SIZES);
          const Gs = [0, 1].map((t) =>
            Float64Array.from({ length: 20 }, (_, y) => Math.sin(3 * y + seed + t)),
          );
          const into = { layout, features: [2, 4], groups: [of2, of4] };
          const expected = new Float64Array(rows * layout.width);
          for (const G of Gs)
            backpropProductTable(local, localLayout, [0, 1], dims, G, 0.7, expected, 0, rows, into);
          const grad = new Float64Array(rows * layout.width);
          const groupSums = new GroupSums(rows);
          const groupings = [
            { of: of2, count: 4 },
            { of: of4, count: 5 },
          ];
          let pass = groupSums.forPass([]);
          for (const [from, to] of [
            [0, split],
            [split, rows],
          ]) {
            pass = groupSums.forPass([{ features: [2, 4], groups: groupings }]);
            const sums = [pass.get(2)?.sums, pass.get(4)?.sums];
            for (const G of Gs)
              backpropProductTable(local, localLayout, [0, 1], dims, G, 0.7, grad, from, to, {
                ...into,
                sums,
              });
            groupSums.handOver(pass, grad, layout, from, to);
          }
          expect(sameBits(grad, expected)).toBe(true);
          expect(pass.size).toBe(2);
          expect([...pass.values()].every(({ sums }) => sums.every((x) => x === 0))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('soleGroupings', () => {
  it('keeps the features every grouped table groups one and the same way', () => {
    const a = { of: Int32Array.of(0, 0), count: 1 };
    const b = { of: Int32Array.of(0, 1), count: 2 };
    const sole = soleGroupings([
      { features: [0, 1, 2], groups: [a, a, undefined] },
      { features: [1, 3], groups: [a, b] },
      { features: [0, 4], groups: [b, a] },
      { features: [5, 3], groups: [b, undefined] },
      { features: [6], groups: [undefined] },
    ]);
    // 0: a then b; 2 and 6: never grouped; 1, 3, 4, 5: one grouping each (3 also plain once).
    expect([...sole.entries()].sort((x, y) => x[0] - y[0])).toEqual([
      [1, a],
      [3, b],
      [4, a],
      [5, b],
    ]);
  });
});
