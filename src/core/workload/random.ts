/**
 * Random workloads for experiments and the drift model of the paper (Definition 5.2). Features
 * are drawn from a distribution over the feature ordering (schema column order: feature 0 is the
 * most likely under Zipf and geometric):
 *   uniform:   p_i ∝ 1
 *   zipf:      p_i ∝ 1 / (i + 1)        (exponent 1)
 *   geometric: p_i ∝ 0.5^(i + 1)        (p = 0.5, truncated to the d features and renormalized)
 * Workloads are public, so the seeded PRNG here is not privacy noise.
 */
import { InputError } from '../errors.ts';
import { binomial } from './inclusion-exclusion.ts';
import { type Rng, seededRng } from './prng.ts';
import type { Threshold, Workload } from './types.ts';

export { type WorkloadStats, workloadStats } from './stats.ts';

export type FeatureDistribution = 'uniform' | 'zipf' | 'geometric';

export interface RandomWorkloadOptions {
  readonly numFeatures: number;
  readonly k: number;
  readonly r: number;
  /** Number N of distinct thresholds. */
  readonly size: number;
  /** Default 'uniform'; not allowed together with featureProbabilities. */
  readonly dist?: FeatureDistribution;
  readonly seed: number;
  /** Weight of every threshold (default 1). */
  readonly weight?: number;
  /** Explicit probability (or any non-negative weight) per feature, e.g. from driftDistribution. */
  readonly featureProbabilities?: readonly number[];
}

/** The probabilities of a named distribution over d features (they sum to 1). */
export function featureDistribution(dist: FeatureDistribution, d: number): number[] {
  const raw = Array.from({ length: d }, (_, i) => {
    if (dist === 'uniform') return 1;
    if (dist === 'zipf') return 1 / (i + 1);
    return 0.5 ** (i + 1);
  });
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((p) => p / total);
}

function assertProbabilities(p: readonly number[], what: string): void {
  if (p.length === 0) throw new InputError(`${what}: the distribution is empty`);
  p.forEach((v, i) => {
    if (!Number.isFinite(v) || v < 0)
      throw new InputError(`${what}: entry ${i} is ${v}; use finite numbers >= 0`);
  });
  if (!(p.reduce((a, b) => a + b, 0) > 0)) throw new InputError(`${what}: all entries are 0`);
}

/** k distinct features drawn one by one without replacement, ∝ weights; ascending. */
function drawFeatures(weights: readonly number[], k: number, rng: Rng): number[] {
  const w = [...weights];
  let total = w.reduce((a, b) => a + b, 0);
  const chosen: number[] = [];
  for (let n = 0; n < k; n++) {
    let u = rng() * total;
    let pick = -1;
    for (let f = 0; f < w.length; f++) {
      if (w[f] <= 0) continue;
      pick = f;
      u -= w[f];
      if (u < 0) break;
    }
    // pick ends on the last positive feature if rounding left u >= 0.
    chosen.push(pick);
    total -= w[pick];
    w[pick] = 0;
  }
  return chosen.sort((a, b) => a - b);
}

function checkOptions(o: RandomWorkloadOptions): void {
  const int = (name: string, v: number, lo: number, hi: number): void => {
    if (!Number.isInteger(v) || v < lo || v > hi)
      throw new InputError(`${name} must be an integer in ${lo}..${hi}, got ${v}`);
  };
  int('numFeatures', o.numFeatures, 1, Number.MAX_SAFE_INTEGER);
  int('k', o.k, 1, o.numFeatures);
  int('r', o.r, 1, o.k);
  int('size', o.size, 1, Number.MAX_SAFE_INTEGER);
  const weight = o.weight ?? 1;
  if (!Number.isFinite(weight) || weight <= 0)
    throw new InputError(`weight must be a finite number > 0, got ${weight}`);
  if (o.dist !== undefined && o.featureProbabilities !== undefined) {
    throw new InputError('give either dist or featureProbabilities, not both');
  }
}

/**
 * N distinct thresholds of k features (drawn without replacement within a threshold) and the
 * given r, each listing its features in ascending (schema) order. Deterministic for a seed.
 */
