/**
 * Table mode's one-way start: all d one-way marginals measured together (σ₀, rho-schedule.ts); D'
 * starts as one-hot rows whose categories follow the noisy one-way marginals (post-processing),
 * so the first rounds fit from a sensible, sparse point. The same noisy marginals compress each
 * feature's domain (domain-compression.ts, after MST): categories with an estimated share under
 * 3σ₀ are merged into groups.
 */

import type { PrivateData } from '../../data/counted.ts';
import { layoutOf } from '../../data/onehot.ts';
import type { NoiseSource } from '../../privacy/noise.ts';
import type { ExactAnswers } from '../exact-answers.ts';
import type { CategoryGroups } from '../kernels/grouped-tables.ts';
import type { TableTarget } from '../kernels/session.ts';
import { sparsemax } from '../kernels/sparsemax.ts';
import { measure } from '../measure.ts';
import { type PaidOneWay, type PaidOneWays, rmsSigma, uniform, unpaidFeatures } from '../paid-one-ways.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { compressDomain, KEEP_SIGMAS } from './domain-compression.ts';
import type { TableBudget } from './rho-schedule.ts';
import { unitTable } from './units.ts';

/**
 * One-hot rows whose categories follow the one-way marginals: row i takes the category at
 * quantile (i + u)/n' of the marginal, then each feature's rows are shuffled independently so
 * features start independent. The marginals must be distributions (see simplexEstimate).
 */
export function oneWayRows(
  shape: RelaxedShape,
  marginals: readonly Float64Array[],
  noise: NoiseSource,
): Float64Array {
  const { rows, layout } = shape;
  const out = new Float64Array(rows * layout.width);
  const order = new Int32Array(rows);
  marginals.forEach((p, f) => {
    const u = noise.uniform();
    for (let i = 0; i < rows; i++) order[i] = i;
    shuffle(order, noise);
    let v = 0;
    let cumulative = p[0];
    for (let i = 0; i < rows; i++) {
      const q = (i + u) / rows;
      while (q > cumulative && v < p.length - 1) cumulative += p[++v];
      out[(layout.offsets[f] + v) * rows + order[i]] = 1;
    }
  });
  return out;
}

/**
 * The distribution nearest (least squares) to a noisy marginal: its projection onto the simplex.
 * Clipping negatives and renormalizing instead would hand a large domain's empty cells the
 * positive half of their noise (≈ 0.4σ each: most of the mass for 100 cells at σ = 0.02).
 */
export const simplexEstimate: (noisy: Float64Array) => Float64Array = sparsemax;

function shuffle(a: Int32Array, noise: NoiseSource): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(noise.uniform() * (i + 1));
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

export interface OneWayStart {
  readonly initial: Float64Array;
  /** Every feature's one-way target (paid, or measured here). */
  readonly targets: TableTarget[];
  /** Every feature's one-way as values and per-cell variances (for inverse-variance combination). */
  readonly oneWays: readonly PaidOneWay[];
  /** Per feature, the σ its target is weighted by (rmsSigma of a paid one-way's variances). */
  readonly featureSigmas: readonly number[];
  /** σ₀ of the features measured here (0 when every one-way was paid). */
  readonly sigma: number;
  /** ρ spent here (0 when every one-way was paid). */
  readonly rho: number;
  /** Features whose one-way was paid (discovery's), not measured here. */
  readonly paid: number;
  readonly paidFeatures: readonly number[];
  /** Per feature, its merged categories for grouped tables (undefined: none merged). */
  readonly groups: readonly (CategoryGroups | undefined)[];
}

/**
 * Measures the one-way marginals of the features with no paid one-way together (the budget's
 * one-way share, which oneWayShareFor sized for them), takes the paid ones as they are
 * (paid-one-ways.ts), and builds the start rows.
 */
export function measureOneWays(
  data: PrivateData,
  exact: ExactAnswers,
  rows: number,
  budget: TableBudget,
  noise: NoiseSource,
  paid?: PaidOneWays,
): OneWayStart {
  const layout = layoutOf(data.schema);
  const d = layout.sizes.length;
  const unpaid = unpaidFeatures(d, paid);
  const { rho, sigma } = unpaid.length > 0 ? budget.oneWay(unpaid.length) : { rho: 0, sigma: 0 };
  const oneWays = layout.sizes.map((size, f) => {
    const own = paid?.[f];
    if (!own) return uniform(measure(exact.of(unitTable([f])), sigma, noise), sigma);
    if (own.values.length !== size) {
      throw new Error(`internal: feature ${f}'s paid one-way has ${own.values.length} cells, not ${size}`);
    }
    return own;
  });
  const featureSigmas = oneWays.map((m) => rmsSigma(m.variances));
  const targets = oneWays.map((m, f) => ({ threshold: unitTable([f]), weight: 1, measured: m.values }));
  const estimates = oneWays.map((m) => simplexEstimate(m.values));
  const initial = oneWayRows({ rows, layout }, estimates, noise);
  const groups = estimates.map((p, f) => compressDomain(p, KEEP_SIGMAS * featureSigmas[f]));
  const paidFeatures = layout.sizes.flatMap((_, f) => (paid?.[f] ? [f] : []));
  return {
    initial,
    targets,
    oneWays,
    featureSigmas,
    sigma,
    rho,
    paid: paidFeatures.length,
    paidFeatures,
    groups,
  };
}
