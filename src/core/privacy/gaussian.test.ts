import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from './accounting.ts';
import { gaussianMechanism, gaussianRho, gaussianSigma, roundSumToGrid, snapGrid } from './gaussian.ts';
import { seededNoise } from './noise.ts';
import { ksCritical, ksStatistic, normalCdf } from './testing/stats.ts';

/** A double as an exact integer multiple of 2^-1074 (every finite double is one). */
function exactUnits(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const units = mantissa << BigInt(Math.max(exponent, 1) - 1);
  return negative ? -units : units;
}

/** Brute force: the multiple of grid nearest to the exact x + w, ties to even, in big integers. */
function exactRound(x: number, w: number, grid: number): number {
  const sum = exactUnits(x) + exactUnits(w);
  const step = exactUnits(grid);
  let k = sum / step;
  let remainder = sum - k * step;
  if (remainder < 0n) {
    k -= 1n;
    remainder += step;
  }
  const twice = 2n * remainder;
  if (twice > step || (twice === step && k % 2n !== 0n)) k += 1n;
  return Number(k) * grid;
}

describe('gaussianSigma', () => {
  it('matches hand-computed values σ = √(m / 2ρ) / n', () => {
    // √(100 / 0.01) = 100, / 48842
    expect(gaussianSigma(0.005, 100, 48842)).toBeCloseTo(0.002047418205642685, 17);
    // √(1 / 1) / 1000
    expect(gaussianSigma(0.5, 1, 1000)).toBeCloseTo(0.001, 18);
    // ADULT at ε = 1, δ = 1/n², 10 rounds, half of each round measuring 64 queries; ρ by the
    // tight conversion (issue 19: 0.0142703…, was 0.0113174… with the loose one, σ 0.0048688).
    const rho = rhoFromEpsilon(1, 1 / 48842 ** 2) / 10 / 2;
    expect(gaussianSigma(rho, 64, 48842)).toBeCloseTo(0.004335900868030868, 15);
  });

  it('is ρ-zCDP by definition: Δ₂² / (2σ²) = ρ with Δ₂ = √m / n (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 100, noNaN: true }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        (rho, m, n) => {
          const sigma = gaussianSigma(rho, m, n);
          const l2Sensitivity = Math.sqrt(m) / n;
          expect(Math.abs(l2Sensitivity ** 2 / (2 * sigma ** 2) - rho) / rho).toBeLessThan(1e-12);
          expect(Math.abs(gaussianRho(sigma, m, n) - rho) / rho).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('measuring m queries at ρ equals measuring each at ρ/m (composition)', () => {
    expect(gaussianSigma(0.2, 50, 1000)).toBeCloseTo(gaussianSigma(0.2 / 50, 1, 1000), 15);
  });

  it('rejects bad parameters', () => {
    expect(() => gaussianSigma(0, 1, 10)).toThrow(RangeError);
    expect(() => gaussianSigma(0.1, 0, 10)).toThrow(RangeError);
    expect(() => gaussianSigma(0.1, 1, 2.5)).toThrow(RangeError);
    expect(() => gaussianSigma(Number.POSITIVE_INFINITY, 1, 10)).toThrow(RangeError);
  });
});

describe('gaussianMechanism', () => {
  it('adds N(0, σ²) at several scales (KS on (y − x)/σ, seeded)', () => {
    const n = 40_000;
    for (const sigma of [1e-5, 0.003, 2]) {
      const values = new Float64Array(n).fill(0.37);
      const noisy = gaussianMechanism(values, sigma, seededNoise(`mechanism-${sigma}`));
      const residuals = noisy.map((y, i) => (y - values[i]) / sigma);
      expect(ksStatistic(residuals, (x) => normalCdf(x))).toBeLessThan(ksCritical(n, 1e-4));
    }
  });

  it('returns a new array and leaves the input alone', () => {
    const values = new Float64Array([0.1, 0.2, 0.3]);
    const noisy = gaussianMechanism(values, 0.01, seededNoise(1));
    expect(noisy).not.toBe(values);
    expect(Array.from(values)).toEqual([0.1, 0.2, 0.3]);
    expect(noisy.length).toBe(3);
  });

  it('puts every output on the σ-derived power-of-two grid, whatever the input’s low bits', () => {
    const sigma = 0.0123;
    const grid = snapGrid(sigma);
    expect(grid).toBe(2 ** -19); // ⌊log₂ 0.0123⌋ = −7, minus 12
    expect(sigma / 8192 < grid && grid <= sigma / 4096).toBe(true);
    // Inputs differing only in their last bits must give outputs on the same lattice.
    const values = new Float64Array(2000).map((_, i) => (i % 2 ? 1 / 3 : 1 / 3 + 2 ** -54) + i * 1e-17);
    const noisy = gaussianMechanism(values, sigma, seededNoise('grid'));
    for (const y of noisy) expect(Number.isInteger(y / grid)).toBe(true);
  });

  it('rejects non-finite values and σ ≤ 0', () => {
    const noise = seededNoise(1);
    expect(() => gaussianMechanism(new Float64Array([Number.NaN]), 0.1, noise)).toThrow(/value 0/);
    expect(() => gaussianMechanism(new Float64Array([0.5]), 0, noise)).toThrow(RangeError);
    expect(() => gaussianMechanism(new Float64Array([0.5]), -1, noise)).toThrow(RangeError);
  });

  it('refuses noise below the float resolution of the value', () => {
    expect(() => gaussianMechanism(new Float64Array([1e6]), 1e-12, seededNoise(1))).toThrow(
      /float resolution/,
    );
  });
});

describe('roundSumToGrid (exact rounding of the real sum x + w)', () => {
  it('refuses a sum past the grid without quoting the unsnapped value + noise', () => {
    const x = 123456789e10;
    const w = 0.5;
    let message = '';
    try {
      roundSumToGrid(x, w, 0.125);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/too large for noise grid/);
    expect(message).not.toContain(String(x + w));
    expect(message).not.toMatch(/1234|e\+18|1\.2/);
  });

  it('equals big-integer rounding of the exact sum (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -4, max: 4, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.integer({ min: -45, max: 2 }),
        (x, w, gridExponent) => {
          const grid = 2 ** gridExponent;
          fc.pre(Math.abs((x + w) / grid) < 2 ** 51);
          expect(roundSumToGrid(x, w, grid)).toBe(exactRound(x, w, grid));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rounds correctly near half-way points, where the float sum loses the deciding bits (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 20), max: 2 ** 20 }),
        fc.integer({ min: -30, max: 0 }),
        fc.double({ min: -(2 ** -40), max: 2 ** -40, noNaN: true }),
        (k, gridExponent, w) => {
          const grid = 2 ** gridExponent;
          const x = (k + 0.5) * grid;
          expect(roundSumToGrid(x, w, grid)).toBe(exactRound(x, w, grid));
        },
      ),
      { numRuns: 2000 },
    );
    // Found by the property above: q − ⌊q⌋ is not exact for −1 < q < −0.5.
    expect(roundSumToGrid(-5e-324, -0.9999999999999999, 2)).toBe(0);
  });

  it('uses the bits lost by x + w when the float sum sits exactly on a half-grid point', () => {
    const grid = 2 ** -10;
    const half = 37.5 * grid; // 0.0366…, exactly halfway between 37g and 38g
    for (const w of [2 ** -80, -(2 ** -80), 0]) {
      expect(half + w).toBe(half); // the float sum cannot see w
      expect(roundSumToGrid(half, w, grid)).toBe(exactRound(half, w, grid));
    }
    expect(roundSumToGrid(half, 2 ** -80, grid)).toBe(38 * grid);
    expect(roundSumToGrid(half, -(2 ** -80), grid)).toBe(37 * grid);
    expect(roundSumToGrid(half, 0, grid)).toBe(38 * grid); // tie to even
    expect(roundSumToGrid(36.5 * grid, 0, grid)).toBe(36 * grid);
    expect(roundSumToGrid(-36.5 * grid, 0, grid)).toBe(-36 * grid);
  });
});
