/**
 * Sparse blocks over merged categories: a row's share of each group of a feature's categories,
 * so that a grouped table of D' (workload/table.ts groups tables: a linear map) is formed, and
 * back-propagated, on the groups' cells.
 *
 * Table mode measures grouped tables of wide features (table-mode/): a 100-category feature
 * whose mass sits in one category costs a 3-way table 100× the cells, and so 100× the noise ℓ1,
 * of the same table with the 99 small categories merged.
 */
import type { CategoryGroups } from '../../workload/table.ts';
import type { SparseBlock } from './sparse-rows.ts';

/** The grouping of tables (categories into groups), where table mode has long imported it from. */
export {
  type CategoryGroups,
  cellGroups,
  groupedDims,
  groupTable,
  isGrouped,
  type TableGrouping,
} from '../../workload/table.ts';

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
