import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertEpsilonDelta,
  composeRho,
  defaultDelta,
  deltaWarning,
  epsilonFromRho,
  rhoFromEpsilon,
  roundBudget,
  splitRho,
} from './accounting.ts';

/** The largest ρ with epsilonFromRho(ρ, δ) ≤ ε, by bisection: the brute-force definition. */
function rhoByBisection(epsilon: number, delta: number): number {
  let lo = 0;
  let hi = epsilon;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (epsilonFromRho(mid, delta) <= epsilon) lo = mid;
    else hi = mid;
  }
  return lo;
}

describe('rhoFromEpsilon / epsilonFromRho', () => {
  it('matches hand-computed values (40-digit reference)', () => {
    expect(rhoFromEpsilon(1, 1e-9)).toBeCloseTo(0.011781160395201419, 15);
    expect(rhoFromEpsilon(0.1, 1e-6)).toBeCloseTo(0.00018030408018075768, 17);
    expect(rhoFromEpsilon(10, 1e-12)).toBeCloseTo(0.7706927633221774, 14);
    expect(rhoFromEpsilon(1, 1 / 48842 ** 2)).toBeCloseTo(0.011317408657536811, 15);
  });

  it('round-trips ε → ρ → ε to 1e-12 relative over ε ∈ [1e-3, 100], δ ∈ [1e-12, 0.5]', () => {
    let worst = 0;
    for (let i = 0; i <= 50; i++) {
      const epsilon = 1e-3 * 1e5 ** (i / 50);
      for (let j = 0; j <= 30; j++) {
        const delta = 1e-12 * 0.5e12 ** (j / 30);
        const back = epsilonFromRho(rhoFromEpsilon(epsilon, delta), delta);
        worst = Math.max(worst, Math.abs(back - epsilon) / epsilon);
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('is the largest ρ whose ε does not exceed the target (vs bisection)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 100, noNaN: true }),
        fc.double({ min: -12, max: Math.log10(0.5), noNaN: true }),
        (epsilon, log10Delta) => {
          const delta = 10 ** log10Delta;
          const rho = rhoFromEpsilon(epsilon, delta);
          expect(Math.abs(rho - rhoByBisection(epsilon, delta)) / rho).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is increasing in ε and in δ', () => {
    expect(rhoFromEpsilon(2, 1e-6)).toBeGreaterThan(rhoFromEpsilon(1, 1e-6));
    expect(rhoFromEpsilon(1, 1e-3)).toBeGreaterThan(rhoFromEpsilon(1, 1e-6));
  });

  it('rejects ε ≤ 0, non-finite ε and δ outside (0, 1)', () => {
    for (const [epsilon, delta] of [
      [0, 1e-6],
      [-1, 1e-6],
      [Number.POSITIVE_INFINITY, 1e-6],
      [Number.NaN, 1e-6],
      [1, 0],
      [1, 1],
      [1, -0.1],
      [1, Number.NaN],
    ]) {
      expect(() => rhoFromEpsilon(epsilon, delta)).toThrow(RangeError);
      expect(() => assertEpsilonDelta(epsilon, delta)).toThrow(RangeError);
    }
    expect(() => epsilonFromRho(-1, 1e-6)).toThrow(RangeError);
    expect(() => epsilonFromRho(1, 2)).toThrow(RangeError);
    expect(epsilonFromRho(0, 1e-6)).toBe(0);
  });
});

describe('composition and splitting', () => {
  it('sums ρ, and the composed ε is less than the sum of the parts’ ε', () => {
    const parts = [rhoFromEpsilon(0.5, 1e-9), rhoFromEpsilon(0.25, 1e-9), rhoFromEpsilon(0.25, 1e-9)];
    const total = composeRho(parts);
    expect(total).toBeCloseTo(parts[0] + parts[1] + parts[2], 18);
    expect(composeRho([])).toBe(0);
    // zCDP composition is tighter than adding ε: three runs summing to ε = 1 cost less than ε = 1.
    expect(epsilonFromRho(total, 1e-9)).toBeLessThan(1);
    expect(epsilonFromRho(total, 1e-9)).toBeGreaterThan(0.5);
  });

  it('rejects negative or non-finite parts', () => {
    expect(() => composeRho([0.1, -0.01])).toThrow(RangeError);
    expect(() => composeRho([0.1, Number.NaN])).toThrow(RangeError);
  });

  it('splits ρ over T rounds, half to selection and half to measurement, summing back to ρ', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        (rho, T) => {
          const { select, measure } = roundBudget(rho, T);
          expect(select).toBe(measure);
          expect(splitRho(rho, T)).toBeCloseTo(rho / T, 15);
          const rounds = Array.from({ length: T }, () => [select, measure]).flat();
          expect(Math.abs(composeRho(rounds) - rho) / rho).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 100 },
    );
    expect(roundBudget(0.5, 5)).toEqual({ select: 0.05, measure: 0.05 });
    expect(() => splitRho(0.5, 0)).toThrow(RangeError);
    expect(() => splitRho(0.5, 2.5)).toThrow(RangeError);
    expect(() => splitRho(0, 3)).toThrow(RangeError);
  });
});

describe('δ defaults and warnings', () => {
  it('uses δ = 1/n² by default', () => {
    expect(defaultDelta(48842)).toBe(1 / 48842 ** 2);
    expect(defaultDelta(1000)).toBeCloseTo(1e-6, 18);
    expect(() => defaultDelta(1)).toThrow(RangeError);
  });

  it('warns exactly when δ ≥ 1/n', () => {
    expect(deltaWarning(1e-6, 1000)).toBeNull();
    expect(deltaWarning(0.000999, 1000)).toBeNull();
    expect(deltaWarning(0.001, 1000)).toMatch(/1\/n/);
    expect(deltaWarning(0.01, 1000)).toContain('1000 records');
    expect(() => deltaWarning(1.5, 1000)).toThrow(RangeError);
  });
});
