/**
 * The answers of an r-of-k threshold on the relaxed data. Its answers are Σ_T c_T P_T broadcast
 * over S (inclusion–exclusion, plain form), each P_T a product table (product-tables.ts); when
 * every block is on the simplex they are read off the one k-way table P_S instead, by the "at
 * least r matches" transform that the exact answers use too (workload/at-least-r.ts).
 */
import type { OneHotLayout } from '../../data/onehot.ts';
import { atLeastRMatches } from '../../workload/at-least-r.ts';
import { combineTables, thresholdTerms } from '../../workload/inclusion-exclusion.ts';
import { thresholdSizes } from '../../workload/queries.ts';
import type { Threshold } from '../../workload/types.ts';
import { productTable } from './product-tables.ts';
import type { SparseRows } from './sparse-rows.ts';

/** Simplex deviation below which P_T may be read off P_S as a marginal. */
export const SIMPLEX_TOLERANCE = 1e-9;

/**
 * All surrogate answers of a threshold, row-major over t.features.
 *
 * On the simplex (every block of every row sums to 1) the answers are a linear function of the
 * one k-way table P_S: answer(y) = Σ_z P_S(z)·[#{j : z_j = y_j} ≥ r], computed by
 * {@link atLeastRMatches} in k passes. Off the simplex each inclusion–exclusion term's product
 * table is accumulated from the rows (the reference form).
 */
export function thresholdAnswers(sp: SparseRows, layout: OneHotLayout, t: Threshold): Float64Array {
  const k = t.features.length;
  const dims = thresholdSizes(t, layout.sizes);
  const full = productTable(sp, t.features, dims);
  if (t.r === k) return full;
  if (sp.simplexDeviation <= SIMPLEX_TOLERANCE) return atLeastRMatches(full, dims, t.r);
  return combineTables(k, dims, thresholdTerms(k, t.r), (subset) =>
    subset.length === k
      ? full
      : productTable(
          sp,
          subset.map((p) => t.features[p]),
          subset.map((p) => dims[p]),
        ),
  );
}
