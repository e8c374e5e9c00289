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
 * - Keys present in only one neighbour have count 1 there: replacing one record can leave at most
 *   ONE such key on each side (the record's old key in D, its new key in D′). On each side the
 *   output is a mixture: with probability 1 − q the exclusive key stays below τ and the output is
 *   the Gaussian on the common keys (q = 0 when that side has no exclusive key: write it as the
 *   same mixture with both parts equal), so the two sides are mixtures with the same weight q of
 *   distributions at Rényi divergence ≤ ρα. That is q-approximate ρ-zCDP in Bun & Steinke's
 *   mixture form (2016, Def. 8.1), with q the probability that a count-1 key is released —
 *   ONE key per side, not two (issue 26; the earlier 2·Q was twice as conservative).
 * We set τ = 1 + σ·(Q⁻¹(δ) + 2⁻¹²), Q⁻¹ taken so that the TRUE tail (not only its approximation)
 * is ≤ δ. The 2⁻¹²σ covers the grid the Gaussian's output is rounded to (g ≤ σ/4096, gaussian.ts):
 * a rounded count above τ means an exact one above τ − g/2 > 1 + σ·Q⁻¹(δ), so q ≤ δ exactly.
 *
 * At the person level (`keysPerPerson` = k, contributions bounded to k rows per person; neighbours
 * differ in one person's rows): a key's count is the number of DISTINCT persons holding it, so a
 * person adds at most 1 to each of at most k keys however many rows they hold there.
 * - Keys present in both neighbours: the replaced person leaves ≤ k keys (−1 each) and the new one
 *   enters ≤ k keys (+1 each): ℓ2 sensitivity √(2k) (√k under add/remove), σ = √(2k)/√(2ρ) = √(k/ρ).
 * - Keys present in one neighbour only have count 1 there: at most k on each side. The same mixture
 *   argument holds with q the probability that any of a side's ≤ k exclusive keys is released,
 *   q ≤ k·Q((τ − 1)/σ − 2⁻¹²): δ = k·Q(…), so τ = 1 + σ·(Q⁻¹(δ/k) + 2⁻¹²).
 * k = 1 is the row-level selection above exactly.
 */
import { makeGaussianCounts } from './counts.ts';
import { gaussianMechanism } from './gaussian.ts';
import type { NoiseSource } from './noise.ts';
import { normalUpperTail, normalUpperTailInverse } from './normal-tail.ts';

export interface PartitionSelection {
  readonly rho: number;
  /** Bound on the probability that a key a neighbour holds alone (count 1) is released, per side. */
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

/** The grid margin in units of σ: the Gaussian's output grid g ≤ σ/4096 (gaussian.ts), rounding by ≤ g/2. */
export const GRID_MARGIN = 2 ** -12;

/**
 * σ = √(2k)/√(2ρ), τ = 1 + σ·(Q⁻¹(δ/k) + 2⁻¹²): δ-approximately ρ-zCDP (see the file comment); k = 1
 * at the row level (σ = 1/√ρ, τ = 1 + σ·(Q⁻¹(δ) + 2⁻¹²)).
 */
export function makePartitionSelection(rho: number, delta: number, keysPerPerson = 1): PartitionSelection {
  if (!(delta > 0 && delta < 1)) throw new RangeError(`delta must be in (0, 1), got ${delta}`);
  if (!Number.isSafeInteger(keysPerPerson) || keysPerPerson < 1) {
    throw new RangeError(`keys per person must be an integer >= 1, got ${keysPerPerson}`);
  }
  const { sigma } = makeGaussianCounts(rho, partitionCountSensitivity(keysPerPerson));
  const tail = Math.min(0.5, delta / keysPerPerson);
  const threshold = 1 + sigma * (normalUpperTailInverse(tail) + GRID_MARGIN);
  return { rho, delta, sigma, threshold, keysPerPerson };
}

/**
 * The δ of a selection with noise σ and threshold τ: k·Q((τ − 1)/σ − 2⁻¹²), the probability that
 * one of a side's ≤ k count-1 keys' rounded noisy counts exceeds τ at most (approximate tail).
 */
export function partitionSelectionDelta(sigma: number, threshold: number, keysPerPerson = 1): number {
  return keysPerPerson * normalUpperTail((threshold - 1) / sigma - GRID_MARGIN);
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

/**
 * The keys whose noisy count exceeds τ, in code-point order of the key (never data order). The
 * noise is drawn in that order too, so a seeded run's output is a function of the counts alone,
 * not of the order the keys were first met: a histogram counted by SQL (discovery/histograms.ts)
 * selects exactly what the streaming pass does.
 */
export function selectPartitions(
  sel: PartitionSelection,
  counts: ReadonlyMap<string, number>,
  noise: NoiseSource,
): SelectedKey[] {
  const keys = [...counts.keys()].sort();
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
