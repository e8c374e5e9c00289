import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCsv } from '../data/load.ts';
import type { CategoricalColumn, NumericColumn } from '../data/schema.ts';
import { tempDir } from '../data/testing.ts';
import { seededNoise } from '../privacy/noise.ts';
import { discoverSchema } from './discover.ts';
import type { NumericMeasured } from './numeric.ts';
import { categoricalOneWay, numericOneWay, paidOneWaysFor, SELECTION_BIAS } from './one-way.ts';
import { MISSING_KEY } from './profile.ts';

const dir = tempDir('rap-one-way-');
afterAll(() => dir.remove());

/** Solves A x = b (Gauss–Jordan, partial pivoting): the brute force for the small systems below. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** An integer column over [16, 32) whose bins are the given edges (no missing category). */
function column(edges: number[]): NumericColumn {
  return { name: 'x', kind: 'numeric', edges, integer: true, missing: false, fallbackCode: 0 };
}

describe('numericOneWay', () => {
  it("combines an octave's level-1 total with its level-2 buckets by generalized least squares (property, against brute force)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -50, max: 500, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.double({ min: 0, max: 2000, noNaN: true }),
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        (y, t, s1, s2) => {
          // Four buckets of four integers each: [16, 20), [20, 24), [24, 28), [28, 32).
          const m: NumericMeasured = {
            level1Sigma: s1,
            level2Sigma: s2,
            octaves: [
              { total: t, buckets: y.map((count, g) => ({ lo: 16 + 4 * g, hi: 20 + 4 * g, count })) },
            ],
            missing: { count: 0, sigma: 0 },
          };
          // Brute force: the information matrix I/σ₂² + 11ᵀ/σ₁², the estimate solving the normal
          // equations, and each code's variance aᵀ Cov a with Cov its inverse.
          const info = y.map((_, i) => y.map((_, j) => (i === j ? 1 / s2 ** 2 : 0) + 1 / s1 ** 2));
          const estimate = solve(
            info,
            y.map((v) => v / s2 ** 2 + t / s1 ** 2),
          );
          const cov = y.map((_, j) =>
            solve(
              info,
              y.map((_, i) => (i === j ? 1 : 0)),
            ),
          );
          const fine = numericOneWay(column([16, 20, 24, 28, 32]), m);
          estimate.forEach((c, g) => {
            expect(fine.counts[g]).toBeCloseTo(c, 6);
            expect(fine.variances[g]).toBeCloseTo(cov[g][g], 6);
          });
          // Two codes of two buckets each: the sums and aᵀ Cov a.
          const coarse = numericOneWay(column([16, 24, 32]), m);
          for (const [code, [i, j]] of [
            [0, [0, 1]],
            [1, [2, 3]],
          ] as const) {
            expect(coarse.counts[code]).toBeCloseTo(estimate[i] + estimate[j], 6);
            expect(coarse.variances[code]).toBeCloseTo(cov[i][i] + cov[j][j] + 2 * cov[i][j], 6);
          }
        },
      ),
    );
  });
});

describe('categoricalOneWay', () => {
  const col: CategoricalColumn = {
    name: 'c',
    kind: 'categorical',
    categories: ['a', 'b', '(other)'],
    missing: true,
  };
  it('corrects a released key near τ by −√(2/π)σ, gives it back to "(other)", and adds up to n', () => {
    const sel = { sigma: 10, threshold: 100 };
    const kept = [
      { key: 'a', noisyCount: 500 }, // far above τ: as measured
      { key: 'b', noisyCount: 110 }, // within 2σ of τ: corrected
      { key: MISSING_KEY, noisyCount: 300 },
    ];
    const got = numericSum(categoricalOneWay(col, 1000, kept, sel).counts);
    const own = categoricalOneWay(col, 1000, kept, sel);
    expect(own.counts[0]).toBe(500);
    expect(own.counts[1]).toBeCloseTo(110 - SELECTION_BIAS * 10, 12);
    expect(own.counts[3]).toBe(300); // the missing code
    expect(own.counts[2]).toBeCloseTo(1000 - 500 - 110 - 300 + SELECTION_BIAS * 10, 12);
    expect(got).toBeCloseTo(1000, 9);
    expect([...own.variances]).toEqual([
      100,
      expect.closeTo(100 * (1 + 2 / Math.PI), 9),
      expect.closeTo(100 * (3 + 2 / Math.PI), 9),
      100,
    ]);
  });

  it('puts what no released key holds under the fallback key when "(other)" was not released', () => {
    const noOther: CategoricalColumn = {
      name: 'c',
      kind: 'categorical',
      categories: ['a', 'b'],
      missing: false,
      fallbackCode: 0,
    };
    const got = categoricalOneWay(
      noOther,
      1000,
      [
        { key: 'a', noisyCount: 700 },
        { key: 'b', noisyCount: 280 },
      ],
      {
        sigma: 10,
        threshold: 100,
      },
    );
    expect([...got.counts]).toEqual([720, 280]);
  });
});

function numericSum(a: Float64Array): number {
  return a.reduce((s, x) => s + x, 0);
}

describe("discovery → the engine's paid one-ways", () => {
  it("maps discovery's noisy counts onto every discovered column's released codes, within their stated noise", async () => {
    const lines = ['grade,hours,city,gain'];
    for (let i = 0; i < 6000; i++) {
      const hours = i % 10 === 1 ? 64 + ((i * 7) % 36) : 20 + ((i * 7) % 44);
      const city = i % 9 === 0 ? '' : i % 3 === 0 ? 'Oslo' : i % 3 === 1 ? 'Lima' : 'Pune';
      const gain = i % 10 === 0 ? (0.5 + ((i * 7919) % 5000) / 7).toFixed(2) : '0';
      lines.push([1 + (i % 16), hours, city, gain].join(','));
    }
    const file = path.join(dir.path, 'paid.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // Over seeds, z = (estimate − encoded count)/σ of every code: Σz² should be about the number
    // of codes (χ²); a mapping that put a bucket in the wrong code would be off by hundreds of σ.
    let z2 = 0;
    let cells = 0;
    for (let seed = 0; seed < 8; seed++) {
      const found = await discoverSchema(file, {
        rho: 0.5,
        delta: 1e-6,
        noise: seededNoise(seed),
        header: true,
      });
      const loaded = await loadCsv(file, { schema: found.schema, outOfDomain: 'other', header: true });
      const { n, codes, schema } = loaded.dataset;
      const paid = paidOneWaysFor(found.paidOneWays, schema, n);
      schema.columns.forEach((_, f) => {
        const p = paid[f];
        if (!p) throw new Error('every column discovered');
        const exact = new Float64Array(p.values.length);
        for (const c of codes[f]) exact[c] += 1 / n;
        p.values.forEach((x, i) => {
          const z = (x - exact[i]) / Math.sqrt(p.variances[i]);
          expect(Math.abs(z)).toBeLessThan(6);
          z2 += z * z;
          cells++;
        });
      });
    }
    // χ²(cells)/cells has sd √(2/cells) (≈ 0.08 for the ~290 cells here: 1.007 measured); 1 ± 0.5 (6 sd) holds for a correct
    // mapping (the near-threshold correction and unoccupied octaves move it a little).
    expect(z2 / cells).toBeGreaterThan(0.5);
    expect(z2 / cells).toBeLessThan(1.5);
  });
});
