/**
 * The nonzeros of each feature block, row by row (CSR per block). After sparsemax a relaxed row
 * has only a few nonzero categories per feature, so row-wise outer products over these lists
 * cost Σ_rows Π_j nnz_j instead of n' · Π_j size_j.
 */
import type { RelaxedShape } from '../relaxed.ts';

export interface SparseBlock {
  /** Nonzeros of row i are entries rowStart[i] .. rowStart[i + 1] − 1. */
  readonly rowStart: Int32Array;
  readonly category: Int32Array;
  readonly value: Float64Array;
}

export interface SparseRows {
  readonly rows: number;
  readonly blocks: readonly SparseBlock[];
  /** Largest |Σ block − 1| seen: tells whether the simplex identities may be used. */
  readonly simplexDeviation: number;
}

/** Collects the nonzeros of the given feature blocks (others are left empty) of a column-major D'. */
export function sparseRows(
  values: Float64Array,
  shape: RelaxedShape,
  features?: Iterable<number>,
): SparseRows {
  const { rows, layout } = shape;
  const wanted = new Set(features ?? layout.sizes.map((_, j) => j));
  const empty: SparseBlock = {
    rowStart: new Int32Array(rows + 1),
    category: new Int32Array(0),
    value: new Float64Array(0),
  };
  const sums = new Float64Array(rows);
  let deviation = 0;
  const blocks = layout.sizes.map((size, j): SparseBlock => {
    if (!wanted.has(j)) return empty;
    const base = layout.offsets[j] * rows;
    const rowStart = new Int32Array(rows + 1);
    sums.fill(0);
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) {
        const x = values[col + i];
        if (x !== 0) {
          rowStart[i + 1]++;
          sums[i] += x;
        }
      }
    }
    for (let i = 0; i < rows; i++) {
      rowStart[i + 1] += rowStart[i];
      deviation = Math.max(deviation, Math.abs(sums[i] - 1));
    }
    const fill = rowStart.slice(0, rows);
    const category = new Int32Array(rowStart[rows]);
    const value = new Float64Array(rowStart[rows]);
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) {
        const x = values[col + i];
        if (x !== 0) {
          const at = fill[i]++;
          category[at] = v;
          value[at] = x;
        }
      }
    }
    return { rowStart, category, value };
  });
  return { rows, blocks, simplexDeviation: deviation };
}
