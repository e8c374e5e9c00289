/**
 * Present and future error, per threshold, for the relaxed and the released (rounded) data,
 * each beside the All-0 and the Gaussian-mechanism (GM) baselines (Avent & Korolova's tables):
 *
 * - All-0: answer every query with 0; its error on a threshold is the threshold's largest exact
 *   answer.
 * - GM: measure the workload directly with the Gaussian mechanism at the run's full ρ and
 *   answer from the noisy measurements (no synthetic data). For a future (evaluation) workload
 *   this is the oracle that had known the future workload and measured it instead: the error a
 *   curator with full knowledge would get, against which partial knowledge is judged. Its
 *   expected max error is data-independent (see gmBaseline).
 *
 * Every number compares with exact private answers: curator-only diagnostics, never released.
 */
import { gaussianSigma } from '../privacy/mechanisms.ts';
import { queryCount } from '../workload/queries.ts';
import type { Workload } from '../workload/types.ts';
import { expectedMaxAbsNormal } from './gaussian-baseline.ts';
import type { WorkloadEvaluation } from './metrics.ts';

/** One line of the table: max |error| of each answer source over a set of queries. */
export interface ErrorRow {
  readonly relaxed: number;
  readonly released: number;
  readonly all0: number;
  readonly gm: number;
}

export interface WorkloadErrorTable {
  readonly thresholds: number;
  readonly queries: number;
  /** Over the whole workload. */
  readonly max: ErrorRow;
  /** One row per threshold, in workload order. */
  readonly perThreshold: readonly ErrorRow[];
}

/** The workload's table and the evaluation workloads' (in the order given). */
export interface ErrorTables {
  readonly present: WorkloadErrorTable;
  readonly future: readonly WorkloadErrorTable[];
}

export interface GmBaseline {
  /** Expected max error over the whole workload, and over each threshold's queries. */
  readonly max: number;
  readonly perThreshold: readonly number[];
}

/**
 * The per-query GM baseline: all m queries of the workload measured together at ρ (ℓ2
 * sensitivity √m/n, σ = √(m/(2ρ))/n), so a set of q of them has expected max error
 * σ·E[max_{i≤q} |Z_i|] (gaussian-baseline.ts, exact by numerical integration).
 */
export function gmBaseline(workload: Workload, sizes: readonly number[], rho: number, n: number): GmBaseline {
  const counts = workload.thresholds.map((t) => Number(queryCount(t, sizes)));
  const m = counts.reduce((a, b) => a + b, 0);
  const sigma = gaussianSigma(rho, m, n);
  const memo = new Map<number, number>();
  const expected = (q: number): number => {
    let e = memo.get(q);
    if (e === undefined) memo.set(q, (e = sigma * expectedMaxAbsNormal(q)));
    return e;
  };
  return { max: expected(m), perThreshold: counts.map(expected) };
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
