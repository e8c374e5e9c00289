/**
 * The Gaussian mechanism on a vector of raw counts (histograms over a PUBLIC list of buckets,
 * not normalized by n), for private domain discovery.
 *
 * Privacy map (stated with the constructor, OpenDP style): for counts whose ℓ2 sensitivity under
 * replace-one is Δ₂ (a histogram in which each record falls in exactly one bucket: Δ₂ = √2, one
 * bucket loses the record and one gains it), adding N(0, σ²) to every count with
 * σ = Δ₂ / √(2ρ) is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6). Outputs go through
 * gaussianMechanism (grid-snapped, see gaussian.ts).
 */
import { gaussianMechanism } from './gaussian.ts';
import type { NoiseSource } from './noise.ts';

export interface GaussianCounts {
  /** ℓ2 sensitivity of the count vector under replace-one. */
  readonly l2Sensitivity: number;
  /** zCDP cost of one measurement. */
  readonly rho: number;
  /** Noise standard deviation, in counts. */
  readonly sigma: number;
}

function assertPositiveFinite(value: number, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a finite number > 0, got ${String(value)}`);
  }
}

/** σ = Δ₂/√(2ρ): the Gaussian count histogram that is ρ-zCDP for sensitivity Δ₂. */
export function makeGaussianCounts(rho: number, l2Sensitivity: number): GaussianCounts {
  assertPositiveFinite(rho, 'rho');
  assertPositiveFinite(l2Sensitivity, 'l2 sensitivity');
  return { rho, l2Sensitivity, sigma: l2Sensitivity / Math.sqrt(2 * rho) };
}

/** The privacy map: ρ = Δ₂² / (2σ²). */
export function gaussianCountsRho(sigma: number, l2Sensitivity: number): number {
  assertPositiveFinite(sigma, 'sigma');
  assertPositiveFinite(l2Sensitivity, 'l2 sensitivity');
  return (l2Sensitivity * l2Sensitivity) / (2 * sigma * sigma);
}

/** counts + N(0, σ²) each, snapped to the noise grid. */
export function measureCounts(m: GaussianCounts, counts: Float64Array, noise: NoiseSource): Float64Array {
  return gaussianMechanism(counts, m.sigma, noise);
}
