/**
 * The standard normal upper tail Q(z) = P(Z > z) and its inverse, for thresholds whose δ is a
 * Gaussian tail probability (partition selection). Deterministic arithmetic, no noise.
 */

import { erfc } from './erfc.ts';

/** Q(z) = P(Z > z) for a standard normal Z, relative error < 1.2e-7. */
export function normalUpperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/**
 * The smallest z (to 1e-12) with Q(z)·(1 + 1.2e-7) ≤ p: a z at which the TRUE tail is at most p,
 * whatever the approximation error of erfc. p in (0, 0.5].
 */
export function normalUpperTailInverse(p: number): number {
  if (!(p > 0 && p <= 0.5)) throw new RangeError(`tail probability must be in (0, 0.5], got ${p}`);
  const bound = (z: number) => normalUpperTail(z) * (1 + 1.2e-7);
  let lo = 0;
  let hi = 1;
  while (bound(hi) > p) hi *= 2;
  while (hi - lo > 1e-12) {
    const mid = (lo + hi) / 2;
    if (bound(mid) > p) lo = mid;
    else hi = mid;
  }
  return hi;
}
