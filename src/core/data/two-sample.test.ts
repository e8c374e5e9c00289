import { describe, expect, it } from 'vitest';
import { seededNoise } from '../privacy/noise.ts';
import { ksTwoSample } from './two-sample.ts';

/** sup |F_a − F_b| by brute force: both empirical CDFs at every value either sample takes. */
function bruteForce(a: readonly number[], b: readonly number[]): number {
  const cdf = (s: readonly number[], x: number) => s.filter((v) => v <= x).length / s.length;
  return Math.max(0, ...[...a, ...b].map((x) => Math.abs(cdf(a, x) - cdf(b, x))));
}

describe('ksTwoSample', () => {
  it('equals the brute-force supremum on random samples with ties', () => {
    const noise = seededNoise(7);
    for (let trial = 0; trial < 200; trial++) {
      const draw = (n: number) =>
        Array.from({ length: n }, () => Math.floor(noise.uniform() * 6)).sort((x, y) => x - y);
      const a = draw(1 + Math.floor(noise.uniform() * 12));
      const b = draw(1 + Math.floor(noise.uniform() * 12));
      expect(ksTwoSample(a, b)).toBeCloseTo(bruteForce(a, b), 12);
    }
  });

  it('is 0 for equal samples and 1 for disjoint ones or an empty one', () => {
    expect(ksTwoSample([1, 2, 3], [1, 2, 3])).toBe(0);
    expect(ksTwoSample([1, 2], [3, 4])).toBe(1);
    expect(ksTwoSample([], [1])).toBe(1);
  });
});
