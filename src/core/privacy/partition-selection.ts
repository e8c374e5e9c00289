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
 *
 * At the person level (`keysPerPerson` = k, contributions bounded to k rows per person; neighbours
 * differ in one person's rows): a key's count is the number of DISTINCT persons holding it, so a
 * person adds at most 1 to each of at most k keys however many rows they hold there.
 * - Keys present in both neighbours: the replaced person leaves ≤ k keys (−1 each) and the new one
 *   enters ≤ k keys (+1 each): ℓ2 sensitivity √(2k) (√k under add/remove), σ = √(2k)/√(2ρ) = √(k/ρ).
 * - Keys present in one neighbour only have count 1 there: at most k on each side, 2k in all, each
 *   released with probability Q((τ − 1)/σ): δ = 2k·Q((τ − 1)/σ), so τ = 1 + σ·Q⁻¹(δ/(2k)).
 * k = 1 is the row-level selection above exactly.
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
  /** Keys one person can reach (k at the person level; 1 at the row level). */
  readonly keysPerPerson: number;
}

/** ℓ2 sensitivity of the key counts one person (k keys) or one record (k = 1) moves: √(2k). */
export function partitionCountSensitivity(keysPerPerson: number): number {
  return Math.sqrt(2 * keysPerPerson);
}

/**
 * σ = √(2k)/√(2ρ), τ = 1 + σ·Q⁻¹(δ/(2k)): δ-approximately ρ-zCDP (see the file comment); k = 1 at
 * the row level (σ = 1/√ρ, τ = 1 + σ·Q⁻¹(δ/2)).
 */
export function makePartitionSelection(rho: number, delta: number, keysPerPerson = 1): PartitionSelection {
  if (!(delta > 0 && delta < 1)) throw new RangeError(`delta must be in (0, 1), got ${delta}`);
  if (!Number.isSafeInteger(keysPerPerson) || keysPerPerson < 1) {
    throw new RangeError(`keys per person must be an integer >= 1, got ${keysPerPerson}`);
  }
  const { sigma } = makeGaussianCounts(rho, partitionCountSensitivity(keysPerPerson));
  const threshold = 1 + sigma * normalUpperTailInverse(Math.min(0.5, delta / (2 * keysPerPerson)));
  return { rho, delta, sigma, threshold, keysPerPerson };
}

/** The δ of a selection with noise σ and threshold τ: 2k·Q((τ − 1)/σ) (approximate tail). */
export function partitionSelectionDelta(sigma: number, threshold: number, keysPerPerson = 1): number {
  return 2 * keysPerPerson * normalUpperTail((threshold - 1) / sigma);
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
