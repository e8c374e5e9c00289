import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BOUND_GRID,
  BOUND_HISTOGRAM_SENSITIVITY,
  boundContributions,
  boundHistogram,
  chooseBound,
  chooseBoundFromHistogram,
  estimateRows,
  keptRanks,
  personIndices,
  rowCountSensitivity,
  rowsPerPerson,
  sampleRanks,
} from './contribution.ts';
import { secureNoise, seededNoise } from './noise.ts';
import { chiSquare } from './testing/stats.ts';

const l2 = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return Math.sqrt(s);
};

/** Row counts per person, as a dataset of person ids (rows of person p carry id `p${p}`). */
const personsArb = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 });
const idsOf = (rows: readonly number[]) => rows.flatMap((r, p) => Array.from({ length: r }, () => `p${p}`));

describe('boundContributions', () => {
  it('keeps min(rows, k) records of every person and nothing else (property)', () => {
    fc.assert(
      fc.property(personsArb, fc.integer({ min: 1, max: 10 }), fc.integer(), (rows, k, seed) => {
        const { person, persons } = personIndices(idsOf(rows));
        const b = boundContributions(person, persons, k, seededNoise(seed));
        const kept = new Array<number>(persons).fill(0);
        b.keep.forEach((x, i) => {
          if (x) kept[person[i]]++;
        });
        expect(kept).toEqual(rows.map((r) => Math.min(r, k)));
        expect(b.kept).toBe(rows.reduce((a, r) => a + Math.min(r, k), 0));
      }),
    );
  });

  it('keeps a uniform k-subset of a person with more rows (χ², 10 subsets of 5 choose 2, α = 1e-6)', () => {
    // 10 subsets, 9 degrees of freedom: P(χ² > 41.2) = 1e-6 under uniformity. 20,000 draws give
    // power ≈ 1 against any subset 20% over or under its share (non-centrality 20,000·0.1·0.04 = 80).
    const { person, persons } = personIndices(['a', 'a', 'a', 'a', 'a']);
    const noise = seededNoise(7);
    const counts = new Map<string, number>();
    for (let t = 0; t < 20_000; t++) {
      const b = boundContributions(person, persons, 2, noise);
      const key = Array.from(b.keep).join('');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(10);
    const observed = [...counts.values()];
    expect(
      chiSquare(
        observed,
        observed.map(() => 0.1),
      ),
    ).toBeLessThan(41.2);
  });

  it('runs on the secure source', () => {
    const { person, persons } = personIndices(idsOf([12, 1, 3]));
    const b = boundContributions(person, persons, 2, secureNoise());
    expect(b.kept).toBe(5);
  });
});

/** D and D′: person `who` of D has its rows replaced by `rows′` (0 = removed), or a person is added. */
const neighbourArb = fc.record({
  rows: personsArb,
  who: fc.nat(),
  replacement: fc.integer({ min: 0, max: 64 }),
  add: fc.boolean(),
  k: fc.constantFrom(1, 2, 4, 8),
});

describe('person-level sensitivities on neighbouring datasets (one person added, removed or replaced)', () => {
  it('the bounded row count moves by at most k (its stated sensitivity)', () => {
    fc.assert(
      fc.property(neighbourArb, fc.integer(), ({ rows, who, replacement, add, k }, seed) => {
        const other = add
          ? [...rows, replacement || 1]
          : rows.map((r, p) => (p === who % rows.length ? replacement : r));
        const bounded = (rs: readonly number[]) => {
          const { person, persons } = personIndices(idsOf(rs.filter((r) => r > 0)));
          return boundContributions(person, persons, k, seededNoise(seed)).kept;
        };
        expect(Math.abs(bounded(rows) - bounded(other))).toBeLessThanOrEqual(rowCountSensitivity(k));
      }),
    );
  });

  it('the histogram that chooses k moves by at most √2 in ℓ2 (a person changes bucket)', () => {
    fc.assert(
      fc.property(neighbourArb, ({ rows, who, replacement, add }) => {
        const other = add
          ? [...rows, replacement || 1]
          : rows.map((r, p) => (p === who % rows.length ? replacement : r));
        const h = (rs: readonly number[]) => boundHistogram(rs.filter((r) => r > 0));
        expect(l2(h(rows), h(other))).toBeLessThanOrEqual(BOUND_HISTOGRAM_SENSITIVITY + 1e-12);
      }),
    );
  });

  it('estimateRows and chooseBound state the σ of their sensitivity at ρ (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 10, noNaN: true }), fc.constantFrom(1, 2, 4, 8), (rho, k) => {
        const e = estimateRows(1000, k, rho, seededNoise(1));
        expect(rowCountSensitivity(k) ** 2 / (2 * e.sigma ** 2) / rho).toBeCloseTo(1, 10);
        const c = chooseBound([1, 2, 3], rho, seededNoise(1));
        expect(BOUND_HISTOGRAM_SENSITIVITY ** 2 / (2 * c.sigma ** 2) / rho).toBeCloseTo(1, 10);
      }),
    );
  });
});

describe('chooseBound', () => {
  it('picks the grid value at the 90th percentile of rows per person when the noise is small', () => {
    // 1,000 persons: 600 with 1 row, 250 with 2, 100 with 3, 50 with 20: 90th percentile = 3 → k = 4.
    const rows = [...Array(600).fill(1), ...Array(250).fill(2), ...Array(100).fill(3), ...Array(50).fill(20)];
    const { k } = chooseBound(rows, 10, seededNoise(3));
    expect(k).toBe(4);
    expect(BOUND_GRID).toContain(k);
  });

  it('reads only the histogram (the same histogram gives the same k under the same noise)', () => {
    const a = rowsPerPerson(personIndices(idsOf([1, 5, 2, 9])).person, 4);
    const b = rowsPerPerson(personIndices(idsOf([9, 2, 1, 5])).person, 4);
    expect(chooseBound(a, 0.5, seededNoise(9)).k).toBe(chooseBound(b, 0.5, seededNoise(9)).k);
  });
});

describe('sampleRanks / keptRanks (the draws the SQL bounding shares)', () => {
  it("keep the records boundContributions keeps, from the same draws (one person's k-subset)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer(),
        (r, k, seed) => {
          fc.pre(r > k); // a person within k keeps every record, and nothing is drawn
          const b = boundContributions(new Int32Array(r), 1, k, seededNoise(seed));
          const kept = keptRanks(r, sampleRanks(r, k, seededNoise(seed)));
          expect([...kept]).toEqual([...b.order.slice(0, Math.min(r, k))]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('chooseBoundFromHistogram on boundHistogram = chooseBound', () => {
    const rows = [1, 1, 2, 3, 5, 9, 70, 4, 4, 1];
    expect(chooseBoundFromHistogram(boundHistogram(rows), 0.3, seededNoise(4))).toEqual(
      chooseBound(rows, 0.3, seededNoise(4)),
    );
  });
});
