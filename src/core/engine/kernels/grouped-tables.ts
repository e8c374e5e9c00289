/**
 * Tables over merged categories: a feature's categories mapped to fewer groups, and a table
 * over several features summed into the cells of the groups (a linear map, so a grouped table
 * of D' is fitted, and back-propagated, through the ungrouped one).
 *
 * Table mode measures grouped tables of wide features (table-mode/): a 100-category feature
 * whose mass sits in one category costs a 3-way table 100× the cells, and so 100× the noise ℓ1,
 * of the same table with the 99 small categories merged.
 */
import type { SparseBlock } from './sparse-rows.ts';

/** A feature's categories mapped to `count` groups: category v belongs to group `of[v]`. */
export interface CategoryGroups {
  readonly of: Int32Array;
  readonly count: number;
}

/** Per feature of a table, its groups, or undefined where the feature keeps its categories. */
export type TableGrouping = readonly (CategoryGroups | undefined)[];

/** The grouped table's dims. */
export function groupedDims(dims: readonly number[], grouping: TableGrouping): number[] {
  return dims.map((d, j) => grouping[j]?.count ?? d);
}

/** For every cell of the row-major table over dims, its cell in the grouped table. */
export function cellGroups(dims: readonly number[], grouping: TableGrouping): Int32Array {
  const coarse = groupedDims(dims, grouping);
  let out = Int32Array.of(0);
  // Row-major, one axis at a time: cell = cell_prefix · d_j + v, grouped likewise.
  dims.forEach((d, j) => {
    const next = new Int32Array(out.length * d);
    const of = grouping[j]?.of;
    for (let p = 0; p < out.length; p++) {
      const base = out[p] * coarse[j];
      for (let v = 0; v < d; v++) next[p * d + v] = base + (of ? of[v] : v);
    }
    out = next;
  });
  return out;
}

/** Σ of the table's cells into their groups' cells. */
export function groupTable(table: Float64Array, cells: Int32Array, groupedCells: number): Float64Array {
  const out = new Float64Array(groupedCells);
  for (let y = 0; y < table.length; y++) out[cells[y]] += table[y];
  return out;
}

/** Whether the grouping merges anything. */
export function isGrouped(grouping: TableGrouping | undefined): grouping is TableGrouping {
  return grouping?.some((g) => g !== undefined) ?? false;
}

/** A sparse block summed into groups: each row's nonzero groups, ascending, with their shares. */
export function groupBlock(block: SparseBlock, groups: CategoryGroups, rows: number): SparseBlock {
  const rowStart = new Int32Array(rows + 1);
  // A row has at most as many nonzero groups as nonzero categories.
  const category = new Int32Array(block.category.length);
  const value = new Float64Array(block.category.length);
  const share = new Float64Array(groups.count);
  const seen = new Uint8Array(groups.count);
  let at = 0;
  for (let i = 0; i < rows; i++) {
    const first = at;
    for (let a = block.rowStart[i]; a < block.rowStart[i + 1]; a++) {
      const g = groups.of[block.category[a]];
      if (!seen[g]) {
        seen[g] = 1;
        // Insertion into the row's ascending group list (a row has few).
        let p = at++;
        while (p > first && category[p - 1] > g) {
          category[p] = category[p - 1];
          p--;
        }
        category[p] = g;
      }
      share[g] += block.value[a];
    }
    for (let p = first; p < at; p++) {
      const g = category[p];
      value[p] = share[g];
      share[g] = 0;
      seen[g] = 0;
    }
    rowStart[i + 1] = at;
  }
  return { rowStart, category: category.subarray(0, at), value: value.subarray(0, at) };
}
