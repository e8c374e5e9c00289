/** The published figures each row is compared with. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AVENT_KOROLOVA_QPS, rapAdultReference, referencesFor } from '../../../bench/lib/reference.ts';

const adult = (thresholds: number, epsilon: number, k = 3, r = 3) =>
  referencesFor({ dataset: 'adult', k, r, thresholds, epsilon });

describe('references', () => {
  it('RAP regression a + b·ln|W| at the three published ε', () => {
    const ab: [number, number, number][] = [
      [0.01, 0.032, 0.065],
      [0.1, 0.0254, 0.0122],
      [1, 0.0072, 0.005],
    ];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4096 }), fc.constantFrom(...ab), (w, [eps, a, b]) => {
        expect(rapAdultReference(eps, w)).toBeCloseTo(a + b * Math.log(w), 12);
      }),
    );
    expect(rapAdultReference(0.5, 64)).toBeUndefined();
  });

  it('applies RAP and AIM only to ADULT 3-way marginals, AIM only at |W| = 64', () => {
    expect(adult(64, 0.1).error.map((e) => e.source)).toEqual(['AIM', 'RAP']);
    expect(adult(16, 0.1).error.map((e) => e.source)).toEqual(['RAP']);
    expect(adult(64, 0.01).error.map((e) => e.source)).toEqual(['RAP']);
    expect(adult(64, 0.1, 4, 1).error).toEqual([]);
    expect(adult(64, 0.1).queriesPerSecond).toBeUndefined();
  });

  it("gives Avent & Korolova's throughput to LOANS 1-of-4 rows", () => {
    expect(AVENT_KOROLOVA_QPS).toBeCloseTo(3.5e7 / 1240, 9);
    expect(
      referencesFor({ dataset: 'loans-synthetic', k: 4, r: 1, thresholds: 64, epsilon: 1 }).queriesPerSecond
        ?.value,
    ).toBe(AVENT_KOROLOVA_QPS);
    expect(
      referencesFor({ dataset: 'loans-synthetic', k: 4, r: 2, thresholds: 64, epsilon: 1 }).queriesPerSecond,
    ).toBeUndefined();
  });
});
