/**
 * zCDP accounting (Bun & Steinke 2016). ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP; we convert
 * a curator's (ε, δ) into the largest ρ with that guarantee and compose by summing ρ.
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
 * ρ = ε + 2(ln(1/δ) − √(ln(1/δ)(ε + ln(1/δ)))): the inverse of {@link epsilonFromRho}.
 * Equivalently √ρ = √(ε+l) − √l = ε / (√(ε+l) + √l) with l = ln(1/δ); the last form has no
 * cancellation (the first two lose ~log10(l/ε) digits when ε ≪ l), so the round trip holds to
 * ~1e-15 relative for every ε and δ.
 */
export function rhoFromEpsilon(epsilon: number, delta: number): number {
  assertEpsilonDelta(epsilon, delta);
  const l = -Math.log(delta);
  const d = epsilon / (Math.sqrt(epsilon + l) + Math.sqrt(l));
  return d * d;
}

/** ε = ρ + 2√(ρ ln(1/δ)). */
export function epsilonFromRho(rho: number, delta: number): number {
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
