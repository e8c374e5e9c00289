import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contingencyTable, thresholdAnswersFromTable } from '../../workload/exact.ts';
import { seededRng } from '../../workload/prng.ts';
import { bruteForceAnswers, randomDataset } from '../../workload/test-data.ts';
import type { Threshold } from '../../workload/types.ts';
import { expectedMaxAbsNormal } from '../gaussian-baseline.ts';
import {
  distinctTables,
  gmTablesBaseline,
  gmTablesSensitivity,
  gmTablesSigma,
  simulateMaxError,
} from './gm-tables.ts';

const th = (features: number[], r: number): Threshold => ({ features, r, weight: 1 });

describe('GM baseline on the workload tables: σ', () => {
  it('is ρ-zCDP for ℓ2 sensitivity √(2N)/n: Δ²/(2σ²) = ρ (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-8, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (rho, tables, n) => {
          const sigma = gmTablesSigma(rho, tables, n);
          const delta = Math.sqrt(2 * tables) / n;
          expect(gmTablesSensitivity(tables, n)).toBe(delta);
          expect(Math.abs(delta ** 2 / (2 * sigma ** 2) - rho) / rho).toBeLessThan(1e-12);
          expect(Math.abs(sigma - Math.sqrt(tables / rho) / n) / sigma).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('counts each distinct feature set once, whatever the order of its features and its r', () => {
    const sizes = [2, 3, 4, 5];
    const workload = {
      thresholds: [th([0, 1, 2], 3), th([2, 1, 0], 1), th([0, 1, 2], 2), th([1, 3], 2), th([3, 1], 1)],
    };
    const tables = distinctTables(workload, sizes);
    expect(tables.map((t) => [t.features, t.rs, t.cells])).toEqual([
      [[0, 1, 2], [1, 2, 3], 24],
      [[1, 3], [1, 2], 15],
    ]);
    const b = gmTablesBaseline({ rho: 0.01, n: 1000, sizes, workload }, { minRepetitions: 10 });
    expect(b.tables).toBe(2);
    expect(b.cells).toBe(39);
    expect(b.sigma).toBe(gmTablesSigma(0.01, 2, 1000));
    expect(b.expectedMaxError.method).toBe('simulation');
  });

  it('refuses nonsense counts', () => {
    expect(() => gmTablesSigma(0.1, 0, 100)).toThrow(RangeError);
    expect(() => gmTablesSigma(0.1, 2, 0)).toThrow(RangeError);
    expect(() => gmTablesSigma(0, 2, 100)).toThrow(RangeError);
  });
});

describe('GM baseline: expected max error', () => {
  it('one 1-of-1 table of c cells: simulation matches σ·E max_{i≤c} |Z_i| (integration)', () => {
    for (const c of [1, 7, 100]) {
      const tables = distinctTables({ thresholds: [th([0], 1)] }, [c]);
      const sigma = 0.003;
      const sim = simulateMaxError(tables, sigma, { relativePrecision: 0.005, maxRepetitions: 100_000 });
      const exact = sigma * expectedMaxAbsNormal(c);
      expect(sim.standardError).toBeLessThanOrEqual(0.005 * sim.mean);
      // 4 standard errors: fails by chance with probability 6e-5 per case (deterministic seed).
      expect(Math.abs(sim.mean - exact)).toBeLessThan(4 * sim.standardError);
      // And the exact path gives the integral.
      const b = gmTablesBaseline({ rho: 0.5, n: 1000, sizes: [c], workload: { thresholds: [th([0], 1)] } });
      expect(b.expectedMaxError).toEqual({
        mean: b.sigma * expectedMaxAbsNormal(c),
        standardError: 0,
        method: 'exact',
        repetitions: 0,
      });
    }
    // E|Z| = √(2/π) for one cell.
    expect(expectedMaxAbsNormal(1)).toBeCloseTo(Math.sqrt(2 / Math.PI), 6);
  });

  it.each([
    ['cell-sums', [2, 3]],
    ['total-n', [2, 3]],
    ['cell-sums', [4, 1]],
    ['total-n', [3, 5]],
  ] as const)('a 1-of-2 threshold (%s, dims %j): simulation matches a brute-force simulation of its explicit errors', (answers, [
    d1,
    d2,
  ]) => {
    // Answer (y1, y2) = rows with x1 = y1 or x2 = y2 = row(y1) + column(y2) − cell(y1, y2), so
    // its error is the same combination of the cell noises ('total-n': of the noises minus their mean).
    const sigma = 0.01;
    const rng = seededRng(12345);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    const reps = 20_000;
    let sum = 0;
    let sumSq = 0;
    for (let rep = 0; rep < reps; rep++) {
      const raw = Array.from({ length: d1 * d2 }, normal);
      const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
      const z = answers === 'total-n' ? raw.map((v) => v - mean) : raw;
      let max = 0;
      for (let y1 = 0; y1 < d1; y1++) {
        for (let y2 = 0; y2 < d2; y2++) {
          let e = -z[y1 * d2 + y2];
          for (let j = 0; j < d2; j++) e += z[y1 * d2 + j];
          for (let i = 0; i < d1; i++) e += z[i * d2 + y2];
          max = Math.max(max, Math.abs(e));
        }
      }
      sum += sigma * max;
      sumSq += (sigma * max) ** 2;
    }
    const bruteMean = sum / reps;
    const bruteSe = Math.sqrt((sumSq / reps - bruteMean ** 2) / reps);
    const sim = simulateMaxError(distinctTables({ thresholds: [th([0, 1], 1)] }, [d1, d2]), sigma, {
      relativePrecision: 0.004,
      maxRepetitions: 100_000,
      answers,
    });
    const se = Math.hypot(bruteSe, sim.standardError);
    expect(Math.abs(sim.mean - bruteMean)).toBeLessThan(4 * se);
  });

  it('is deterministic for a seed (public simulation noise)', () => {
    const tables = distinctTables({ thresholds: [th([0, 1], 1)] }, [3, 3]);
    expect(simulateMaxError(tables, 1, { seed: 7 })).toEqual(simulateMaxError(tables, 1, { seed: 7 }));
  });
});

describe('thresholdAnswersFromTable', () => {
  it('gives the brute-force answers from the contingency table, and leaves the table alone', () => {
    const sizes = [3, 2, 4];
    const data = randomDataset(sizes, 200, 1);
    for (const [features, r] of [
      [[0, 1, 2], 1],
      [[0, 1, 2], 2],
      [[2, 0], 1],
      [[1, 2], 2],
    ] as const) {
      const t = th([...features], r);
      const table = contingencyTable(data, t.features);
      const copy = Float64Array.from(table);
      const answers = thresholdAnswersFromTable(
        table,
        t.features.map((f) => sizes[f]),
        r,
        data.n,
      );
      const brute = bruteForceAnswers(data, t);
      for (let i = 0; i < brute.length; i++) expect(answers[i]).toBeCloseTo(brute[i], 12);
      expect(table).toEqual(copy);
    }
  });
});
