/**
 * One-way marginals measured before the engine ran and already paid for: private domain
 * discovery's noisy histograms mapped onto each discovered column's released codes
 * (src/core/discovery/one-way.ts). Table mode takes them as those features' one-way
 * measurements instead of measuring them again, so its one-way share shrinks to the features
 * that have none and the rest of ρ goes to the workload (`oneWayShareFor`). Reading them is
 * post-processing: the ledger charged discovery's ρ when it reserved the release.
 *
 * A later one-way measurement of the same table (the direct plan's table of an uncovered
 * feature, or a round that selects a feature's one-way unit) is combined with it cell by cell by
 * inverse variance (`combineInverseVariance`): the minimum-variance unbiased combination of two
 * independent unbiased estimates.
 */

/** Answers (counts / n) per code of one feature, and each answer's variance (σ² per cell). */
export interface PaidOneWay {
  readonly values: Float64Array;
  readonly variances: Float64Array;
}

/** Per feature: its paid one-way, or null where the engine measures it (a declared column). */
export type PaidOneWays = readonly (PaidOneWay | null)[];

/**
 * Cell by cell, x = (x₁/v₁ + x₂/v₂) / (1/v₁ + 1/v₂) with variance 1/(1/v₁ + 1/v₂). A cell of
 * variance 0 (known exactly) keeps its value.
 */
export function combineInverseVariance(a: PaidOneWay, b: PaidOneWay): PaidOneWay {
  if (a.values.length !== b.values.length) {
    throw new RangeError(`one-way measurements of ${a.values.length} and ${b.values.length} cells`);
  }
  const values = new Float64Array(a.values.length);
  const variances = new Float64Array(a.values.length);
  for (let i = 0; i < values.length; i++) {
    const va = a.variances[i];
    const vb = b.variances[i];
    if (va === 0 || vb === 0) {
      values[i] = va === 0 ? a.values[i] : b.values[i];
      variances[i] = 0;
      continue;
    }
    const wa = 1 / va;
    const wb = 1 / vb;
    values[i] = (wa * a.values[i] + wb * b.values[i]) / (wa + wb);
    variances[i] = 1 / (wa + wb);
  }
  return { values, variances };
}

/** A measurement at one σ for every cell, as a PaidOneWay. */
export function uniform(values: Float64Array, sigma: number): PaidOneWay {
  return { values, variances: new Float64Array(values.length).fill(sigma * sigma) };
}

/** One σ for a table of per-cell variances (its RMS): what the fit's table weights and zeroing read. */
export function rmsSigma(variances: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < variances.length; i++) s += variances[i];
  return Math.sqrt(s / Math.max(1, variances.length));
}

/**
 * A table's weight in the fit, w·(σ_min/σ)² (inverse variance, relative to the sharpest table):
 * σ_min over the tables with σ > 0. A table known exactly (σ = 0: a discovered column whose one
 * code holds every record, e.g. no category passed partition selection) weighs 1: D' fits a
 * one-code one-way exactly whatever its weight.
 */
export function fitWeight(sigmaMin: number, sigma: number): number {
  return sigma > 0 && Number.isFinite(sigmaMin) ? (sigmaMin / sigma) ** 2 : 1;
}

/** The features the engine measures itself (no paid one-way). */
export function unpaidFeatures(features: number, paid?: PaidOneWays): number[] {
  const out: number[] = [];
  for (let f = 0; f < features; f++) if (!paid?.[f]) out.push(f);
  return out;
}

/**
 * The one-way start's share of ρ when some features' one-ways are paid: share·(unpaid / d). The
 * unpaid features are measured together at the σ the whole start would have given them
 * (σ₀ = √(2d/(2ρ₀))/n depends on ρ₀/d only); the paid features' part goes to the workload.
 */
export function oneWayShareFor(share: number, features: number, paid?: PaidOneWays): number {
  return (share * unpaidFeatures(features, paid).length) / features;
}
