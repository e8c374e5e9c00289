/**
 * How far apart two samples of one numeric column are: the two-sample Kolmogorov–Smirnov
 * statistic. The release's fidelity report, the app's Results step and the benchmarks score a
 * released column against its source with it (post-processing on values already read).
 */

/** The two-sample Kolmogorov–Smirnov statistic sup |F_a − F_b| of two ascending samples (1 if one is empty). */
export function ksTwoSample(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length === 0 || b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < a.length && j < b.length) {
    const x = Math.min(a[i], b[j]);
    while (i < a.length && a[i] <= x) i++;
    while (j < b.length && b[j] <= x) j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}
