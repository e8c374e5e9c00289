import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import {
  contingencyTable,
  exactAnswersByInclusionExclusion,
  exactThresholdAnswers,
  streamExactAnswers,
} from './exact.ts';
import { bruteForceAnswers, datasetFromCodes, randomDataset } from './test-data.ts';

/** A random small dataset (domains 2..6, 1..5 features) and a random listing order of its features. */
const datasetArb = fc
  .record({
    sizes: fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 1, maxLength: 5 }),
    n: fc.integer({ min: 1, max: 25 }),
    seed: fc.integer({ min: 0, max: 2 ** 31 }),
  })
  .chain(({ sizes, n, seed }) =>
    fc.tuple(
      fc.constant(randomDataset(sizes, n, seed)),
      fc.shuffledSubarray(
        sizes.map((_, j) => j),
        { minLength: sizes.length, maxLength: sizes.length },
      ),
    ),
  );

describe('contingencyTable', () => {
  it('counts each combination, row-major over the listed features', () => {
    const data = datasetFromCodes(
      [2, 3],
      [
        [0, 1, 1, 1],
        [2, 0, 0, 2],
      ],
    );
    expect([...contingencyTable(data, [0, 1])]).toEqual([0, 0, 1, 2, 0, 1]);
    expect([...contingencyTable(data, [1, 0])]).toEqual([0, 2, 0, 0, 1, 1]);
    expect([...contingencyTable(data, [])]).toEqual([4]);
  });
});

describe('exactThresholdAnswers', () => {
  it('equals the brute-force predicate for every 1 ≤ r ≤ k ≤ 5 (property)', () => {
    fc.assert(
      fc.property(datasetArb, ([data, order]) => {
        for (let k = 1; k <= order.length; k++) {
          for (let r = 1; r <= k; r++) {
            const t = { features: order.slice(0, k), r, weight: 1 };
            const got = exactThresholdAnswers(data, t);
            const want = Array.from(bruteForceAnswers(data, t));
            // Counting is exact: integer counts divided by n once, like the oracle.
            expect(Array.from(got)).toEqual(want);
            expect(Array.from(exactAnswersByInclusionExclusion(data, t))).toEqual(want);
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('covers the largest case: 5 features with domains up to 6', () => {
    const data = randomDataset([6, 5, 4, 3, 2], 60, 7);
    for (let r = 1; r <= 5; r++) {
      const t = { features: [4, 0, 2, 1, 3], r, weight: 1 };
      const want = Array.from(bruteForceAnswers(data, t));
      expect(Array.from(exactThresholdAnswers(data, t))).toEqual(want);
      expect(Array.from(exactAnswersByInclusionExclusion(data, t))).toEqual(want);
    }
  });

  it('matches the literal inclusion–exclusion on tables spanning many cache blocks', () => {
    const data = randomDataset([5, 60, 2, 50, 3], 300, 3); // axis 0: 9000 inner cells, 6553 per block
    for (const [features, r] of [
      [[0, 1, 3, 4], 1],
      [[4, 3, 1, 0], 2],
      [[1, 3, 2, 0, 4], 3],
      [[3, 1, 0, 4], 3],
    ] as const) {
      const t = { features, r, weight: 1 };
      expect(Array.from(exactThresholdAnswers(data, t))).toEqual(
        Array.from(exactAnswersByInclusionExclusion(data, t)),
      );
    }
  });

  it('1-of-2 is a disjunction', () => {
    const data = datasetFromCodes(
      [2, 2],
      [
        [0, 0, 1],
        [0, 1, 1],
      ],
    );
    // targets (0,0) (0,1) (1,0) (1,1): rows match (a=y0 or b=y1)
    expect(Array.from(exactThresholdAnswers(data, { features: [0, 1], r: 1, weight: 1 }))).toEqual([
      2 / 3,
      1,
      2 / 3,
      2 / 3,
    ]);
  });

  it('refuses an empty dataset', () => {
    const data = datasetFromCodes([2], [[]]);
    expect(() => exactThresholdAnswers(data, { features: [0], r: 1, weight: 1 })).toThrow(InputError);
    expect(() => exactAnswersByInclusionExclusion(data, { features: [0], r: 1, weight: 1 })).toThrow(
      InputError,
    );
  });
});

describe('streamExactAnswers', () => {
  it('yields each threshold in workload order', () => {
    const data = randomDataset([3, 4, 2], 30, 1);
    const w = {
      thresholds: [
        { features: [2, 1], r: 1, weight: 1 },
        { features: [0, 1, 2], r: 2, weight: 2 },
      ],
    };
    const seen: number[] = [];
    streamExactAnswers(data, w, (i, answers, t) => {
      seen.push(i);
      expect(t).toBe(w.thresholds[i]);
      expect(Array.from(answers)).toEqual(Array.from(bruteForceAnswers(data, t)));
    });
    expect(seen).toEqual([0, 1]);
  });
});
