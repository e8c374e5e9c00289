import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import {
  DEFAULT_TUNING,
  defaultOptions,
  defaultRoundsAndK,
  defaultTablePlan,
  MAX_DEFAULT_ROUNDS,
  TABLE_BATCH_BOUND,
  TABLE_BATCH_SIGNAL,
  TABLE_ROUNDS_MAX,
  TABLE_ROUNDS_MIN,
  TABLE_TUNING,
  TABLES_PER_ROUND,
} from './defaults.ts';

const n = 48_842;
const adult = (epsilon: number, queries = 4.9e6) =>
  defaultRoundsAndK({ epsilon, delta: 1 / n ** 2, n, thresholds: 64, queries });

describe('defaultRoundsAndK', () => {
  it('gives the grid optimum on ADULT: few measurements at ε = 0.1, ~200 at ε = 1', () => {
    // S = 0.04·√ρ·n with the tight ρ (issue 19): 24 and 230, inside the grid's best ranges
    // (S ≈ 16–32 at ε = 0.1, 100–250 at ε = 1); the loose ρ gave (3, 7) and (10, 21).
    expect(adult(0.1)).toEqual({ rounds: 3, perRound: 8 });
    expect(adult(1)).toEqual({ rounds: 10, perRound: 23 });
  });

  it('measures about 0.04·√ρ·n queries in all, never more than the workload has', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 20, noNaN: true }),
        fc.integer({ min: 100, max: 10_000_000 }),
        fc.integer({ min: 1, max: 1e8 }),
        (epsilon, rows, queries) => {
          const { rounds, perRound } = defaultRoundsAndK({
            epsilon,
            delta: 1 / rows ** 2,
            n: rows,
            thresholds: 10,
            queries,
          });
          expect(Number.isInteger(rounds) && rounds >= 1 && rounds <= MAX_DEFAULT_ROUNDS).toBe(true);
          expect(Number.isInteger(perRound) && perRound >= 1).toBe(true);
          expect(rounds * perRound).toBeLessThanOrEqual(queries);
          const target = 0.04 * Math.sqrt(rhoFromEpsilon(epsilon, 1 / rows ** 2)) * rows;
          if (target >= 4 && target <= queries / 2 && rounds < MAX_DEFAULT_ROUNDS) {
            expect(Math.abs(rounds * perRound - target)).toBeLessThanOrEqual(rounds);
          }
        },
      ),
    );
  });

  it('measures more, in more rounds, as ε grows', () => {
    let previous = { rounds: 0, perRound: 0 };
    for (const epsilon of [0.05, 0.1, 0.3, 1, 3, 10]) {
      const next = adult(epsilon);
      expect(next.rounds).toBeGreaterThanOrEqual(previous.rounds);
      expect(next.rounds * next.perRound).toBeGreaterThan(previous.rounds * previous.perRound);
      previous = next;
    }
  });
});

describe('defaultOptions', () => {
  it('fills every option and keeps overrides', () => {
    const o = defaultOptions({ epsilon: 1, delta: 1e-9, rows: 500 });
    expect(o).toMatchObject({
      epsilon: 1,
      delta: 1e-9,
      rows: 500,
      oversample: 50,
      mode: 'table',
      selection: 'oneshot',
    });
    expect(o.rounds).toBeUndefined();
    expect(o).toMatchObject(TABLE_TUNING);
  });

  it('takes the tuning of the mode asked for, overrides last', () => {
    expect(defaultOptions({ epsilon: 1, delta: 1e-9, mode: 'query' })).toMatchObject(DEFAULT_TUNING);
    expect(defaultOptions({ epsilon: 1, delta: 1e-9, mode: 'table', maxSteps: 7 })).toMatchObject({
      learningRate: TABLE_TUNING.learningRate,
      maxSteps: 7,
    });
  });

  it('table mode T₀ grows with the workload within its bounds; K and T₀ grow past the batch signal', () => {
    const n = 48_842;
    const small = rhoFromEpsilon(0.1, 1 / n ** 2);
    const large = rhoFromEpsilon(1, 1 / n ** 2);
    expect(Math.sqrt(small) * n).toBeLessThan(TABLE_BATCH_SIGNAL);
    expect(Math.sqrt(large) * n).toBeGreaterThan(TABLE_BATCH_SIGNAL);
    expect(defaultTablePlan({ rho: small, n, thresholds: 1 })).toEqual({
      roundBound: TABLE_ROUNDS_MIN,
      perRound: 1,
    });
    expect(defaultTablePlan({ rho: small, n, thresholds: 40 })).toEqual({ roundBound: 20, perRound: 1 });
    expect(defaultTablePlan({ rho: small, n, thresholds: 1000 })).toEqual({
      roundBound: TABLE_ROUNDS_MAX,
      perRound: 1,
    });
    // 96 measurements on ADULT at ε = 1: 12 rounds of 8.
    expect(defaultTablePlan({ rho: large, n, thresholds: 64 })).toEqual({ roundBound: 12, perRound: 8 });
    expect(defaultTablePlan({ rho: large, n, thresholds: 64 })).toEqual({
      roundBound: Math.ceil((TABLE_BATCH_BOUND * TABLE_ROUNDS_MAX) / TABLES_PER_ROUND),
      perRound: TABLES_PER_ROUND,
    });
  });
});
