/**
 * The engine's one Gaussian measurement (every mode measures through here; the noise itself is
 * drawn by the privacy core's gaussianMechanism).
 *
 * Sensitivity (replace-one neighbours, answers normalized by the public n):
 * - `queries`: m counting queries measured together; one replaced record moves each answer by at
 *   most 1/n, so Δ₂ = √m / n.
 * - `tables`: N whole tables (marginals, possibly summed into groups of cells) measured together;
 *   one replaced record moves two cells of each table by 1/n, so Δ₂ = √(2N) / n.
 *
 * σ = Δ₂ / √(2ρ) makes the whole measurement ρ-zCDP (Bun & Steinke 2016, Prop. 1.6).
 */
import { gaussianMechanism, gaussianSigma } from '../privacy/mechanisms.ts';
import type { NoiseSource } from '../privacy/noise.ts';

export type Measured = { readonly queries: number } | { readonly tables: number };

/** The σ that measures `what` at ρ-zCDP over n records (gaussianSigma takes (n·Δ₂)²). */
export function measurementSigma(rho: number, what: Measured, n: number): number {
  return gaussianSigma(rho, 'queries' in what ? what.queries : 2 * what.tables, n);
}

/**
 * Noisy answers of (part of) a measurement whose σ came from measurementSigma for everything it
 * measures together. Unclipped: least-squares fits are unbiased in the raw values.
 */
export function measure(truth: Float64Array, sigma: number, noise: NoiseSource): Float64Array {
  return gaussianMechanism(truth, sigma, noise);
}
