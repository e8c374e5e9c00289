import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gaussianCountsRho, makeGaussianCounts } from './counts.ts';
import { seededNoise } from './noise.ts';
import { normalUpperTail, normalUpperTailInverse } from './normal-tail.ts';
import {
  makePartitionSelection,
  partitionSelectionDelta,
  releaseProbability,
  selectPartitions,
} from './partition-selection.ts';

describe('normal tail', () => {
  it('matches known values of Q and inverts it', () => {
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 7);
    expect(normalUpperTail(1.959963984540054) / 0.025).toBeCloseTo(1, 5);
    expect(normalUpperTail(6) / 9.865876450377e-10).toBeCloseTo(1, 5);
    for (const p of [0.4, 0.01, 1e-6, 1e-12]) {
      const z = normalUpperTailInverse(p);
      expect(normalUpperTail(z)).toBeLessThanOrEqual(p);
      expect(normalUpperTail(z) / p).toBeGreaterThan(1 - 1e-5);
    }
  });
});

describe('Gaussian counts: noise scale equals the stated sensitivity and ρ', () => {
  it('σ = Δ₂/√(2ρ) and ρ = Δ₂²/(2σ²) (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-9, max: 10, noNaN: true }),
        fc.double({ min: 0.5, max: 5, noNaN: true }),
        (rho, l2) => {
          const m = makeGaussianCounts(rho, l2);
          expect(m.sigma).toBeCloseTo(l2 / Math.sqrt(2 * rho), 10);
          expect(gaussianCountsRho(m.sigma, l2) / rho).toBeCloseTo(1, 10);
        },
      ),
    );
  });
});

describe('makePartitionSelection', () => {
  it('states ρ = 1/σ² (ℓ2 sensitivity √2) and δ = Q((τ−1)/σ − 2⁻¹²) at most the asked δ (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-8, max: 2, noNaN: true }),
        fc.double({ min: -14, max: -1, noNaN: true }),
        (rho, logDelta) => {
          const delta = 10 ** logDelta;
          const sel = makePartitionSelection(rho, delta);
          expect(gaussianCountsRho(sel.sigma, Math.SQRT2) / rho).toBeCloseTo(1, 10);
          const stated = partitionSelectionDelta(sel.sigma, sel.threshold);
          expect(stated).toBeLessThanOrEqual(delta);
          expect(stated / delta).toBeGreaterThan(1 - 1e-5);
        },
      ),
    );
  });

  it('matches a hand computation: ρ = 0.5, δ = 0.01 → σ = √2, τ = 1 + √2·(2.3263 + 2⁻¹²)', () => {
    const sel = makePartitionSelection(0.5, 0.01);
    expect(sel.sigma).toBeCloseTo(Math.SQRT2, 12);
    expect(sel.threshold).toBeCloseTo(1 + Math.SQRT2 * (2.326347874 + 2 ** -12), 6);
  });
});

describe('selectPartitions', () => {
  /*
   * Neighbours under replace-one: D holds a key "only-one" with count 1 (plus common keys), D′
   * replaced that record by a common key, so "only-one" is absent from D′ and can appear only in
   * M(D). Its release is the event outside the zCDP part: its probability must be at most δ (one
   * such key per side). Trials N = 40,000 at δ = 0.01: under the bound the count of releases is
   * Binomial(N, ≤ 0.01), mean ≤ 400, sd ≤ 19.9; we fail above 400 + 4 sd (false alarm ≤ 3·10⁻⁵).
   * Power: a true rate 1.25× the bound (mean 500) fails with probability 0.84, 1.5× (mean 600)
   * with probability > 0.999 — so the former bound δ/2 per key, if it were wrong by 2×, is caught.
   */
  it('releases the key one neighbour holds alone no more often than δ (statistical test with power)', () => {
    const sel = makePartitionSelection(0.5, 0.01);
    const noise = seededNoise('partition-singleton');
    const D = new Map([
      ['common', 40],
      ['only-one', 1],
    ]);
    const N = 40_000;
    let released = 0;
    for (let t = 0; t < N; t++)
      released += selectPartitions(sel, D, noise).filter((k) => k.key === 'only-one').length;
    const bound = N * 0.01;
    expect(released).toBeLessThanOrEqual(bound + 4 * Math.sqrt(bound * 0.99));
    // Not vacuous: the observed rate is the exact tail probability, within 4 sd.
    const exact = N * releaseProbability(sel, 1);
    expect(Math.abs(released - exact)).toBeLessThan(4 * Math.sqrt(exact));
  });

  it('releases a key held by many records almost always, and reports keys in code-point order', () => {
    const sel = makePartitionSelection(0.5, 1e-9);
    const counts = new Map([
      ['zeta', 1000],
      ['alpha', 1000],
      ['rare', 1],
      ['?', 500],
    ]);
    const got = selectPartitions(sel, counts, seededNoise(3)).map((k) => k.key);
    expect(got).toEqual(['?', 'alpha', 'zeta']);
  });

  it('refuses a count below 1 (a key that does not occur must not be offered)', () => {
    const sel = makePartitionSelection(0.5, 1e-9);
    expect(() => selectPartitions(sel, new Map([['x', 0]]), seededNoise(1))).toThrow(/>= 1/);
  });
});
