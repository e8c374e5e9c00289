/**
 * The GM baseline's error without drawing any noise: if all m queries were measured with the
 * Gaussian mechanism at the full ρ (σ = √(m/(2ρ))/n), the present error would be σ·max_i |Z_i|
 * for m standard normals. We report its expectation,
 *   E[max_i |Z_i|] = ∫_0^∞ 1 − (1 − 2Q(x))^m dx,   Q = the standard normal upper tail,
 * by numerical integration: deterministic, data-independent and O(1) for any m (drawing 10^8
 * normals would cost seconds and add nothing).
 */
import { erfc } from '../privacy/erfc.ts';

/** E[max of |Z_i|] over m independent standard normals. */
export function expectedMaxAbsNormal(m: number): number {
  if (!(m >= 1)) throw new RangeError(`m must be >= 1, got ${m}`);
  // P(max > x) = 1 − (1 − 2Q(x))^m; negligible beyond the bulk at √(2 ln 2m) + 12.
  const upper = Math.sqrt(2 * Math.log(2 * m)) + 12;
  const steps = 4000;
  const h = upper / steps;
  const tail = (x: number): number => {
    const twoQ = erfc(x / Math.SQRT2);
    return -Math.expm1(m * Math.log1p(-Math.min(twoQ, 1 - 1e-300)));
  };
  // Simpson's rule.
  let sum = tail(0) + tail(upper);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * tail(i * h);
  return (sum * h) / 3;
}

export function gaussianBaselineError(sigma: number, m: number): number {
  return sigma * expectedMaxAbsNormal(m);
}
