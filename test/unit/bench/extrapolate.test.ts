/** --max-rounds: the prefix ε and the extrapolation of round times. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extrapolateRounds, fitLine, prefixEpsilon, RoundClock } from '../../../bench/lib/extrapolate.ts';
import { rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

describe('prefixEpsilon', () => {
  it('spends ρ·R/T, so each round keeps its budget', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 10, noNaN: true }),
        // δ ≤ 1e-6 (δ = 1/n² for n ≥ 1000): under the tight conversion (issue 19) a ρ as small as
        // ρ(0.001, 1e-4)/64 already implies (0, δ)-DP, and no ε > 0 states it.
        fc.double({ min: 1e-12, max: 1e-6, noNaN: true }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 64 }),
        (eps, delta, R, extra) => {
          const T = R + extra;
          const rho = rhoFromEpsilon(prefixEpsilon(eps, delta, R, T), delta);
          expect(rho).toBeCloseTo((rhoFromEpsilon(eps, delta) * R) / T, 12);
        },
      ),
    );
  });

  it('is ε itself when nothing is cut', () => {
    expect(prefixEpsilon(0.1, 1e-9, 8, 8)).toBeCloseTo(0.1, 12);
  });
});

describe('fitLine', () => {
  it('recovers an exact line', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -100, max: 100, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.integer({ min: 2, max: 20 }),
        (a, b, n) => {
          const xs = Array.from({ length: n }, (_, i) => i + 2);
          const fit = fitLine(
            xs,
            xs.map((x) => a + b * x),
          );
          expect(fit.a).toBeCloseTo(a, 6);
          expect(fit.b).toBeCloseTo(b, 6);
        },
      ),
    );
  });
});

describe('extrapolateRounds', () => {
  it('continues linearly growing rounds exactly (round 1 is free to differ)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.integer({ min: 3, max: 10 }),
        fc.integer({ min: 0, max: 60 }),
        (a, b, first, R, extra) => {
          const T = R + extra;
          const duration = (t: number) => (t === 1 ? first : a + b * t);
          const all = Array.from({ length: T }, (_, i) => duration(i + 1));
          expect(extrapolateRounds(all.slice(0, R), T)).toBeCloseTo(sum(all), 6);
        },
      ),
    );
  });

  it('repeats the last round when only two were measured, and round 1 when only one', () => {
    expect(extrapolateRounds([10, 3], 5)).toBeCloseTo(10 + 3 * 4, 12);
    expect(extrapolateRounds([4], 3)).toBeCloseTo(12, 12);
  });

  it('does not let a falling trend shrink later rounds: uses their mean', () => {
    expect(extrapolateRounds([9, 6, 5, 4], 6)).toBeCloseTo(9 + 6 + 5 + 4 + 2 * 5, 12);
  });

  it('sums only what is asked when the target is within the measured rounds', () => {
    expect(extrapolateRounds([1, 2, 3], 2)).toBe(3);
    expect(() => extrapolateRounds([], 4)).toThrow(RangeError);
  });
});

describe('RoundClock', () => {
  it('turns the last event time of each round into durations', () => {
    const clock = new RoundClock();
    const event = (round: number, elapsedSeconds: number) => ({
      round,
      rounds: 3,
      step: 0,
      loss: 0,
      maxSelectedError: 0,
      elapsedSeconds,
      etaSeconds: 0,
    });
    for (const [r, t] of [
      [1, 0.5],
      [1, 2],
      [2, 3],
      [2, 4.5],
      [3, 7],
    ] as const)
      clock.observe(event(r, t));
    expect(clock.roundSeconds()).toEqual([2, 2.5, 2.5]);
  });
});
