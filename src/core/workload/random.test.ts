import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { exactThresholdAnswers } from './exact.ts';
import {
  driftDistribution,
  featureDistribution,
  featureFrequencies,
  randomWorkload,
  workloadStats,
} from './random.ts';
import { randomDataset } from './test-data.ts';

describe('featureDistribution', () => {
  it('uniform, Zipf (exponent 1) and geometric (p = 0.5) over the feature ordering', () => {
    expect(featureDistribution('uniform', 4)).toEqual([0.25, 0.25, 0.25, 0.25]);
    const z = featureDistribution('zipf', 3);
    const h = 1 + 1 / 2 + 1 / 3;
    for (const [i, v] of [1, 1 / 2, 1 / 3].entries()) expect(z[i]).toBeCloseTo(v / h, 15);
    const g = featureDistribution('geometric', 3);
    for (const [i, v] of [4 / 7, 2 / 7, 1 / 7].entries()) expect(g[i]).toBeCloseTo(v, 15);
  });
});

describe('randomWorkload', () => {
  const base = { numFeatures: 8, k: 3, r: 2, size: 20, seed: 42 };

  it('draws N distinct thresholds of k distinct features with the given r and weight (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 9 }).chain((d) =>
          fc.record({
            numFeatures: fc.constant(d),
            k: fc.integer({ min: 1, max: d }),
            dist: fc.constantFrom('uniform', 'zipf', 'geometric' as const),
            seed: fc.integer({ min: 0, max: 2 ** 40 }),
          }),
        ),
        ({ numFeatures, k, dist, seed }) => {
          const size = Math.min(
            5,
            [...Array(k)].reduce((c, _, i) => (c * (numFeatures - i)) / (i + 1), 1),
          );
          const w = randomWorkload({ numFeatures, k, r: 1, size, dist, seed, weight: 2 });
          expect(w.thresholds).toHaveLength(size);
          const keys = new Set<string>();
          for (const t of w.thresholds) {
            expect(t.features).toHaveLength(k);
            expect(new Set(t.features).size).toBe(k);
            expect([...t.features].sort((a, b) => a - b)).toEqual(t.features);
            t.features.forEach((f) => {
              expect(f).toBeGreaterThanOrEqual(0);
              expect(f).toBeLessThan(numFeatures);
            });
            expect(t.r).toBe(1);
            expect(t.weight).toBe(2);
            keys.add(t.features.join(','));
          }
          expect(keys.size).toBe(size);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is deterministic for a seed and changes with it', () => {
    expect(randomWorkload(base)).toEqual(randomWorkload(base));
    expect(randomWorkload(base)).not.toEqual(randomWorkload({ ...base, seed: 43 }));
  });

  it('can draw every k-subset when asked for all of them', () => {
    const w = randomWorkload({ ...base, numFeatures: 6, size: 20, dist: 'zipf' });
    expect(new Set(w.thresholds.map((t) => t.features.join(','))).size).toBe(20);
  });

  it('follows the skew: geometric puts feature 0 in far more thresholds than the last feature', () => {
    const w = randomWorkload({ numFeatures: 12, k: 2, r: 1, size: 30, dist: 'geometric', seed: 1 });
    const freq = featureFrequencies(w, 12);
    expect(freq[0]).toBeGreaterThan(freq[11] + 0.1);
  });

  it('never draws a zero-probability feature', () => {
    const p = [0.5, 0, 0.25, 0.25, 0];
    const w = randomWorkload({ numFeatures: 5, k: 2, r: 1, size: 3, seed: 3, featureProbabilities: p });
    for (const t of w.thresholds) expect(t.features.some((f) => p[f] === 0)).toBe(false);
  });

  it('refuses impossible requests with a clear error', () => {
    expect(() => randomWorkload({ ...base, numFeatures: 5, size: 11 })).toThrow(/only 10 distinct sets of 3/);
    expect(() => randomWorkload({ ...base, k: 9 })).toThrow(InputError);
    expect(() => randomWorkload({ ...base, r: 4 })).toThrow(/r must be an integer in 1..3/);
    expect(() => randomWorkload({ ...base, weight: 0 })).toThrow(/weight/);
    expect(() =>
      randomWorkload({ ...base, dist: 'zipf', featureProbabilities: [1, 1, 1, 1, 1, 1, 1, 1] }),
    ).toThrow(/either dist or featureProbabilities/);
    expect(() => randomWorkload({ ...base, featureProbabilities: [1, 0, 0, 1, 0, 0, 0, 0] })).toThrow(
      /only 2 features/,
    );
  });
});

describe('driftDistribution', () => {
  const hist = featureDistribution('zipf', 7);

  it('γ = 0 keeps every probability, whatever the historical order', () => {
    expect(driftDistribution(hist, 0, 1)).toEqual(hist);
    const shuffled = [0.1, 0.4, 0.2, 0.3];
    expect(driftDistribution(shuffled, 0, 5)).toEqual(shuffled);
  });

  it('γ = 1 reverses the ranking', () => {
    expect(driftDistribution(hist, 1, 1)).toEqual([...hist].reverse());
  });

  it('γ = 0.5 is a permutation that depends on the seed; every γ preserves the multiset (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 1e6 }),
        (gamma, seed) => {
          const out = driftDistribution(hist, gamma, seed);
          expect([...out].sort()).toEqual([...hist].sort());
        },
      ),
      { numRuns: 100 },
    );
    const perms = new Set([1, 2, 3, 4, 5, 6].map((s) => driftDistribution(hist, 0.5, s).join(',')));
    expect(perms.size).toBeGreaterThan(1);
  });

  it('γ = 0.5 makes the most likely feature land anywhere, about uniformly', () => {
    const d = 4;
    const h = featureDistribution('geometric', d);
    const where = new Array<number>(d).fill(0);
    for (let s = 0; s < 400; s++) where[driftDistribution(h, 0.5, s).indexOf(h[0])]++;
    for (const c of where) expect(c).toBeGreaterThan(60);
  });

  it('rejects γ outside [0, 1] and bad distributions', () => {
    expect(() => driftDistribution(hist, 1.5, 0)).toThrow(/γ/);
    expect(() => driftDistribution([0, 0], 0.2, 0)).toThrow(/all entries are 0/);
    expect(() => driftDistribution([1, -1], 0.2, 0)).toThrow(/entry 1/);
  });
});

describe('workloadStats', () => {
  it('counts queries and, once answered, the share of zero answers', () => {
    const data = randomDataset([4, 5, 3], 6, 2);
    const w = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [0, 1, 2], r: 3, weight: 1 },
      ],
    };
    const sizes = [4, 5, 3];
    const plain = workloadStats(w, sizes);
    expect(plain.queries).toBe(80n);
    expect(plain.largestThresholdQueries).toBe(60);
    expect(plain.thresholdsByK).toEqual({ 2: 1, 3: 1 });
    expect(plain.sparsity).toBeUndefined();
    const answers = w.thresholds.map((t) => exactThresholdAnswers(data, t));
    const zeros = answers.reduce((z, a) => z + a.filter((v) => v === 0).length, 0);
    const stats = workloadStats(w, sizes, answers);
    expect(stats.zeroAnswers).toBe(BigInt(zeros));
    expect(stats.sparsity).toBeCloseTo(zeros / 80, 15);
    // 6 rows hit at most 6 of the 20 cells of the first table: at least 14 zeros there.
    expect(zeros).toBeGreaterThanOrEqual(14);
  });
});
