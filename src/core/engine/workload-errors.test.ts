import { describe, expect, it } from 'vitest';
import { gaussianSigma } from '../privacy/mechanisms.ts';
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
      for (const key of ['relaxed', 'released', 'all0', 'gm'] as const) {
        expect(table.max[key]).toBeCloseTo(
          Math.max(...table.perThreshold.map((r) => r[key])),
          key === 'gm' ? 2 : 14,
        );
      }
    }
    // A threshold shared by the workload and an evaluation workload has the same errors in both
    // (its GM baseline differs: each workload's GM measures that workload's queries).
    const { gm: _a, ...shared } = tables.future[1].perThreshold[0];
    const { gm: _b, ...inPresent } = tables.present.perThreshold[0];
    expect(shared).toEqual(inPresent);
  });

  it('GM baseline: σ of all m queries at ρ, expected max over each threshold’s queries', () => {
    const rho = 0.01;
    const n = 1000;
    const gm = gmBaseline(workload, SIZES, rho, n);
    const m = 6 + 16;
    const sigma = gaussianSigma(rho, m, n);
    expect(sigma).toBeCloseTo(Math.sqrt(m / (2 * rho)) / n, 15);
    expect(gm.perThreshold[0]).toBeCloseTo(sigma * expectedMaxAbsNormal(6), 15);
    expect(gm.perThreshold[1]).toBeCloseTo(sigma * expectedMaxAbsNormal(16), 15);
    expect(gm.max).toBeCloseTo(sigma * expectedMaxAbsNormal(m), 15);
  });
});
