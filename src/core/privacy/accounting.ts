/**
 * zCDP accounting (Bun & Steinke 2016). A curator's (ε, δ) is converted into the largest ρ whose
 * ρ-zCDP implies (ε, δ)-DP by the tight bound of Canonne, Kamath & Steinke 2020, and spends
 * compose by summing ρ.
 */

export function assertEpsilonDelta(epsilon: number, delta: number): void {
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon <= 0) {
    throw new RangeError(`epsilon must be a finite number > 0, got ${String(epsilon)}`);
  }
  assertDelta(delta);
}

function assertDelta(delta: number): void {
  if (typeof delta !== 'number' || !Number.isFinite(delta) || delta <= 0 || delta >= 1) {
    throw new RangeError(`delta must be a number with 0 < delta < 1, got ${String(delta)}`);
  }
}

function assertRho(rho: number, what = 'rho'): void {
  if (typeof rho !== 'number' || !Number.isFinite(rho) || rho < 0) {
    throw new RangeError(`${what} must be a finite number >= 0, got ${String(rho)}`);
  }
}

function assertPositiveRho(rho: number): void {
  assertRho(rho);
  if (rho === 0) throw new RangeError('rho must be > 0');
}

function assertCount(value: number, what: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${what} must be an integer >= ${min}, got ${String(value)}`);
  }
}

/**
 * The tight conversion of Canonne, Kamath & Steinke 2020 ("The Discrete Gaussian for Differential
 * Privacy", Prop. 12 / Cor. 13; private-pgm's `cdp2adp.py`, which AIM uses): ρ-zCDP implies
 * (ε, δ)-DP for every α > 1 with
 *
 *   δ = exp((α − 1)(αρ − ε) + α·ln(1 − 1/α)) / (α − 1),
 *
 * and {@link deltaFromRho} takes the best α. Any α gives a valid δ, so an α found only
 * approximately errs on the safe side (a larger δ). The log of the bound is convex in α and its
 * derivative is (2α − 1)ρ − ε + ln(1 − 1/α), so the best α is found by bisection on the sign of
 * the derivative, down to adjacent doubles. As in cdp2adp.py α stays ≥ 1.01 (the optimum is at
 * least (1 + ε/ρ)/2, so that only binds when ε ≲ ρ, where δ is large anyway).
 *
 * At δ = 1/n² on ADULT (n = 48,842) it gives 1.45× the ρ of the bound below at ε = 0.1 and
 * 1.26× at ε = 1 (accounting.test.ts).
 */
export function deltaFromRho(rho: number, epsilon: number): number {
  assertRho(rho);
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon < 0) {
    throw new RangeError(`epsilon must be a finite number >= 0, got ${String(epsilon)}`);
  }
  if (rho === 0) return 0;
  // The derivative of ln δ in α is negative below the best α and positive above it.
  const [, alpha] = bisect(
    MIN_ALPHA,
    // Finite even for a subnormal ρ, where (ε + 1)/(2ρ) overflows.
    Math.min((epsilon + 1) / (2 * rho) + 2, 1e300),
    (a) => (2 * a - 1) * rho - epsilon + Math.log1p(-1 / a) < 0,
  );
  return Math.min(1, deltaAtAlpha(rho, epsilon, alpha));
}

/** cdp2adp.py's floor on α, for numerical stability near α = 1. */
const MIN_ALPHA = 1.01;

/** The CKS20 bound at one order α > 1 (valid for every α; {@link deltaFromRho} minimises it). */
export function deltaAtAlpha(rho: number, epsilon: number, alpha: number): number {
  return Math.exp((alpha - 1) * (alpha * rho - epsilon) + alpha * Math.log1p(-1 / alpha)) / (alpha - 1);
}

/**
 * The largest ρ whose ρ-zCDP implies (ε, δ)-DP by {@link deltaFromRho}: the budget a curator's
 * (ε, δ) buys. δ(ρ, ε) increases with ρ, so this is a bisection down to adjacent doubles that
 * keeps the lower end (δ(ρ, ε) ≤ δ always holds for the result). The search starts from the
 * closed-form bound {@link looseRhoFromEpsilon}, which the tight ρ never falls below.
 */
export function rhoFromEpsilon(epsilon: number, delta: number): number {
  assertEpsilonDelta(epsilon, delta);
  let lo = looseRhoFromEpsilon(epsilon, delta);
  // The loose ρ is valid, but keep the invariant δ(lo) ≤ δ exactly as computed here.
  if (deltaFromRho(lo, epsilon) > delta) lo = 0;
  let hi = Math.max(2 * lo, Number.MIN_VALUE);
  while (deltaFromRho(hi, epsilon) <= delta) hi *= 2;
  return bisect(lo, hi, (rho) => deltaFromRho(rho, epsilon) <= delta)[0];
}

/**
 * The smallest ε such that ρ-zCDP implies (ε, δ)-DP by {@link deltaFromRho} (the inverse of
 * {@link rhoFromEpsilon}): how a spend or a remaining ρ is shown as ε. Bisection between 0 and
 * the closed-form ε = ρ + 2√(ρ ln(1/δ)), keeping the upper end (the ε returned is always valid).
 */
export function epsilonFromRho(rho: number, delta: number): number {
  assertRho(rho);
  assertDelta(delta);
  // A tiny ρ at a large δ can imply (0, δ)-DP already (e.g. ρ = 1e-9, δ = 0.5).
  if (rho === 0 || deltaFromRho(rho, 0) <= delta) return 0;
  let hi = looseEpsilonFromRho(rho, delta);
  while (deltaFromRho(rho, hi) > delta) hi *= 2;
  // δ is too large below the answer and holds from it on: keep the upper end.
  return bisect(0, hi, (eps) => deltaFromRho(rho, eps) > delta)[1];
}

/**
 * The boundary of a predicate that holds on [lo, b) and fails on [b, hi] (or the reverse, by
 * negating it), bisected down to adjacent doubles: returns [last x where it holds, first where
 * it fails].
 */
function bisect(lo: number, hi: number, holdsBelow: (x: number) => boolean): [number, number] {
  for (;;) {
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) return [lo, hi];
    if (holdsBelow(mid)) lo = mid;
    else hi = mid;
  }
}

/**
 * The closed-form but loose conversion of Bun & Steinke 2016 (Prop. 1.3): ρ-zCDP implies
 * (ρ + 2√(ρ ln(1/δ)), δ)-DP, so ρ = (√(ε + l) − √l)² with l = ln(1/δ), computed as
 * (ε / (√(ε+l) + √l))² (no cancellation). Used only as the bracket of the tight searches and to
 * recognise the caps of ledgers written before the tight conversion (ledger migration).
 */
export function looseRhoFromEpsilon(epsilon: number, delta: number): number {
  assertEpsilonDelta(epsilon, delta);
  const l = -Math.log(delta);
  const d = epsilon / (Math.sqrt(epsilon + l) + Math.sqrt(l));
  return d * d;
}

/** ε = ρ + 2√(ρ ln(1/δ)): the inverse of {@link looseRhoFromEpsilon} (an upper bound on the tight ε). */
export function looseEpsilonFromRho(rho: number, delta: number): number {
  assertRho(rho);
  assertDelta(delta);
  return rho + 2 * Math.sqrt(rho * -Math.log(delta));
}

/** zCDP composes additively: running ρ₁-, ρ₂-, … zCDP mechanisms is (Σρᵢ)-zCDP. */
export function composeRho(rhos: readonly number[]): number {
  let total = 0;
  for (const rho of rhos) {
    assertRho(rho, 'each rho');
    total += rho;
  }
  return total;
}

/** ρ for each of T rounds of an adaptive run: ρ/T (composition makes the total ρ again). */
export function splitRho(rho: number, T: number): number {
  assertPositiveRho(rho);
  assertCount(T, 'T (rounds)', 1);
  return rho / T;
}

export interface RoundBudget {
  /** ρ spent on choosing queries in one round (report-noisy-max / one-shot top-K). */
  readonly select: number;
  /** ρ spent on measuring the chosen queries in one round (Gaussian mechanism). */
  readonly measure: number;
}

/** Per-round budget: ρ/T, half to selection and half to measurement (as in RAP, Aydore et al.). */
export function roundBudget(rho: number, T: number): RoundBudget {
  const half = splitRho(rho, T) / 2;
  return { select: half, measure: half };
}

/** The δ the papers use: 1/n², far below the 1/n at which DP stops meaning anything. */
export function defaultDelta(n: number): number {
  assertCount(n, 'n (number of records)', 2);
  return 1 / (n * n);
}

/**
 * A warning when δ ≥ 1/n: such a δ permits a mechanism that publishes a random record in the
 * clear, so it is no meaningful privacy guarantee. null when δ < 1/n.
 */
export function deltaWarning(delta: number, n: number): string | null {
  assertDelta(delta);
  assertCount(n, 'n (number of records)', 1);
  if (delta < 1 / n) return null;
  return (
    `delta = ${delta} is at least 1/n = ${1 / n} for n = ${n} records: such a delta allows ` +
    `publishing individual records outright. Use delta <= 1/n^2 = ${1 / (n * n)}.`
  );
}
