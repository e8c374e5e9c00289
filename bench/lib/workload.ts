/** A case's workload: random thresholds (public, seeded) over the dataset's features. */
import { domainSizes, type Schema } from '../../src/core/data/schema.ts';
import { driftSeed } from '../../src/core/workload/future.ts';
import { driftDistribution, featureDistribution, randomWorkload } from '../../src/core/workload/random.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import type { FutureSpec, WorkloadSpec } from './types.ts';

/** Features a spec may draw: those with at most maxDomain categories (all without it). */
function drawable(spec: WorkloadSpec, sizes: readonly number[]): number[] {
  const { maxDomain } = spec;
  return sizes.flatMap((s, f) => (maxDomain === undefined || s <= maxDomain ? [f] : []));
}

/** `sub` (one probability per drawable feature, in column order) spread over all d features. */
function spread(sub: readonly number[], features: readonly number[], d: number): number[] {
  const p = new Array<number>(d).fill(0);
  features.forEach((f, i) => {
    p[f] = sub[i];
  });
  return p;
}

export function buildWorkload(spec: WorkloadSpec, schema: Schema, seed: number): Workload {
  const sizes = domainSizes(schema);
  const { maxDomain, dist } = spec;
  const base = { numFeatures: sizes.length, k: spec.k, r: spec.r, size: spec.size, seed };
  if (dist !== undefined) {
    const features = drawable(spec, sizes);
    return randomWorkload({
      ...base,
      featureProbabilities: spread(featureDistribution(dist, features.length), features, sizes.length),
    });
  }
  return randomWorkload({
    ...base,
    ...(maxDomain !== undefined ? { featureProbabilities: sizes.map((s) => (s <= maxDomain ? 1 : 0)) } : {}),
  });
}

/**
 * The future workloads of a partial-knowledge case, drift by drift (perDrift each): the historical
 * distribution (spec.dist over the drawable features) drifted by γ (random.ts, Definition 5.2)
 * among the drawable features only, so a future threshold never reaches a feature the case
 * excludes. Seeds are distinct from the historical draw's (the case seed).
 */
export function buildFutureWorkloads(
  spec: WorkloadSpec,
  future: FutureSpec,
  schema: Schema,
  seed: number,
): { readonly drift: number; readonly workload: Workload }[] {
  const sizes = domainSizes(schema);
  const features = drawable(spec, sizes);
  const historical = featureDistribution(spec.dist ?? 'uniform', features.length);
  return future.drifts.flatMap((drift, di) =>
    Array.from({ length: future.perDrift }, (_, j) => {
      const s = 1_000_003 * (seed + 1) + di * future.perDrift + j;
      const sub = driftDistribution(historical, drift, driftSeed(s));
      const workload = randomWorkload({
        numFeatures: sizes.length,
        k: spec.k,
        r: spec.r,
        size: future.size,
        seed: s,
        featureProbabilities: spread(sub, features, sizes.length),
      });
      return { drift, workload };
    }),
  );
}
