/**
 * E[max_i |Z_i|] over m independent standard normals, without drawing any noise: the expected
 * max error of m cells measured with the Gaussian mechanism is σ times it (the GM baseline,
 * baselines/gm-tables.ts; the direct-plan rule, defaults.ts). Computed as
 *   E[max_i |Z_i|] = ∫_0^∞ 1 − (1 − 2Q(x))^m dx,   Q = the standard normal upper tail,
 * by numerical integration: deterministic, data-independent and O(1) for any m.
 */ import { erfc } from '../privacy/erfc.ts';

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
