import { describe, expect, it } from 'vitest';
import type { CountedDataset } from '../../data/counted.ts';
import { seededNoise } from '../../privacy/noise.ts';
import { randomDataset } from '../../workload/test-data.ts';
import type { Workload } from '../../workload/types.ts';
import { defaultOptions } from '../defaults.ts';
import { runRap } from '../rap.ts';
import { requiredFeatureSets } from '../required-tables.ts';
import { bruteCounted } from '../testing.ts';
import {
  DIRECT_FAST_BELOW,
  DIRECT_LR_BOOST,
  directLearningRate,
  ROUNDING_FLOOR_SHARE,
  roundingFloorLoss,
} from './direct-fit.ts';

/**
 * Every outcome of randomized rounding (rounding.ts) of a tiny D', enumerated: rows × oversample
 * samples, each drawing every feature from its row's block. Returns E Σ_c (f_c − q̂_c)² over the
 * 2-way table of the two features, f the released shares and q̂ the relaxed table.
 */
function bruteRoundingSse(rows: number[][][], oversample: number): number {
  const [s0, s1] = [rows[0][0].length, rows[0][1].length];
  const cells = s0 * s1;
  const relaxed = new Float64Array(cells);
  for (const r of rows)
    for (let c = 0; c < cells; c++) relaxed[c] += (r[0][c % s0] * r[1][Math.floor(c / s0)]) / rows.length;
  const samples = rows.flatMap((r) => Array.from({ length: oversample }, () => r));
  const n = samples.length;
  let expected = 0;
  const counts = new Float64Array(cells);
  const walk = (i: number, p: number) => {
    if (p === 0) return;
    if (i === n) {
      let sse = 0;
      for (let c = 0; c < cells; c++) sse += (counts[c] / n - relaxed[c]) ** 2;
      expected += p * sse;
      return;
    }
    const r = samples[i];
    for (let c = 0; c < cells; c++) {
      counts[c]++;
      walk(i + 1, p * r[0][c % s0] * r[1][Math.floor(c / s0)]);
      counts[c]--;
    }
  };
  walk(0, 1);
  return expected;
}

describe('the rounding floor (direct-fit.ts)', () => {
  it("rounding's squared error on a table is (1/(n'·N)) Σ_i (1 − Σ_c p_ic²) < 1/N (brute force)", () => {
    const cases: number[][][][] = [
      [
        [
          [0.2, 0.8],
          [0.5, 0.25, 0.25],
        ],
        [
          [1, 0],
          [0, 0.4, 0.6],
        ],
      ],
      [
        [
          [0.5, 0.5],
          [1 / 3, 1 / 3, 1 / 3],
        ],
        [
          [0.5, 0.5],
          [1 / 3, 1 / 3, 1 / 3],
        ],
      ],
      [
        [
          [1, 0],
          [0, 1, 0],
        ],
        [
          [0, 1],
          [0, 0, 1],
        ],
      ],
    ];
    for (const rows of cases) {
      for (const oversample of [1, 2]) {
        const N = rows.length * oversample;
        const formula =
          rows.reduce((s, r) => {
            const purity = r[0].reduce((a, x) => a + x * x, 0) * r[1].reduce((a, x) => a + x * x, 0);
            return s + (1 - purity);
          }, 0) /
          (rows.length * N);
        const brute = bruteRoundingSse(rows, oversample);
        expect(brute).toBeCloseTo(formula, 12);
        expect(brute).toBeLessThan(1 / N);
      }
    }
  });

  it('stops at κ² · Σ w / (n′·m)', () => {
    const tables = [{ weight: 1 }, { weight: 0.5 }, { weight: 1 }];
    expect(roundingFloorLoss(tables, 1000, 50)).toBeCloseTo((ROUNDING_FLOOR_SHARE ** 2 * 2.5) / 50_000, 15);
  });

  it("boosts Adam's step only where σ·√N is under DIRECT_FAST_BELOW", () => {
    const N = 1000 * 50;
    const sharp = (0.5 * DIRECT_FAST_BELOW) / Math.sqrt(N);
    const noisy = (2 * DIRECT_FAST_BELOW) / Math.sqrt(N);
    expect(directLearningRate(0.03, sharp, 1000, 50)).toBeCloseTo(0.03 * DIRECT_LR_BOOST, 12);
    expect(directLearningRate(0.03, noisy, 1000, 50)).toBe(0.03);
  });
});

describe('the direct plan at large n (runRap)', () => {
  const sizes = [3, 2, 4, 2];
  const rows = randomDataset(sizes, 400, 7);
  const workload: Workload = {
    thresholds: [
      { features: [0, 1], r: 2, weight: 1 },
      { features: [1, 2, 3], r: 3, weight: 1 },
      { features: [0, 2, 3], r: 3, weight: 1 },
    ],
  };
  // The same shares at n = 4·10⁷: every count times 10⁵ (σ·√N ≈ 1e-6, far under DIRECT_FAST_BELOW).
  const counted = bruteCounted(rows, requiredFeatureSets({ schema: rows.schema, workload }));
  const large: CountedDataset = {
    ...counted,
    n: rows.n * 1e5,
    tables: new Map([...counted.tables].map(([k, t]) => [k, t.map((c) => c * 1e5)])),
  };
  const run = (oversample: number, tolerance?: number) =>
    runRap({
      data: large,
      workload,
      options: defaultOptions({
        epsilon: 1,
        delta: 1e-9,
        mode: 'table',
        tablePlan: 'direct',
        rows: 25,
        oversample,
        maxSteps: 100,
        ...(tolerance !== undefined ? { tolerance } : {}),
      }),
      noise: seededNoise(3),
    });

  it('stops once the residual is under the rounding floor: sooner for fewer released rows', async () => {
    const steps = (r: { report: { projectionSteps?: number } }) => r.report.projectionSteps ?? Number.NaN;
    const few = await run(2);
    const more = await run(40);
    const budget = await run(40, 0);
    expect(steps(budget)).toBe(4 * 100);
    // The fit is the same until it stops (no noise is drawn while it runs); the floor κ²Σw/N is
    // 20 times higher with 50 released rows than with 1,000.
    expect(steps(few)).toBeLessThan(steps(more));
    expect(steps(more)).toBeLessThan(steps(budget));
    // Under the floor, the relaxed fit is already far closer than rounding 1,000 rows can show.
    expect(more.report.presentError).toBeLessThan(1 / Math.sqrt(25 * 40));
  });
});
