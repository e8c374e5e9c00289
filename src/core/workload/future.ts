/**
 * Partial knowledge (Avent & Korolova, second setting): the curator knows a historical workload
 * and the release must also answer future ones, whose features follow the historical
 * distribution moved by a drift γ (Definition 5.2, random.ts' driftDistribution). This module
 * draws such evaluation workloads; the CLI's `workload random --drift γ --from hist.json` and
 * the app's evaluation-workload generator both call it. Workloads are public: the seeded PRNG
 * is not privacy noise.
 */
import { InputError } from '../errors.ts';
import {
  driftDistribution,
  type FeatureDistribution,
  featureDistribution,
  featureFrequencies,
  randomWorkload,
} from './random.ts';
import type { Workload } from './types.ts';

/** Where the historical feature distribution comes from. */
export type HistoricalBase =
  | { readonly kind: 'workload'; readonly workload: Workload }
  | { readonly kind: 'distribution'; readonly dist: FeatureDistribution };

export interface FutureWorkloadOptions {
  readonly numFeatures: number;
  readonly base: HistoricalBase;
  /** γ in [0, 1]: 0 keeps the historical distribution, 0.5 a random permutation, 1 reverses it. */
  readonly drift: number;
  readonly k: number;
  readonly r: number;
  readonly size: number;
  readonly seed: number;
  readonly weight?: number;
}

/** The historical feature distribution: a workload's feature frequencies or a named one. */
export function historicalDistribution(base: HistoricalBase, numFeatures: number): number[] {
  return base.kind === 'workload'
    ? featureFrequencies(base.workload, numFeatures)
    : featureDistribution(base.dist, numFeatures);
}

/**
 * The drift keys get their own seed, derived from the workload seed, so that γ = 0 (no drift)
 * reproduces exactly the workload drawn from the historical distribution itself.
 */
export function driftSeed(seed: number): number {
  const high = Math.floor(seed / 2 ** 32);
  return high * 2 ** 32 + ((seed ^ 0x68e31da4) >>> 0);
}

/** One evaluation workload drawn from the drifted historical distribution. */
export function futureWorkload(o: FutureWorkloadOptions): Workload {
  const historical = historicalDistribution(o.base, o.numFeatures);
  if (!historical.some((p) => p > 0)) {
    throw new InputError(
      'the historical workload has no thresholds: it gives no feature distribution to drift',
    );
  }
  return randomWorkload({
    numFeatures: o.numFeatures,
    k: o.k,
    r: o.r,
    size: o.size,
    seed: o.seed,
    ...(o.weight !== undefined ? { weight: o.weight } : {}),
    featureProbabilities: driftDistribution(historical, o.drift, driftSeed(o.seed)),
  });
}

/** `count` evaluation workloads, the i-th drawn (drift and thresholds) with seed + i. */
export function futureWorkloads(o: FutureWorkloadOptions, count: number): Workload[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_EVAL_WORKLOADS) {
    throw new InputError(
      `the number of evaluation workloads must be an integer in 1..${MAX_EVAL_WORKLOADS}, got ${count}`,
    );
  }
  return Array.from({ length: count }, (_, i) => futureWorkload({ ...o, seed: o.seed + i }));
}

/** Evaluation workloads per run: each is answered in full after the run (exact and synthetic). */
export const MAX_EVAL_WORKLOADS = 16;
