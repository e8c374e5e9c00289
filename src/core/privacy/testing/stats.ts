/** Goodness-of-fit statistics for the sampler tests (test support only). */
import { erfc } from '../erfc.ts';

export function normalCdf(x: number, sigma = 1): number {
  return 0.5 * erfc(-x / (sigma * Math.SQRT2));
}

export function gumbelCdf(x: number, scale = 1): number {
  return Math.exp(-Math.exp(-x / scale));
}

/** The one-sample Kolmogorov–Smirnov statistic sup |F_n − F|. Sorts `samples` in place. */
export function ksStatistic(samples: Float64Array, cdf: (x: number) => number): number {
  samples.sort();
  const n = samples.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(samples[i]);
    d = Math.max(d, f - i / n, (i + 1) / n - f);
  }
  return d;
}

/** Asymptotic KS critical value: P(D > c) ≈ α for n samples. */
export function ksCritical(n: number, alpha: number): number {
  return Math.sqrt(-Math.log(alpha / 2) / (2 * n));
}

/** Pearson's χ² of observed counts against expected probabilities (which sum to 1). */
export function chiSquare(observed: readonly number[], probabilities: readonly number[]): number {
  const total = observed.reduce((a, b) => a + b, 0);
  let chi = 0;
  for (let i = 0; i < observed.length; i++) {
    const expected = total * probabilities[i];
    chi += (observed[i] - expected) ** 2 / expected;
  }
  return chi;
}

/** χ² test of homogeneity for two samples of counts over the same categories. */
export function chiSquareTwoSample(a: readonly number[], b: readonly number[]): number {
  const totalA = a.reduce((x, y) => x + y, 0);
  const totalB = b.reduce((x, y) => x + y, 0);
  let chi = 0;
  for (let i = 0; i < a.length; i++) {
    const pooled = (a[i] + b[i]) / (totalA + totalB);
    if (pooled === 0) continue;
    chi +=
      (a[i] - totalA * pooled) ** 2 / (totalA * pooled) + (b[i] - totalB * pooled) ** 2 / (totalB * pooled);
  }
  return chi;
}
