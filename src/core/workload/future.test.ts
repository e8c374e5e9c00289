import { describe, expect, it } from 'vitest';
import { futureWorkload, futureWorkloads, historicalDistribution } from './future.ts';
import { featureFrequencies, randomWorkload } from './random.ts';
import type { Workload } from './types.ts';

const D = 10;
const base = { numFeatures: D, k: 2, r: 2, size: 12, seed: 4 } as const;

describe('future (evaluation) workloads', () => {
  it('with no drift are drawn from the historical distribution itself', () => {
    const named = futureWorkload({ ...base, base: { kind: 'distribution', dist: 'zipf' }, drift: 0 });
    expect(named).toEqual(randomWorkload({ ...base, dist: 'zipf' }));
    const history = randomWorkload({ ...base, size: 20, seed: 9, dist: 'geometric' });
    const fromHistory = futureWorkload({ ...base, base: { kind: 'workload', workload: history }, drift: 0 });
    expect(fromHistory).toEqual(
      randomWorkload({ ...base, featureProbabilities: featureFrequencies(history, D) }),
    );
  });

  it('with γ = 1 move the mass of a geometric history to the last features', () => {
    const mass = (w: Workload) => featureFrequencies(w, D);
    const dist = { kind: 'distribution', dist: 'geometric' } as const;
    const kept = mass(futureWorkload({ ...base, size: 20, base: dist, drift: 0 }));
    const reversed = mass(futureWorkload({ ...base, size: 20, base: dist, drift: 1 }));
    const head = (p: number[]) => p[0] + p[1] + p[2];
    const tail = (p: number[]) => p[D - 1] + p[D - 2] + p[D - 3];
    expect(head(kept)).toBeGreaterThan(tail(kept));
    expect(tail(reversed)).toBeGreaterThan(head(reversed));
    expect(historicalDistribution(dist, D)[0]).toBeCloseTo(0.5 / (1 - 0.5 ** D), 12);
  });

  it('several workloads use seeds seed, seed + 1, …; bad counts and empty histories are refused', () => {
    const o = { ...base, base: { kind: 'distribution', dist: 'uniform' } as const, drift: 0.5 };
    const list = futureWorkloads(o, 3);
    expect(list).toHaveLength(3);
    expect(list[1]).toEqual(futureWorkload({ ...o, seed: base.seed + 1 }));
    expect(list[0]).not.toEqual(list[1]);
    expect(() => futureWorkloads(o, 0)).toThrow(/1\.\.16/);
    expect(() => futureWorkload({ ...o, base: { kind: 'workload', workload: { thresholds: [] } } })).toThrow(
      /no thresholds/,
    );
  });
});
