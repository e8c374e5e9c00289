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
 *
 * At the person level (RapOptions.unit: at most k = `bound` rows per person, neighbours differ in
 * one person's rows, answers are counts / n̂ with n̂ the public noisy row count): one person moves a
 * counting query's count by at most k (its k rows leave and k others enter: the count's change is
 * in [−k, k]) and each table by ℓ2 at most k√2 (k rows leave one cell, k enter another; k under
 * add/remove), so every Δ₂ above is multiplied by k with n = n̂: Δ₂ = k√m/n̂ and k√(2N)/n̂.
 */
import { gaussianMechanism, gaussianSigma } from '../privacy/mechanisms.ts';
import type { NoiseSource } from '../privacy/noise.ts';

export type Measured = { readonly queries: number } | { readonly tables: number };

/**
 * The σ that measures `what` at ρ-zCDP over n records (gaussianSigma takes (n·Δ₂)²), each unit
 * (record, or person with at most `bound` rows) moving a count by at most `bound`.
 */
export function measurementSigma(rho: number, what: Measured, n: number, bound = 1): number {
  return bound * gaussianSigma(rho, 'queries' in what ? what.queries : 2 * what.tables, n);
}

/** What the run's noise scales read: answers are counts / n, one unit moves a count by ≤ bound. */
export interface NoiseScale {
  readonly n: number;
  readonly bound: number;
}

/** The row level (n records, bound 1) or the person level (n̂, k): see the file comment. */
/**
 * Contributions bounded to `bound` rows per person; answers are counts / `normaliser` (public).
 * Here, beside the one function that states every measurement's sensitivity.
 */
export interface PersonUnit {
  readonly bound: number;
  readonly normaliser: number;
}

export function noiseScale(data: { readonly n: number }, unit?: PersonUnit): NoiseScale {
  return unit ? { n: unit.normaliser, bound: unit.bound } : { n: data.n, bound: 1 };
}

/** The record count the engine's public plan rules read: n, or n̂/k at the person level. */
export function planRows(data: { readonly n: number }, unit?: PersonUnit): number {
  return unit ? Math.max(1, Math.floor(unit.normaliser / unit.bound)) : data.n;
}

/**
 * Noisy answers of (part of) a measurement whose σ came from measurementSigma for everything it
 * measures together. Unclipped: least-squares fits are unbiased in the raw values.
 */
export function measure(truth: Float64Array, sigma: number, noise: NoiseSource): Float64Array {
  return gaussianMechanism(truth, sigma, noise);
}

/**
 * Measured cells under this many σ are fitted as 0 (post-processing). A least-squares fit on the
 * simplex moves mass to every cell whose noise came out positive, taking it from the large cells
 * (ADULT, 64 3-way marginals, ε = 1, direct plan: large cells 0.01 low, the released error 0.0145
 * → 0.0046 with this rule); an empty cell passes 2σ with probability 2.3%, and a true cell
 * under 2σ loses at most its own small value.
 */
export const ZERO_BELOW_SIGMAS = 2;

/** A noisy table as the fit should see it: cells under ZERO_BELOW_SIGMAS·σ set to 0. */
export function fitTarget(noisy: Float64Array, sigma: number): Float64Array {
  const floor = ZERO_BELOW_SIGMAS * sigma;
  return noisy.map((x) => (x < floor ? 0 : x));
}
