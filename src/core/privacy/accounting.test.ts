import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertEpsilonDelta,
  composeRho,
  defaultDelta,
  deltaAtAlpha,
  deltaFromRho,
  deltaWarning,
  epsilonFromRho,
  looseEpsilonFromRho,
  looseRhoFromEpsilon,
  rhoFromEpsilon,
  roundBudget,
  splitRho,
} from './accounting.ts';
import { bruteDelta, bruteRho } from './testing/cks20-brute-force.ts';

describe('rhoFromEpsilon / epsilonFromRho (tight, Canonne, Kamath & Steinke 2020)', () => {
  it('gives 1.45× the loose ρ at ε = 0.1 and 1.26× at ε = 1 on ADULT (δ = 1/n², issue 19)', () => {
    const delta = 1 / 48842 ** 2;
    expect(rhoFromEpsilon(0.1, delta) / looseRhoFromEpsilon(0.1, delta)).toBeCloseTo(1.45, 2);
    expect(rhoFromEpsilon(1, delta) / looseRhoFromEpsilon(1, delta)).toBeCloseTo(1.26, 2);
  });

  it('matches the brute-force conversion (dense α scan) to 1e-9 relative on a grid of (ε, δ)', () => {
    let worst = 0;
    for (const epsilon of [0.01, 0.05, 0.1, 0.3, 1, 2, 5, 10]) {
      for (const delta of [1e-12, 1 / 48842 ** 2, 1e-8, 1e-6, 1e-4, 1e-2]) {
        const rho = rhoFromEpsilon(epsilon, delta);
        worst = Math.max(worst, Math.abs(rho - bruteRho(epsilon, delta)) / rho);
      }
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it('converted ρ still implies the stated (ε, δ) and is at least the loose ρ (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 30, noNaN: true }),
        fc.double({ min: -14, max: Math.log10(0.5), noNaN: true }),
        (epsilon, log10Delta) => {
          const delta = 10 ** log10Delta;
          const rho = rhoFromEpsilon(epsilon, delta);
          // By the conversion's own δ, exactly; by the independent scan, within its precision.
          expect(deltaFromRho(rho, epsilon)).toBeLessThanOrEqual(delta);
          expect(bruteDelta(rho, epsilon)).toBeLessThanOrEqual(delta * (1 + 1e-9));
          expect(rho).toBeGreaterThanOrEqual(looseRhoFromEpsilon(epsilon, delta));
          // …and it is the largest such ρ: a hair more breaks δ.
          expect(deltaFromRho(rho * (1 + 1e-9), epsilon)).toBeGreaterThan(delta);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('shows a ρ as the smallest ε it implies, at most the loose ε (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-9, max: 10, noNaN: true }),
        fc.double({ min: -14, max: Math.log10(0.5), noNaN: true }),
        (rho, log10Delta) => {
          const delta = 10 ** log10Delta;
          const epsilon = epsilonFromRho(rho, delta);
          expect(deltaFromRho(rho, epsilon)).toBeLessThanOrEqual(delta);
          if (epsilon > 0) expect(deltaFromRho(rho, epsilon * (1 - 1e-9))).toBeGreaterThan(delta);
          else expect(deltaFromRho(rho, 0)).toBeLessThanOrEqual(delta);
          expect(epsilon).toBeLessThanOrEqual(looseEpsilonFromRho(rho, delta));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('δ(ρ, ε) is the minimum of the CKS20 bound over α (vs a dense scan) and increases in ρ', () => {
    for (const [rho, epsilon] of [
      [1e-4, 0.1],
      [0.0143, 1],
      [0.5, 3],
      [2, 1],
    ]) {
      const delta = deltaFromRho(rho, epsilon);
      expect(Math.abs(delta - bruteDelta(rho, epsilon)) / delta).toBeLessThan(1e-9);
      expect(deltaFromRho(rho * 1.01, epsilon)).toBeGreaterThan(delta);
      for (const alpha of [1.5, 2, 10, 100])
        expect(deltaAtAlpha(rho, epsilon, alpha)).toBeGreaterThanOrEqual(delta);
    }
    expect(deltaFromRho(0, 1)).toBe(0);
    expect(deltaFromRho(100, 0.1)).toBe(1);
  });

  it('round-trips ε → ρ → ε to 1e-12 relative over ε ∈ [1e-3, 100], δ ∈ [1e-12, 0.5]', () => {
    let worst = 0;
    for (let i = 0; i <= 25; i++) {
      const epsilon = 1e-3 * 1e5 ** (i / 25);
      for (let j = 0; j <= 15; j++) {
        const delta = 1e-12 * 0.5e12 ** (j / 15);
        const back = epsilonFromRho(rhoFromEpsilon(epsilon, delta), delta);
        worst = Math.max(worst, Math.abs(back - epsilon) / epsilon);
      }
    }
    expect(worst).toBeLessThan(1e-12);
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
      expect(() => looseRhoFromEpsilon(epsilon, delta)).toThrow(RangeError);
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
