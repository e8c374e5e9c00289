import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededNoise } from '../../privacy/noise.ts';
import {
  expectedNoiseL1,
  MEASURE_SHARE,
  MIXED_DIRECT_SHARE,
  ONE_WAY_SHARE,
  SCORE_SENSITIVITY_CELLS,
  TableBudget,
} from './rho-schedule.ts';

/** zCDP of the Gaussian mechanism: Δ₂² / (2σ²). */
const gaussianCost = (l2: number, sigma: number) => (l2 * l2) / (2 * sigma * sigma);
/** zCDP of Gumbel-max (exponential mechanism, bounded range): ε²/8 with ε = 2Δ/β. */
const gumbelCost = (l1: number, beta: number) => ((2 * l1) / beta) ** 2 / 8;

const budgets = fc.record({
  rho: fc.double({ min: 1e-6, max: 10, noNaN: true }),
  n: fc.integer({ min: 10, max: 10_000_000 }),
  bound: fc.integer({ min: 1, max: 200 }),
  features: fc.integer({ min: 1, max: 100 }),
  anneals: fc.array(fc.boolean(), { maxLength: 400 }),
});

describe('TableBudget (table mode noise scales)', () => {
  it('one-way σ matches the ℓ2 sensitivity √(2d)/n at its share of ρ', () => {
    fc.assert(
      fc.property(budgets, ({ rho, n, bound, features }) => {
        const b = new TableBudget(rho, n, bound);
        const one = b.oneWay(features);
        expect(one.rho).toBeCloseTo(rho * ONE_WAY_SHARE, 12);
        const rel = gaussianCost(Math.sqrt(2 * features) / n, one.sigma) / one.rho;
        expect(rel).toBeCloseTo(1, 9);
      }),
    );
  });

  it('each measurement: Gumbel scale from sensitivity 2/n, σ from √2/n, shares as stated; Σ ρ = ρ', () => {
    fc.assert(
      fc.property(budgets, ({ rho, n, bound, features, anneals }) => {
        const b = new TableBudget(rho, n, bound);
        let spent = b.oneWay(features).rho;
        let i = 0;
        const first = b.nextMeasurement();
        const firstRho = first.rhoSelect + first.rhoMeasure;
        expect(firstRho).toBeCloseTo(
          first.final ? rho * (1 - ONE_WAY_SHARE) : (rho * (1 - ONE_WAY_SHARE)) / bound,
          12,
        );
        for (let s = first; ; s = b.nextMeasurement()) {
          const rhoM = s.rhoSelect + s.rhoMeasure;
          expect(s.rhoMeasure / rhoM).toBeCloseTo(MEASURE_SHARE, 12);
          expect(gaussianCost(Math.SQRT2 / n, s.sigma) / s.rhoMeasure).toBeCloseTo(1, 9);
          expect(gumbelCost(SCORE_SENSITIVITY_CELLS / n, s.gumbel) / s.rhoSelect).toBeCloseTo(1, 9);
          spent += rhoM;
          if (s.final) break;
          if (anneals[i++ % Math.max(1, anneals.length)]) b.anneal();
        }
        expect(b.done).toBe(true);
        expect(spent / rho).toBeCloseTo(1, 12);
        expect(b.remaining).toBe(0);
        expect(() => b.nextMeasurement()).toThrow(/spent/);
      }),
      { numRuns: 200 },
    );
  });

  it("the mixed plan's direct share: σ from √(2N)/n at its share of ρ; the rounds get the rest; Σ ρ = ρ", () => {
    fc.assert(
      fc.property(
        budgets,
        fc.integer({ min: 1, max: 500 }),
        ({ rho, n, bound, features, anneals }, tables) => {
          const b = new TableBudget(rho, n, bound, ONE_WAY_SHARE, MIXED_DIRECT_SHARE);
          let spent = b.oneWay(features).rho;
          const direct = b.direct(tables);
          expect(direct.rho).toBeCloseTo(rho * MIXED_DIRECT_SHARE, 12);
          expect(gaussianCost(Math.sqrt(2 * tables) / n, direct.sigma) / direct.rho).toBeCloseTo(1, 9);
          expect(() => b.direct(tables)).toThrow(/once/);
          spent += direct.rho;
          const rest = rho * (1 - ONE_WAY_SHARE - MIXED_DIRECT_SHARE);
          let i = 0;
          for (let s = b.nextMeasurement(); ; s = b.nextMeasurement()) {
            if (s.measurement === 1)
              expect(s.rhoSelect + s.rhoMeasure).toBeCloseTo(s.final ? rest : rest / bound, 12);
            spent += s.rhoSelect + s.rhoMeasure;
            if (s.final) break;
            if (anneals[i++ % Math.max(1, anneals.length)]) b.anneal();
          }
          expect(spent / rho).toBeCloseTo(1, 12);
          expect(b.remaining).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('annealing quadruples the measurement budget (σ halves) and a short remainder is spent at once', () => {
    const b = new TableBudget(1, 1000, 10);
    b.oneWay(3);
    const a = b.nextMeasurement();
    b.anneal();
    const c = b.nextMeasurement();
    expect(c.sigma / a.sigma).toBeCloseTo(0.5, 12);
    expect(c.gumbel / a.gumbel).toBeCloseTo(0.5, 12);
    // rest/10 then 4·rest/10 spent: rest/2 left < 2 × 4·rest/10, so the next measurement takes it all.
    const rest = 1 - ONE_WAY_SHARE;
    const last = b.nextMeasurement();
    expect(last.final).toBe(true);
    expect(last.rhoSelect + last.rhoMeasure).toBeCloseTo(rest / 2, 12);
  });

  it('expected ℓ1 of the noise is √(2/π)·σ·cells (Monte Carlo)', () => {
    let sum = 0;
    const noise = seededNoise(5);
    const uniform = () => noise.uniform();
    const cells = 200_000;
    for (let i = 0; i < cells; i++) {
      sum += Math.abs(Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()) * 0.01);
    }
    expect(sum / expectedNoiseL1(0.01, cells)).toBeCloseTo(1, 2);
  });

  it('refuses a bad budget', () => {
    expect(() => new TableBudget(0, 10, 1)).toThrow(/rho/);
    expect(() => new TableBudget(1, 10, 0)).toThrow(/bound/);
    expect(() => new TableBudget(1, 10, 1, 0.5, 0.5)).toThrow(/shares/);
    expect(() => new TableBudget(1, 10, 1, 0.2, -0.1)).toThrow(/shares/);
    // No direct share: nothing to spend up front.
    expect(() => new TableBudget(1, 10, 1).direct(3)).toThrow(/direct share/);
  });
});
