/**
 * The Gaussian mechanism for normalized counting queries under zCDP.
 *
 * Neighbouring datasets differ in one record (replace-one) and n is public. A counting query
 * answered as a fraction of n changes by at most 1/n, so m such queries measured together have
 * ℓ2 sensitivity Δ₂ = √m / n. Adding N(0, σ²) to each, with σ = Δ₂ / √(2ρ), is ρ-zCDP
 * (Bun & Steinke 2016, Prop. 1.6); this is Avent–Korolova Def. 2.10 composed over m queries.
 */
import type { NoiseSource } from './noise.ts';

function assertPositiveFinite(value: number, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a finite number > 0, got ${String(value)}`);
  }
}

function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${what} must be an integer >= 1, got ${String(value)}`);
  }
}

/** σ = √(m / (2ρ)) / n: the noise for m normalized counting queries measured at total ρ. */
export function gaussianSigma(rho: number, m: number, n: number): number {
  assertPositiveFinite(rho, 'rho');
  assertCount(m, 'm (number of queries)');
  assertCount(n, 'n (number of records)');
  return Math.sqrt(m / (2 * rho)) / n;
}

/** The ρ that measuring m normalized counting queries with noise σ costs: m / (2 n² σ²). */
export function gaussianRho(sigma: number, m: number, n: number): number {
  assertPositiveFinite(sigma, 'sigma');
  assertCount(m, 'm (number of queries)');
  assertCount(n, 'n (number of records)');
  return m / (2 * n * n * sigma * sigma);
}

/** Bits of grid below σ: outputs are multiples of g = 2^(⌊log₂σ⌋ − 12), so σ/8192 < g ≤ σ/4096. */
const GRID_BITS_BELOW_SIGMA = 12;

/** The power-of-two grid that gaussianMechanism rounds its outputs to. */
export function snapGrid(sigma: number): number {
  assertPositiveFinite(sigma, 'sigma');
  return 2 ** (Math.floor(Math.log2(sigma)) - GRID_BITS_BELOW_SIGMA);
}

/**
 * Returns values[i] + N(0, σ²), each rounded to the nearest multiple of g = snapGrid(σ).
 *
 * Why the rounding: a float x + w carries low-order bits that depend on x, so the set of possible
 * outputs can reveal x (Mironov 2012). Here the exact real sum x + w (recovered with TwoSum) is
 * rounded to the grid, which is post-processing of the Gaussian mechanism, and every output is a
 * multiple of g whatever x is. Float error in w (a few ulps of |w|) only moves cell boundaries by
 * about (|w|/σ)·2^-37 of a cell, far below any privacy-relevant level; the rounding adds variance
 * g²/12 < σ²·2^-27.
 */
export function gaussianMechanism(values: Float64Array, sigma: number, noise: NoiseSource): Float64Array {
  const grid = snapGrid(sigma);
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (!Number.isFinite(x)) throw new RangeError(`value ${i} is not a finite number: ${x}`);
    out[i] = roundSumToGrid(x, sigma * noise.normal(), grid);
  }
  return out;
}

/** Largest |x + w| / g for which the grid multiple is exact and the rounding below is valid. */
const MAX_GRID_STEPS = 2 ** 52;

/**
 * The multiple of `grid` (a power of two) nearest to the exact real x + w, ties to even.
 * s + e = x + w exactly (Knuth's TwoSum). k = Math.round(q) for q = s/g (exact: g is a power of
 * two) leaves d = q − k in [−0.5, 0.5), computed exactly (Sterbenz). Because |e/g| ≤ ulp(q)/2
 * while d and 0.5 are multiples of ulp(q) for |q| < 2^52, e can only matter when d = −0.5
 * exactly; then its sign says on which side of the half-way point the true sum lies.
 */
export function roundSumToGrid(x: number, w: number, grid: number): number {
  const s = x + w;
  const back = s - x;
  const e = x - (s - back) + (w - back);
  const q = s / grid;
  if (!(Math.abs(q) < MAX_GRID_STEPS)) {
    // No number from the sum in the message: value + noise is unsnapped, and the message may be
    // logged or shown; only the grid (public, from σ) is quoted.
    throw new RangeError(
      `a noisy value is too large for noise grid ${grid}: the noise is below float resolution of ` +
        'the value, so it cannot be added safely',
    );
  }
  let k = Math.round(q);
  if (q - k === -0.5 && (e < 0 || (e === 0 && k % 2 !== 0))) k -= 1;
  // + 0 turns −0 into +0: the sign of a zero must not carry information either.
  return k * grid + 0;
}
