/**
 * Table mode's direct plan: the projection mechanism with the marginal trick — measure each
 * distinct workload table once and answer every r-of-k query through D' fitted to the noisy
 * tables (an r-of-k threshold's answers are linear in its k-way table).
 *
 * 1. The one-way start (one-way-start.ts): the d one-ways at ρ₀ = DIRECT_ONE_WAY_SHARE·ρ (ℓ2
 *    sensitivity √(2d)/n); D' starts from them and each feature's small categories are merged.
 * 2. Every distinct feature set of the workload plus the one-way table of each feature no
 *    workload table covers — N tables, each summed into its merged categories — measured
 *    together with ρ − ρ₀: ℓ2 sensitivity √(2N)/n (measure.ts; merging cells keeps a replaced
 *    record's two moved cells at most two), σ = √(2N/(2(ρ − ρ₀)))/n per cell.
 * 3. One projection of D' onto all of them, weighted w/σ², run until its residual is well under
 *    what randomized rounding adds (direct-fit.ts); the report gives its residual beside the noise's.
 */
import type { PrivateData } from '../../data/counted.ts';
import type { NoiseSource } from '../../privacy/noise.ts';
import { tableSize } from '../../workload/queries.ts';
import type { Workload } from '../../workload/types.ts';
import type { ExactAnswers } from '../exact-answers.ts';
import { type TableTarget, tableTarget } from '../kernels/session.ts';
import { fitTarget, measure, measurementSigma, type NoiseScale } from '../measure.ts';
import {
  combineInverseVariance,
  oneWayShareFor,
  type PaidOneWays,
  rmsSigma,
  uniform,
} from '../paid-one-ways.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { measureOneWays } from './one-way-start.ts';
import { TableBudget } from './rho-schedule.ts';
import { asUnit, groupedVersion, unitTable } from './units.ts';

/**
 * Share of ρ for the direct plan's one-way start: it only has to find the small categories to
 * merge and a start for D' (the tables measure the one-ways again).
 */
export const DIRECT_ONE_WAY_SHARE = 0.1;

/** The distinct feature sets the direct plan measures (ascending features), with their weight. */
export function directTables(
  workload: Workload,
  weights: Float64Array,
  sizes: readonly number[],
): { features: number[]; cells: number; weight: number }[] {
  const byKey = new Map<string, { features: number[]; cells: number; weight: number }>();
  workload.thresholds.forEach((t, ti) => {
    const features = [...t.features].sort((a, b) => a - b);
    const key = features.join(',');
    const cells = tableSize(features.map((f) => sizes[f]));
    const old = byKey.get(key);
    byKey.set(key, { features, cells, weight: Math.max(old?.weight ?? 0, weights[ti]) });
  });
  const covered = new Set(workload.thresholds.flatMap((t) => t.features));
  sizes.forEach((size, f) => {
    if (!covered.has(f)) byKey.set(String(f), { features: [f], cells: size, weight: 1 });
  });
  return [...byKey.values()];
}

export interface DirectStart {
  readonly initial: Float64Array;
  /**
   * Every direct table (σ), grouped. Not the one-ways: the tables measure every feature again,
   * and a whole one-way's many small noisy categories would pull mass off the large ones (a
   * least-squares fit on the simplex moves mass to positive noise: on ADULT at ε = 1 it cost
   * 0.011 on capital-loss = 0).
   */
  readonly measured: readonly {
    readonly target: TableTarget;
    /** The noisy table as measured (the target is fitTarget's, measure.ts). */
    readonly raw: Float64Array;
    readonly sigma: number;
  }[];
  readonly oneWay: {
    readonly rho: number;
    readonly sigma: number;
    readonly features: number;
    readonly paid: number;
  };
  readonly rho: number;
  readonly sigma: number;
  readonly tables: number;
  /** Cells measured: the tables' after merging small categories. */
  readonly cells: number;
}

/**
 * The one-way start (one-way-start.ts: DIRECT_ONE_WAY_SHARE of ρ, D' from the noisy one-ways, small
 * categories merged), then every direct table, grouped, measured together with the rest of ρ.
 */
export function measureDirect(
  shape: RelaxedShape,
  tables: readonly { features: number[]; cells: number; weight: number }[],
  data: PrivateData,
  exact: ExactAnswers,
  rho: number,
  noise: NoiseSource,
  scale: NoiseScale = { n: data.n, bound: 1 },
  /** Features' one-ways already paid for (discovery's): not measured again at the start. */
  paid?: PaidOneWays,
): DirectStart {
  const share = oneWayShareFor(DIRECT_ONE_WAY_SHARE, shape.layout.sizes.length, paid);
  const start = measureOneWays(
    data,
    exact,
    shape.rows,
    new TableBudget(rho, scale.n, 1, share, 0, scale.bound),
    noise,
    paid,
  );
  const rest = rho - start.rho;
  const sigma = measurementSigma(rest, { tables: tables.length }, scale.n, scale.bound);
  const sizes = shape.layout.sizes;
  let cells = 0;
  const direct = tables.map((t) => {
    const whole = {
      id: '',
      featureSet: '',
      features: t.features,
      cells: t.cells,
      thresholds: [],
      weight: t.weight,
    };
    const unit = groupedVersion(whole, start.groups, sizes);
    cells += unit.cells;
    const threshold = unitTable(t.features);
    const fresh = measure(asUnit(unit, exact.of(threshold), sizes), sigma, noise);
    // An uncovered feature's one-way, measured again here: combined with its paid one-way by
    // inverse variance (both of the whole, ungrouped table).
    const own = t.features.length === 1 && !unit.grouping ? paid?.[t.features[0]] : undefined;
    const both = own ? combineInverseVariance(own, uniform(fresh, sigma)) : undefined;
    const raw = both ? both.values : fresh;
    const tableSigma = both ? rmsSigma(both.variances) : sigma;
    return {
      target: tableTarget(threshold, t.weight, fitTarget(raw, tableSigma), unit.grouping),
      raw,
      sigma: tableSigma,
    };
  });
  const oneWay = { rho: start.rho, sigma: start.sigma, features: sizes.length, paid: start.paid };
  return { initial: start.initial, measured: direct, oneWay, rho: rest, sigma, tables: tables.length, cells };
}
