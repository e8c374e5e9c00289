import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localIndexToTarget, tableSize, targetToLocalIndex } from '../../workload/queries.ts';
import { groupsFromLabels } from '../testing.ts';
import { cellGroups, groupBlock, groupedDims, groupTable, isGrouped } from './grouped-tables.ts';
import type { SparseBlock } from './sparse-rows.ts';

const tables = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }).chain((dims) =>
  fc.record({
    dims: fc.constant(dims),
    grouping: fc.tuple(
      ...dims.map((d) => fc.option(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: d, maxLength: d }))),
    ),
    seed: fc.integer({ min: 0, max: 1000 }),
  }),
);

describe('grouped tables', () => {
  it('map every cell to the cell of its categories’ groups (brute force)', () => {
    fc.assert(
      fc.property(tables, ({ dims, grouping: raw }) => {
        const grouping = raw.map((g) => (g ? groupsFromLabels(g) : undefined));
        const coarse = groupedDims(dims, grouping);
        const cells = cellGroups(dims, grouping);
        expect(cells.length).toBe(tableSize(dims));
        for (let y = 0; y < cells.length; y++) {
          const target = localIndexToTarget(y, dims).map((v, j) => grouping[j]?.of[v] ?? v);
          expect(cells[y]).toBe(targetToLocalIndex(target, coarse));
        }
      }),
    );
  });

  it('keep the total and sum each group’s cells', () => {
    const cells = cellGroups([3, 2], [{ of: Int32Array.from([0, 1, 1]), count: 2 }, undefined]);
    const table = Float64Array.from([0.1, 0.2, 0.3, 0.05, 0.15, 0.2]);
    expect([...groupTable(table, cells, 4)].map((x) => +x.toFixed(12))).toEqual([0.1, 0.2, 0.45, 0.25]);
  });

  it('sum a sparse block into groups row by row, ascending', () => {
    // Row 0: categories 0, 2, 3 → groups 0, 1, 1; row 1: empty; row 2: category 1 → group 2.
    const block: SparseBlock = {
      rowStart: Int32Array.from([0, 3, 3, 4]),
      category: Int32Array.from([0, 2, 3, 1]),
      value: Float64Array.from([0.5, 0.25, 0.25, 1]),
    };
    const g = groupBlock(block, { of: Int32Array.from([0, 2, 1, 1]), count: 3 }, 3);
    expect([...g.rowStart]).toEqual([0, 2, 2, 3]);
    expect([...g.category]).toEqual([0, 1, 2]);
    expect([...g.value]).toEqual([0.5, 0.5, 1]);
  });

  it('say whether anything is merged', () => {
    expect(isGrouped(undefined)).toBe(false);
    expect(isGrouped([undefined, undefined])).toBe(false);
    expect(isGrouped([undefined, { of: Int32Array.from([0, 0]), count: 1 }])).toBe(true);
  });
});
