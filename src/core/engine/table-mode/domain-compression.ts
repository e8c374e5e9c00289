/**
 * Domain compression from the noisy one-way marginals, after MST (McKenna, Miklau & Sheldon
 * 2021): a category whose estimated share is at least θ = 3σ₀ (σ₀ the one-way measurement's
 * noise) keeps its own group; the rest are merged, in category order, into runs of estimated
 * share ≥ θ. The groups are a function of already-measured, noisy values: post-processing, no
 * privacy cost.
 *
 * Why: a measured table's noise ℓ1 grows with its cells. ADULT's capital-gain has 100 categories
 * and 92% of the rows in one; at ε = 0.1 the 200-cell table capital-gain × income costs so much
 * noise that selection never picks it, while its 4-cell grouped version (0 / the rest × income)
 * measures the cell that carries the error almost exactly.
 */
import type { CategoryGroups } from '../kernels/grouped-tables.ts';

/** A category's own group needs an estimated share of at least this many σ₀ (MST's rule). */
export const KEEP_SIGMAS = 3;

/**
 * The groups of one feature from its estimated one-way distribution (non-negative, sums to 1),
 * or undefined when no two categories would merge.
 */
export function compressDomain(estimate: Float64Array, threshold: number): CategoryGroups | undefined {
  const of = new Int32Array(estimate.length);
  let count = 0;
  let run = -1;
  let runMass = 0;
  let lastClosedRun = -1;
  estimate.forEach((share, v) => {
    if (share >= threshold) {
      of[v] = count++;
      return;
    }
    if (run < 0) run = count++;
    of[v] = run;
    runMass += share;
    if (runMass >= threshold) {
      lastClosedRun = run;
      run = -1;
      runMass = 0;
    }
  });
  // A last run short of θ joins the previous run rather than standing alone.
  if (run >= 0 && lastClosedRun >= 0) {
    for (let v = 0; v < of.length; v++) if (of[v] === run) of[v] = lastClosedRun;
    for (let v = 0; v < of.length; v++) if (of[v] > run) of[v]--;
    count--;
  }
  return count === estimate.length ? undefined : { of, count };
}
