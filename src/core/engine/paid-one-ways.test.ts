import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededNoise } from '../privacy/noise.ts';
import { randomDataset } from '../workload/test-data.ts';
import type { Workload } from '../workload/types.ts';
import { defaultOptions } from './defaults.ts';
import {
  combineInverseVariance,
  fitWeight,
  oneWayShareFor,
  type PaidOneWay,
  type PaidOneWays,
  rmsSigma,
  uniform,
} from './paid-one-ways.ts';
import { runRap } from './rap.ts';
import { DIRECT_ONE_WAY_SHARE } from './table-mode/direct.ts';
import { ONE_WAY_SHARE } from './table-mode/rho-schedule.ts';
import type { RapOptions } from './types.ts';

const SIZES = [3, 2, 4, 2];
const data = randomDataset(SIZES, 400, 7);
const workload: Workload = {
  thresholds: [
    { features: [0, 1], r: 2, weight: 1 },
    { features: [1, 2, 3], r: 2, weight: 1 },
  ],
};

/** The exact one-way of feature f (answers / n) with noise of variance v per cell: a stand-in for discovery's. */
function paidFor(f: number, v: number, seed: number): PaidOneWay {
  const noise = seededNoise(seed);
  const values = new Float64Array(SIZES[f]);
  for (const c of data.codes[f]) values[c] += 1 / data.n;
  for (let i = 0; i < values.length; i++) values[i] += Math.sqrt(v) * noise.normal();
  return { values, variances: new Float64Array(values.length).fill(v) };
}

function options(overrides: Partial<RapOptions>): RapOptions {
  return defaultOptions({ epsilon: 2, delta: 1e-6, mode: 'table', rows: 25, maxSteps: 30, ...overrides });
}

/** A seeded table-mode run on the test data with `overrides`, and with `paidOneWays` where given: its report. */
async function tableRun(overrides: Partial<RapOptions>, paidOneWays?: PaidOneWays) {
  const noise = seededNoise(1);
  return (
    await runRap({
      data,
      workload,
      options: options(overrides),
      noise,
      ...(paidOneWays ? { paidOneWays } : {}),
    })
  ).report;
}

describe('combineInverseVariance', () => {
  it('is the minimum-variance unbiased combination of two estimates (property, against a brute-force search)', () => {
    const cell = fc.record({
      a: fc.double({ min: -1, max: 1, noNaN: true }),
      b: fc.double({ min: -1, max: 1, noNaN: true }),
      va: fc.double({ min: 1e-6, max: 1, noNaN: true }),
      vb: fc.double({ min: 1e-6, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 5 }), (cells) => {
        const got = combineInverseVariance(
          { values: Float64Array.from(cells, (c) => c.a), variances: Float64Array.from(cells, (c) => c.va) },
          { values: Float64Array.from(cells, (c) => c.b), variances: Float64Array.from(cells, (c) => c.vb) },
        );
        cells.forEach((c, i) => {
          // Brute force: every unbiased linear combination λa + (1 − λ)b on a grid of λ, the one
          // of least variance λ²va + (1 − λ)²vb.
          let best = { lambda: 0, variance: Number.POSITIVE_INFINITY };
          const steps = 20_000;
          for (let s = 0; s <= steps; s++) {
            const lambda = s / steps;
            const variance = lambda ** 2 * c.va + (1 - lambda) ** 2 * c.vb;
            if (variance < best.variance) best = { lambda, variance };
          }
          expect(got.variances[i]).toBeLessThanOrEqual(best.variance * (1 + 1e-12));
          expect(got.variances[i]).toBeGreaterThanOrEqual(best.variance * (1 - 1e-4)); // the grid's step
          const value = best.lambda * c.a + (1 - best.lambda) * c.b;
          expect(Math.abs(got.values[i] - value)).toBeLessThanOrEqual(Math.abs(c.a - c.b) / steps + 1e-12);
        });
      }),
    );
  });

  it('keeps a cell known exactly (variance 0) and refuses tables of different sizes', () => {
    const got = combineInverseVariance(
      { values: Float64Array.of(0.3, 0.5), variances: Float64Array.of(0, 0.1) },
      uniform(Float64Array.of(0.9, 0.1), Math.sqrt(0.1)),
    );
    expect([...got.values]).toEqual([0.3, expect.closeTo(0.3, 12)]);
    expect([...got.variances]).toEqual([0, expect.closeTo(0.05, 12)]);
    expect(() =>
      combineInverseVariance(uniform(new Float64Array(2), 1), uniform(new Float64Array(3), 1)),
    ).toThrow(RangeError);
  });

  it('is unbiased with the stated variance (statistical: 4,000 draws, χ² test)', () => {
    // z = (combined − truth)/σ_combined over 4,000 independent draws: Σz² ~ χ²(4000), mean 4000,
    // sd 89.4; the bound 4000 ± 5·89.4 fails a correct formula with probability < 1e-6, and a
    // variance off by 20% moves Σz² by 800 (about 9 sd): caught with probability ≈ 1. The mean
    // of z (sd 1/√4000 = 0.016) within ±0.08 likewise (a bias of 0.2σ is 12 sd away).
    const noise = seededNoise(11);
    const draws = 4000;
    let sumZ = 0;
    let sumZ2 = 0;
    for (let i = 0; i < draws; i++) {
      const truth = noise.uniform();
      const va = 0.01 + noise.uniform() * 0.1;
      const vb = 0.01 + noise.uniform() * 0.1;
      const a = truth + Math.sqrt(va) * noise.normal();
      const b = truth + Math.sqrt(vb) * noise.normal();
      const c = combineInverseVariance(
        { values: Float64Array.of(a), variances: Float64Array.of(va) },
        { values: Float64Array.of(b), variances: Float64Array.of(vb) },
      );
      const z = (c.values[0] - truth) / Math.sqrt(c.variances[0]);
      sumZ += z;
      sumZ2 += z * z;
    }
    expect(Math.abs(sumZ / draws)).toBeLessThan(0.08);
    expect(Math.abs(sumZ2 - draws)).toBeLessThan(5 * Math.sqrt(2 * draws));
  });
});

