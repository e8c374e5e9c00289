import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutOf, oneHotMatrix } from '../data/onehot.ts';
import { exactThresholdAnswers } from './exact.ts';
import { localIndexToTarget, queryCount, thresholdSizes } from './queries.ts';
import {
  type SelectedQuery,
  surrogateSelectedAnswers,
  surrogateSelectedGradient,
  surrogateThresholdAnswers,
} from './surrogate.ts';
import { poissonBinomialTail, randomDataset, randomRelaxed } from './test-data.ts';

const forms = ['plain', 'negated', 'auto'] as const;

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('surrogate answers on the exact one-hot encoding', () => {
  it('equal the counting answers for every 1 ≤ r ≤ k ≤ 5 and both forms (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (sizes, n, seed) => {
          const data = randomDataset(sizes, n, seed);
          const layout = layoutOf(data.schema);
          const D = oneHotMatrix(data, layout);
          const order = sizes.map((_, j) => j).reverse();
          for (let k = 1; k <= sizes.length; k++) {
            for (let r = 1; r <= k; r++) {
              const t = { features: order.slice(0, k), r, weight: 1 };
              const exact = exactThresholdAnswers(data, t);
              for (const form of forms) {
                expect(maxAbsDiff(surrogateThresholdAnswers(D, n, layout, t, { form }), exact)).toBeLessThan(
                  1e-6,
                );
              }
            }
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('surrogate answers on relaxed data', () => {
  it('negation trick and plain inclusion–exclusion agree to 1e-9 (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 5 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (sizes, nRows, seed) => {
          const { D, layout } = randomRelaxed(sizes, nRows, seed);
          for (let k = 1; k <= sizes.length; k++) {
            for (let r = 1; r <= k; r++) {
              const t = { features: sizes.map((_, j) => j).slice(-k), r, weight: 1 };
              const plain = surrogateThresholdAnswers(D, nRows, layout, t, { form: 'plain' });
              const negated = surrogateThresholdAnswers(D, nRows, layout, t, { form: 'negated' });
              expect(maxAbsDiff(plain, negated)).toBeLessThan(1e-9);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('equal the mean Poisson-binomial tail of the rows (independent oracle)', () => {
    const sizes = [3, 2, 4, 2];
    const nRows = 5;
    const { D, layout } = randomRelaxed(sizes, nRows, 11);
    const t = { features: [2, 0, 3], r: 2, weight: 1 };
    const dims = thresholdSizes(t, sizes);
    const answers = surrogateThresholdAnswers(D, nRows, layout, t);
    for (let q = 0; q < answers.length; q++) {
      const y = localIndexToTarget(q, dims);
      let mean = 0;
      for (let row = 0; row < nRows; row++) {
        const p = t.features.map((f, j) => D[row * layout.width + layout.offsets[f] + y[j]]);
        mean += poissonBinomialTail(p, t.r) / nRows;
      }
      expect(answers[q]).toBeCloseTo(mean, 12);
    }
  });

  it('selected answers equal the whole-threshold answers at those indices', () => {
    const sizes = [3, 4, 2, 3];
    const { D, layout } = randomRelaxed(sizes, 7, 3);
    for (let r = 1; r <= 3; r++) {
      const t = { features: [3, 1, 0], r, weight: 1 };
      const all = surrogateThresholdAnswers(D, 7, layout, t);
      const picks = [0, 5, 17, queryCount(t, sizes) - 1];
      for (const form of forms) {
        const got = surrogateSelectedAnswers(D, 7, layout, t, picks, { form });
        picks.forEach((q, i) => {
          expect(got[i]).toBeCloseTo(all[q], 12);
        });
      }
    }
  });
});

describe('surrogateSelectedGradient', () => {
  it('matches finite differences of Σ coeff · q̂ (the objective is affine in each entry)', () => {
    const sizes = [3, 2, 4];
    const nRows = 4;
    const { D, layout } = randomRelaxed(sizes, nRows, 5);
    const queries: SelectedQuery[] = [
      { threshold: { features: [0, 1, 2], r: 1, weight: 1 }, local: 7, coeff: 1.5 },
      { threshold: { features: [2, 0], r: 2, weight: 1 }, local: 4, coeff: -0.75 },
      { threshold: { features: [1, 2, 0], r: 2, weight: 1 }, local: 13, coeff: 2 },
      { threshold: { features: [0, 2], r: 1, weight: 1 }, local: 4, coeff: 1 },
    ];
    const objective = (X: Float32Array): number =>
      queries.reduce(
        (s, q) => s + q.coeff * surrogateSelectedAnswers(X, nRows, layout, q.threshold, [q.local])[0],
        0,
      );
    for (const form of forms) {
      const grad = surrogateSelectedGradient(D, nRows, layout, queries, { form });
      expect(grad.length).toBe(D.length);
      for (let i = 0; i < D.length; i++) {
        const up = Float32Array.from(D);
        const down = Float32Array.from(D);
        up[i] += 0.125;
        down[i] -= 0.125;
        const fd = (objective(up) - objective(down)) / (up[i] - down[i]);
        expect(grad[i]).toBeCloseTo(fd, 5);
      }
    }
  });

  it('is zero outside the selected queries’ columns', () => {
    const { D, layout } = randomRelaxed([3, 3], 2, 9);
    const grad = surrogateSelectedGradient(D, 2, layout, [
      { threshold: { features: [0], r: 1, weight: 1 }, local: 1, coeff: 1 },
    ]);
    for (let row = 0; row < 2; row++) {
      for (let c = 0; c < layout.width; c++) expect(grad[row * layout.width + c]).toBe(c === 1 ? 0.5 : 0);
    }
  });
});

describe('input checks', () => {
  it('refuses relaxed data of the wrong shape', () => {
    const data = randomDataset([2, 3], 4, 1);
    const layout = layoutOf(data.schema);
    const t = { features: [0], r: 1, weight: 1 };
    expect(() => surrogateThresholdAnswers(new Float32Array(3), 4, layout, t)).toThrow(/expected 4 × 5/);
  });
});
