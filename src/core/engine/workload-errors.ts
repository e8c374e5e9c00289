/**
 * Present and future error, per threshold, for the relaxed and the released (rounded) data,
 * each beside the All-0 and the Gaussian-mechanism (GM) baselines (Avent & Korolova's tables):
 *
 * - All-0: answer every query with 0; its error on a threshold is the threshold's largest exact
 *   answer.
 * - GM: measure the workload's distinct tables directly with the Gaussian mechanism at the run's
 *   full ρ and answer from the noisy tables (no synthetic data). For a future (evaluation) workload
 *   this is the oracle that had known the future workload and measured it instead: the error a
 *   curator with full knowledge would get, against which partial knowledge is judged. Its
 *   expected max error is data-independent (see gmBaseline).
 *
 * Every number compares with exact private answers: curator-only diagnostics, never released.
 */
import type { Workload } from '../workload/types.ts';
import {
  distinctTables,
  type GmTablesBaseline,
  type GmTablesOptions,
  gmTablesBaseline,
  simulateMaxError,
} from './baselines/gm-tables.ts';
import { expectedMaxAbsNormal } from './gaussian-baseline.ts';
import type { WorkloadEvaluation } from './metrics.ts';
import type { ErrorRow, WorkloadErrorTable } from './workload-error-types.ts';

export interface GmBaseline {
  /** Expected max error over the whole workload, and over each threshold's queries. */
  readonly max: number;
  readonly perThreshold: readonly number[];
}

/**
 * Monte-Carlo settings for thresholds that are not marginals: ±4% at 2 SE, at most 30 runs and
 * 2·10⁷ simulated cells (at least 2 runs; the standard error is reported): a full-precision
 * simulation of ADULT's 2-of-4 tables took 469 s, longer than the run it describes.
 */
export const GM_SIMULATION: GmTablesOptions = {
  relativePrecision: 0.02,
  minRepetitions: 2,
  maxRepetitions: 30,
  cellBudget: 2e7,
};

/**
 * The GM baseline on the workload's tables (baselines/gm-tables.ts, issue 19): each distinct
 * table measured once at ρ (σ = √(N/ρ)/n per cell for N tables), answers read off the noisy
 * tables. Per threshold, the expected max over its own queries under that same σ: exact for a
 * marginal, else by seeded (public) simulation.
 */
export function gmBaseline(
  workload: Workload,
  sizes: readonly number[],
  rho: number,
  n: number,
  whole: GmTablesBaseline = gmTablesBaseline({ rho, n, sizes, workload }, GM_SIMULATION),
): GmBaseline {
  const memo = new Map<string, number>();
  const perThreshold = workload.thresholds.map((t) => {
    const [table] = distinctTables({ thresholds: [t] }, sizes);
    const key = `${table.dims.join('x')}/${t.r}`;
    let e = memo.get(key);
    if (e === undefined) {
      e =
        t.r === t.features.length
          ? whole.sigma * expectedMaxAbsNormal(table.cells)
          : simulateMaxError([table], whole.sigma, GM_SIMULATION).mean;
      memo.set(key, e);
    }
    return e;
  });
  return { max: whole.expectedMaxError.mean, perThreshold };
}

/** The table of one workload from its evaluation (sources: relaxed, released) and GM baseline. */
export function errorTable(
  evaluation: WorkloadEvaluation,
  gm: GmBaseline,
  queries: number,
): WorkloadErrorTable {
  const [relaxed, released] = evaluation.bySource;
  if (!relaxed || !released) throw new RangeError('an error table needs the relaxed and the released errors');
  const perThreshold = relaxed.perThreshold.map(
    (r, i): ErrorRow => ({
      relaxed: r,
      released: released.perThreshold[i],
      all0: evaluation.maxExactPerThreshold[i],
      gm: gm.perThreshold[i],
    }),
  );
  return {
    thresholds: perThreshold.length,
    queries,
    max: { relaxed: relaxed.max, released: released.max, all0: evaluation.maxExact, gm: gm.max },
    perThreshold,
  };
}