describe('paid one-ways in table mode (the budget spent once)', () => {
  it('the one-way share shrinks to the unpaid features: share·unpaid/d', () => {
    const v = uniform(new Float64Array(2), 0.1);
    expect(oneWayShareFor(0.2, 4)).toBe(0.2);
    expect(oneWayShareFor(0.2, 4, [v, null, v, null])).toBeCloseTo(0.1, 15);
    expect(oneWayShareFor(0.2, 4, [v, v, v, v])).toBe(0);
    expect(rmsSigma(Float64Array.of(1, 9))).toBeCloseTo(Math.sqrt(5), 15);
  });

  it('direct plan, every one-way paid: no one-way share, the whole ρ measures the tables, Σρ = ρ', async () => {
    const paid: PaidOneWays = SIZES.map((_, f) => paidFor(f, 1e-4, f));
    const report = await tableRun({ tablePlan: 'direct' }, paid);
    const trace = report.tableMode;
    if (trace?.strategy !== 'direct') throw new Error('a direct trace');
    expect(trace.direct.oneWay).toMatchObject({ rho: 0, paid: 4, features: 4 });
    expect(trace.direct.rho).toBeCloseTo(report.rho, 12);
    expect(trace.rhoSpent).toBeCloseTo(report.rho, 12);
    expect(trace.direct.sigma).toBeCloseTo(Math.sqrt((2 * 2) / (2 * report.rho)) / data.n, 12);
  });

  it('direct plan, two of four paid: the other two measured at the σ₀ the whole start gives, the rest to the tables', async () => {
    const paid: PaidOneWays = [paidFor(0, 1e-4, 1), null, paidFor(2, 1e-4, 2), null];
    const report = await tableRun({ tablePlan: 'direct' }, paid);
    const trace = report.tableMode;
    if (trace?.strategy !== 'direct') throw new Error('a direct trace');
    const rho0 = (DIRECT_ONE_WAY_SHARE * report.rho * 2) / 4;
    expect(trace.direct.oneWay.rho).toBeCloseTo(rho0, 12);
    expect(trace.direct.oneWay.paid).toBe(2);
    // σ₀ = √(2d/(2ρ₀))/n of the whole start, now over the 2 unpaid features at half its ρ.
    const whole = Math.sqrt((2 * 4) / (2 * DIRECT_ONE_WAY_SHARE * report.rho)) / data.n;
    expect(trace.direct.oneWay.sigma).toBeCloseTo(whole, 12);
    expect(trace.direct.oneWay.rho + trace.direct.rho).toBeCloseTo(report.rho, 12);
  });

  it('adaptive plan, every one-way paid: no one-way share, the rounds spend all of ρ', async () => {
    const paid: PaidOneWays = SIZES.map((_, f) => paidFor(f, 1e-4, f));
    const report = await tableRun({ tablePlan: 'adaptive', rounds: 4, perRound: 2 }, paid);
    const trace = report.tableMode;
    if (trace?.strategy !== 'adaptive') throw new Error('an adaptive trace');
    expect(trace.oneWay).toMatchObject({ rho: 0, paid: 4, features: 4 });
    const rounds = trace.measurements.reduce((s, m) => s + m.rhoSelect + m.rhoMeasure, 0);
    expect(rounds).toBeCloseTo(report.rho, 12);
    // Without paid one-ways the start takes ONE_WAY_SHARE of ρ: the first measurement's ρ is
    // (1 − share)ρ/(T₀K) there and ρ/(T₀K) here.
    const first = trace.measurements[0];
    expect(first.rhoSelect + first.rhoMeasure).toBeCloseTo(report.rho / 8, 12);
    const plain = await tableRun({ tablePlan: 'adaptive', rounds: 4, perRound: 2 });
    if (plain.tableMode?.strategy !== 'adaptive') throw new Error('an adaptive trace');
    expect(plain.tableMode.oneWay.rho).toBeCloseTo(ONE_WAY_SHARE * plain.rho, 12);
    expect(plain.rho).toBeCloseTo(report.rho, 15);
  });

  it('a one-way known exactly (variance 0: one code holds every record) weighs 1 in the fit, never NaN', async () => {
    // At ε = 0.1 a discovered column can release no category: its one code ("(other)") is n/n, exact.
    const exact = paidFor(1, 0, 0);
    expect(rmsSigma(exact.variances)).toBe(0);
    expect(fitWeight(0.01, 0)).toBe(1);
    expect(fitWeight(0.01, 0.02)).toBeCloseTo(0.25, 15);
    for (const tablePlan of ['adaptive', 'mixed'] as const) {
      const report = await tableRun({ tablePlan, rounds: 4, perRound: 2 }, [
        paidFor(0, 1e-4, 1),
        exact,
        null,
        null,
      ]);
      expect(Number.isFinite(report.presentError)).toBe(true);
      expect(report.tableMode?.rhoSpent).toBeCloseTo(report.rho, 12);
    }
  });
});
