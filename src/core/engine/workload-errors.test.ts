import { describe, expect, it } from 'vitest';
import { seededNoise } from '../privacy/noise.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { randomDataset } from '../workload/test-data.ts';
import type { Workload } from '../workload/types.ts';
import { defaultOptions } from './defaults.ts';
import { expectedMaxAbsNormal } from './gaussian-baseline.ts';
import { runRap } from './rap.ts';
import { gmBaseline } from './workload-errors.ts';

const SIZES = [3, 2, 4, 2];
const data = randomDataset(SIZES, 300, 11);
const workload: Workload = {
  thresholds: [
    { features: [0, 1], r: 2, weight: 1 },
    { features: [1, 2, 3], r: 2, weight: 1 },
  ],
};
const future: Workload[] = [
  { thresholds: [{ features: [2, 3], r: 1, weight: 1 }] },
  {
    thresholds: [
      { features: [0, 1], r: 2, weight: 1 },
      { features: [0, 3], r: 2, weight: 1 },
    ],
  },
];

/** Max |exact − answers| of a threshold, by brute force on the released rows. */
function releasedError(
  synthetic: { n: number; codes: readonly ArrayLike<number>[] },
  w: Workload,
  i: number,
): number {
  const t = w.thresholds[i];
  const exact = exactThresholdAnswers(data, t);
  const ours = exactThresholdAnswers(
    { schema: data.schema, n: synthetic.n, codes: synthetic.codes as never },
    t,
  );
  return exact.reduce((worst, e, y) => Math.max(worst, Math.abs(e - ours[y])), 0);
}

describe('error tables (present and future, per threshold, with baselines)', () => {
  it.each([
    'sparsemax',
    'softmax',
  ] as const)('are consistent with the released data (%s)', async (relaxation) => {
    const options = defaultOptions({
      epsilon: 4,
      delta: 1e-6,
      mode: 'query',
      rows: 30,
      rounds: 2,
      perRound: 4,
      maxSteps: 30,
      relaxation,
    });
    const { report, synthetic } = await runRap({
      data,
      workload,
      options,
      noise: seededNoise(3),
      evalWorkload: future[0],
      evalWorkloads: [future[1]],
    });
    const tables = report.errorTables;
    if (!tables) throw new Error('no error tables');
    expect(report.relaxation).toBe(relaxation);
    expect(tables.future).toHaveLength(2);
    expect(report.futureError).toBe(tables.future[0].max.relaxed);
    expect(report.presentError).toBe(tables.present.max.relaxed);
    expect(report.all0Error).toBe(tables.present.max.all0);
    const all = [
      [workload, tables.present],
      [future[0], tables.future[0]],
      [future[1], tables.future[1]],
    ] as const;
    for (const [w, table] of all) {
      expect(table.perThreshold).toHaveLength(w.thresholds.length);
      table.perThreshold.forEach((row, i) => {
        const exact = exactThresholdAnswers(data, w.thresholds[i]);
        expect(row.all0).toBe(Math.max(...exact));
        expect(row.released).toBeCloseTo(releasedError(synthetic, w, i), 12);
        expect(row.gm).toBeGreaterThan(0);
      });
      for (const key of ['relaxed', 'released', 'all0'] as const) {
        expect(table.max[key]).toBe(Math.max(...table.perThreshold.map((r) => r[key])));
      }
      // The expected max over all queries is at least each threshold's (up to simulation error).
      expect(table.max.gm).toBeGreaterThan(0.95 * Math.max(...table.perThreshold.map((r) => r.gm)));
    }
    // A threshold shared by the workload and an evaluation workload has the same errors in both
    // (its GM baseline differs: each workload's GM measures that workload's queries).
    const { gm: _a, ...shared } = tables.future[1].perThreshold[0];
    const { gm: _b, ...inPresent } = tables.present.perThreshold[0];
    expect(shared).toEqual(inPresent);
  });

  it('GM baseline: the tables baseline overall, and each threshold’s expected max under its σ', () => {
    const rho = 0.01;
    const n = 1000;
    const marginals: Workload = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [1, 2, 3], r: 3, weight: 1 },
        { features: [2, 1, 3], r: 3, weight: 1 },
      ],
    };
    const gm = gmBaseline(marginals, SIZES, rho, n);
    // Two distinct tables (6 and 16 cells) measured together: σ = √(2·2)/n/√(2ρ).
    const sigma = Math.sqrt(2 * 2) / n / Math.sqrt(2 * rho);
    expect(gm.perThreshold[0]).toBeCloseTo(sigma * expectedMaxAbsNormal(6), 12);
    expect(gm.perThreshold[1]).toBeCloseTo(sigma * expectedMaxAbsNormal(16), 12);
    expect(gm.perThreshold[2]).toBe(gm.perThreshold[1]);
    expect(gm.max).toBeCloseTo(sigma * expectedMaxAbsNormal(22), 12);
    // A 2-of-3 threshold sums several noisy cells: by simulation, above one cell's max error.
    const mixed = gmBaseline(workload, SIZES, rho, n);
    const sigma2 = Math.sqrt(2 * 2) / n / Math.sqrt(2 * rho);
    expect(mixed.perThreshold[1]).toBeGreaterThan(sigma2 * expectedMaxAbsNormal(16));
    expect(mixed.perThreshold[1]).toBeLessThan(sigma2 * 16 * expectedMaxAbsNormal(16));
  });
});

describe('selection choice', () => {
  it('refuses adaptive selection in table mode before anything runs', async () => {
    const options = defaultOptions({ epsilon: 1, delta: 1e-6, mode: 'table', selection: 'iterative' });
    await expect(runRap({ data, workload, options, noise: seededNoise(1) })).rejects.toThrow(
      /adaptive selection \(AS\) is a query-mode option/,
    );
  });
});

describe('relaxation choice', () => {
  it('refuses softmax on the webgpu backend before anything runs', async () => {
    const options = defaultOptions({ epsilon: 1, delta: 1e-6, relaxation: 'softmax', backend: 'webgpu' });
    await expect(runRap({ data, workload, options, noise: seededNoise(1) })).rejects.toThrow(
      /webgpu backend has no softmax relaxation/,
    );
  });
});
