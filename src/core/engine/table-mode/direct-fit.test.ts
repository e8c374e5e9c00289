import { describe, expect, it } from 'vitest';
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
