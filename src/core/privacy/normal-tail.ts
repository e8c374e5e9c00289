/**
 * The standard normal upper tail Q(z) = P(Z > z) and its inverse, for thresholds whose δ is a
 * Gaussian tail probability (partition selection). Deterministic arithmetic, no noise.
 */

/** erfc with relative error < 1.2e-7 everywhere (Numerical Recipes' Chebyshev fit). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

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
