/** A case's workload: random thresholds (public, seeded) over the dataset's features. */
import { domainSizes, type Schema } from '../../src/core/data/schema.ts';
import { randomWorkload } from '../../src/core/workload/random.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import type { WorkloadSpec } from './types.ts';

export function buildWorkload(spec: WorkloadSpec, schema: Schema, seed: number): Workload {
  const sizes = domainSizes(schema);
  const { maxDomain } = spec;
  return randomWorkload({
    numFeatures: sizes.length,
    k: spec.k,
    r: spec.r,
    size: spec.size,
    seed,
    ...(maxDomain !== undefined ? { featureProbabilities: sizes.map((s) => (s <= maxDomain ? 1 : 0)) } : {}),
  });
}
