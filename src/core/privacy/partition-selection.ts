/**
 * Gaussian partition selection (the thresholded noisy histogram of Desfontaines, Voss, Gipson &
 * Mandayam 2022, "Differentially private partition selection", and Google's / OpenDP's
 * Gaussian-threshold variant): which keys of a PRIVATE key set (the categories that occur in a
 * column) may be published.
 *
 * Each record contributes 1 to exactly one key (its category; missing values are one key).
 * Every key that occurs gets count + N(0, σ²); a key is released iff its noisy count exceeds τ.
 *
 * Privacy map (replace-one; stated with the constructor):
 * - Keys present in both neighbours: their count vector has ℓ2 sensitivity √2 (one key loses the
 *   record, one gains it), so the noisy counts are ρ-zCDP with ρ = (√2)²/(2σ²) = 1/σ².
 * - Keys present in only one neighbour have count 1 there (the replaced record's old key, or its
 *   new one): at most two such keys, each released with probability Q((τ − 1)/σ). Outside the
 *   event that one of them is released, the output is the ρ-zCDP Gaussian above; so the mechanism
 *   is δ-approximately ρ-zCDP (Bun & Steinke 2016, Def. 1.9) with δ = 2·Q((τ − 1)/σ).
 * We set τ = 1 + σ·Q⁻¹(δ/2), Q⁻¹ taken so that the TRUE tail (not only its approximation) is ≤ δ/2.
 */
import { makeGaussianCounts } from './counts.ts';
import { gaussianMechanism } from './gaussian.ts';
import type { NoiseSource } from './noise.ts';
import { normalUpperTail, normalUpperTailInverse } from './normal-tail.ts';

export interface PartitionSelection {
  readonly rho: number;
  /** Bound on the probability that a key held by a single record is released, times two keys. */
  readonly delta: number;
  readonly sigma: number;
  readonly threshold: number;
}

/** σ = 1/√ρ, τ = 1 + σ·Q⁻¹(δ/2): δ-approximately ρ-zCDP (see the file comment). */
export function makePartitionSelection(rho: number, delta: number): PartitionSelection {
  if (!(delta > 0 && delta < 1)) throw new RangeError(`delta must be in (0, 1), got ${delta}`);
  const { sigma } = makeGaussianCounts(rho, Math.SQRT2);
  const threshold = 1 + sigma * normalUpperTailInverse(Math.min(0.5, delta / 2));
  return { rho, delta, sigma, threshold };
}

/** The δ of a selection with noise σ and threshold τ: 2·Q((τ − 1)/σ) (approximate tail). */
export function partitionSelectionDelta(sigma: number, threshold: number): number {
  return 2 * normalUpperTail((threshold - 1) / sigma);
}

/** The probability that a key held by `count` records is released: Q((τ − count)/σ). */
export function releaseProbability(sel: PartitionSelection, count: number): number {
  return normalUpperTail((sel.threshold - count) / sel.sigma);
}

export interface SelectedKey {
  readonly key: string;
  /** The key's noisy count (a Gaussian output, public with the key). */
  readonly noisyCount: number;
}

/** The keys whose noisy count exceeds τ, in code-point order of the key (never data order). */
export function selectPartitions(
  sel: PartitionSelection,
  counts: ReadonlyMap<string, number>,
  noise: NoiseSource,
): SelectedKey[] {
  const keys = [...counts.keys()];
  const exact = Float64Array.from(keys, (k) => {
    const c = counts.get(k)!;
    if (!Number.isSafeInteger(c) || c < 1)
      throw new RangeError(`count of a present key must be >= 1, got ${c}`);
    return c;
  });
  const noisy = gaussianMechanism(exact, sel.sigma, noise);
  const out: SelectedKey[] = [];
  keys.forEach((key, i) => {
    if (noisy[i] > sel.threshold) out.push({ key, noisyCount: noisy[i] });
  });
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
