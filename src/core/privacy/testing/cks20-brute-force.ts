/**
 * Test-only brute force for the tight zCDP → (ε, δ) conversion (Canonne, Kamath & Steinke 2020,
 * Prop. 12 / Cor. 13), written independently of accounting.ts: δ is the minimum over a dense scan
 * of α (log-spaced, zoomed in three times around the best grid point) instead of a bisection on
 * the derivative, and ρ(ε, δ) is a fixed-count bisection on that scanned δ. Both restrict α to
 * α ≥ 1.01 as private-pgm's cdp2adp.py does.
 */

const ALPHA_MIN = 1.01;
const POINTS = 2000;
const ZOOMS = 3;

/** ln δ at order α: (α − 1)(αρ − ε) + α ln(1 − 1/α) − ln(α − 1). */
function logDeltaAt(rho: number, epsilon: number, alpha: number): number {
  return (alpha - 1) * (alpha * rho - epsilon) + alpha * Math.log1p(-1 / alpha) - Math.log(alpha - 1);
}

/** min over a dense α scan of the CKS20 bound; capped at 1. */
export function bruteDelta(rho: number, epsilon: number): number {
  if (rho === 0) return 0;
  // Scan u = ln(α − 1) over [ln 0.01, ln(α_max)] with α_max well past the optimum ≈ (ε + 1)/(2ρ).
  let lo = Math.log(ALPHA_MIN - 1);
  let hi = Math.log(Math.min((epsilon + 1) / rho + 4, 1e300));
  let best = Number.POSITIVE_INFINITY;
  for (let zoom = 0; zoom <= ZOOMS; zoom++) {
    const step = (hi - lo) / POINTS;
    let bestU = lo;
    for (let i = 0; i <= POINTS; i++) {
      const u = lo + i * step;
      const v = logDeltaAt(rho, epsilon, 1 + Math.exp(u));
      if (v < best) {
        best = v;
        bestU = u;
      }
    }
    lo = Math.max(Math.log(ALPHA_MIN - 1), bestU - 2 * step);
    hi = bestU + 2 * step;
  }
  return Math.min(1, Math.exp(best));
}

/** The largest ρ with bruteDelta(ρ, ε) ≤ δ, by 70 bisection steps on [0, ε + 1] (2⁻⁷⁰(ε + 1) ≪ 1e-9·ρ here). */
export function bruteRho(epsilon: number, delta: number): number {
  let lo = 0;
  let hi = epsilon + 1;
  for (let i = 0; i < 70; i++) {
    const mid = (lo + hi) / 2;
    if (bruteDelta(mid, epsilon) <= delta) lo = mid;
    else hi = mid;
  }
  return lo;
}