export function randomWorkload(o: RandomWorkloadOptions): Workload {
  checkOptions(o);
  const weights = o.featureProbabilities
    ? [...o.featureProbabilities]
    : featureDistribution(o.dist ?? 'uniform', o.numFeatures);
  if (weights.length !== o.numFeatures) {
    throw new InputError(
      `featureProbabilities has ${weights.length} entries but there are ${o.numFeatures} features`,
    );
  }
  assertProbabilities(weights, 'featureProbabilities');
  const possible = weights.filter((p) => p > 0).length;
  if (possible < o.k) {
    throw new InputError(`only ${possible} features have positive probability; a threshold needs k = ${o.k}`);
  }
  if (binomial(possible, o.k) < o.size) {
    throw new InputError(
      `only ${binomial(possible, o.k)} distinct sets of ${o.k} features exist among the ${possible} drawable features; ` +
        `ask for at most that many thresholds (size ${o.size})`,
    );
  }
  const rng = seededRng(o.seed);
  const seen = new Set<string>();
  const thresholds: Threshold[] = [];
  // Rejection of repeats; a very concentrated distribution may make the last sets too rare.
  const maxAttempts = 1000 * o.size + 100_000;
  for (let attempt = 0; thresholds.length < o.size; attempt++) {
    if (attempt >= maxAttempts) {
      throw new InputError(
        `drew only ${thresholds.length} distinct thresholds in ${maxAttempts} attempts: the feature distribution ` +
          `is too concentrated for ${o.size} distinct sets of ${o.k}; ask for fewer or use --dist uniform`,
      );
    }
    const features = drawFeatures(weights, o.k, rng);
    const key = features.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    thresholds.push({ features, r: o.r, weight: o.weight ?? 1 });
  }
  return { thresholds };
}

/**
 * Share of threshold memberships per feature: the empirical feature distribution of a workload
 * (e.g. a historical one, as the base of driftDistribution).
 */
export function featureFrequencies(w: Workload, numFeatures: number): number[] {
  const counts = new Array<number>(numFeatures).fill(0);
  let total = 0;
  for (const t of w.thresholds) {
    for (const f of t.features) {
      if (!(f >= 0 && f < numFeatures))
        throw new RangeError(`feature index ${f} is outside 0..${numFeatures - 1}`);
      counts[f]++;
      total++;
    }
  }
  return counts.map((c) => (total > 0 ? c / total : 0));
}

/**
 * The paper's drift (Definition 5.2): rank features by historical probability (i = 1 the most
 * likely; ties by feature index), draw keys k_i = (1−2γ)(d−i)/(d−1) + (1−|1−2γ|)·u_i with
 * u_i ~ U(0,1), and hand the historical probabilities, largest first, to the features in
 * descending key order. γ = 0 keeps every feature's probability, γ = 1 reverses the ranking,
 * γ = 0.5 is a uniformly random permutation. Ranking by the historical probabilities (rather than
 * by column order) makes γ = 0 the identity for any historical distribution; for one that
 * decreases along the column order (Zipf, geometric) the two coincide.
 */
export function driftDistribution(historical: readonly number[], gamma: number, seed: number): number[] {
  assertProbabilities(historical, 'historical distribution');
  if (!(gamma >= 0 && gamma <= 1)) throw new InputError(`drift γ must be in [0, 1], got ${gamma}`);
  const d = historical.length;
  if (d === 1) return [...historical];
  const rng = seededRng(seed);
  const byRank = historical.map((_, f) => f).sort((a, b) => historical[b] - historical[a] || a - b);
  const keys = new Array<number>(d);
  byRank.forEach((feature, rank) => {
    const i = rank + 1;
    keys[feature] = ((1 - 2 * gamma) * (d - i)) / (d - 1) + (1 - Math.abs(1 - 2 * gamma)) * rng();
  });
  const byKey = historical.map((_, f) => f).sort((a, b) => keys[b] - keys[a] || a - b);
  const sortedProbabilities = byRank.map((f) => historical[f]);
  const out = new Array<number>(d);
  byKey.forEach((feature, j) => {
    out[feature] = sortedProbabilities[j];
  });
  return out;
}
