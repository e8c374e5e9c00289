import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  binomial,
  combineTables,
  negatedThresholdTerms,
  type ProductTerm,
  prefersNegation,
  thresholdExpansion,
  thresholdTerms,
} from './inclusion-exclusion.ts';
import { localIndexToTarget } from './queries.ts';
import { broadcastAdd, tableSize } from './table.ts';
import { poissonBinomialTail } from './test-data.ts';

/** Σ_terms c_T Π_{j∈T} v_j with v = p (plain) or 1 − p (negated). */
function evaluate(terms: readonly ProductTerm[], p: readonly number[], complement: boolean): number {
  return terms.reduce(
    (sum, t) => sum + t.subset.reduce((prod, j) => prod * (complement ? 1 - p[j] : p[j]), t.coefficient),
    0,
  );
}

const kr = fc
  .integer({ min: 1, max: 6 })
  .chain((k) => fc.tuple(fc.constant(k), fc.integer({ min: 1, max: k })));

describe('threshold terms', () => {
  it('binomial coefficients', () => {
    expect(binomial(5, 2)).toBe(10);
    expect(binomial(4, 0)).toBe(1);
    expect(binomial(3, 4)).toBe(0);
  });

  it('marginals (r = k) are a single product', () => {
    expect(thresholdTerms(3, 3)).toEqual([{ subset: [0, 1, 2], coefficient: 1 }]);
  });

  it('2-of-3 is Σ pairs − 2 · triple', () => {
    expect(thresholdTerms(3, 2)).toEqual([
      { subset: [0, 1], coefficient: 1 },
      { subset: [0, 2], coefficient: 1 },
      { subset: [1, 2], coefficient: 1 },
      { subset: [0, 1, 2], coefficient: -2 },
    ]);
  });

  it('the negation trick turns 1-of-k into 1 − Π(1 − x)', () => {
    expect(negatedThresholdTerms(4, 1)).toEqual([
      { subset: [], coefficient: 1 },
      { subset: [0, 1, 2, 3], coefficient: -1 },
    ]);
  });

  it('auto picks the negation trick exactly when it has fewer terms (r ≤ k/2)', () => {
    for (let k = 1; k <= 8; k++) {
      for (let r = 1; r <= k; r++) {
        const plain = thresholdTerms(k, r).length;
        const negated = negatedThresholdTerms(k, r).length;
        expect(prefersNegation(k, r)).toBe(negated < plain);
        expect(thresholdExpansion(k, r).form).toBe(prefersNegation(k, r) ? 'negated' : 'plain');
      }
    }
  });

  it('both forms equal the Poisson-binomial tail at every point (property)', () => {
    fc.assert(
      fc.property(
        kr.chain(([k, r]) =>
          fc.tuple(
            fc.constant(k),
            fc.constant(r),
            fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: k, maxLength: k }),
          ),
        ),
        ([k, r, p]) => {
          const oracle = poissonBinomialTail(p, r);
          expect(evaluate(thresholdTerms(k, r), p, false)).toBeCloseTo(oracle, 10);
          expect(evaluate(negatedThresholdTerms(k, r), p, true)).toBeCloseTo(oracle, 10);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects r outside 1..k', () => {
    expect(() => thresholdTerms(3, 0)).toThrow(RangeError);
    expect(() => thresholdTerms(3, 4)).toThrow(RangeError);
  });
});

describe('broadcast-add and combineTables', () => {
  const subsetArb = fc
    .array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 })
    .chain((dims) =>
      fc.tuple(
        fc.constant(dims),
        fc.subarray(dims.map((_, p) => p)),
        fc.double({ min: -3, max: 3, noNaN: true }),
      ),
    );

  it('adds c · table[y_T] to every cell y (property, against a literal loop)', () => {
    fc.assert(
      fc.property(subsetArb, ([dims, subset, c]) => {
        const subDims = subset.map((p) => dims[p]);
        const table = Float64Array.from({ length: tableSize(subDims) }, (_, i) => i * 0.5 + 1);
        const out = Float64Array.from({ length: tableSize(dims) }, (_, i) => i);
        broadcastAdd(out, dims, subset, table, c);
        for (let q = 0; q < out.length; q++) {
          const y = localIndexToTarget(q, dims);
          let sub = 0;
          for (const p of subset) sub = sub * dims[p] + y[p];
          expect(out[q]).toBeCloseTo(q + c * table[sub], 12);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('combines terms, the empty subset as the constant 1 without asking for a table', () => {
    const asked: string[] = [];
    const out = combineTables(
      2,
      [2, 3],
      [
        { subset: [], coefficient: 1 },
        { subset: [1], coefficient: -1 },
        { subset: [0], coefficient: 2 },
      ],
      (subset) => {
        asked.push(subset.join(','));
        return subset[0] === 0 ? Float64Array.of(10, 20) : Float64Array.of(1, 2, 3);
      },
    );
    expect(asked).toEqual(['1', '0']);
    expect([...out]).toEqual([20, 19, 18, 40, 39, 38]);
  });

  it('refuses a table of the wrong size', () => {
    expect(() => combineTables(1, [3], [{ subset: [0], coefficient: 1 }], () => new Float64Array(2))).toThrow(
      /expected 3/,
    );
  });
});
