/**
 * Every mechanism at the person level, tested on neighbouring datasets: D and D′ differ in ONE
 * person's rows (replaced, removed or added; the person holding k rows in one cell, spread over k
 * cells, or many more rows than k before bounding). After contribution bounding to k rows, the
 * statistic each mechanism adds noise to must move by at most the sensitivity its σ (or Gumbel
 * scale) was computed from — read back from the mechanism's own scale, never re-derived.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EncodedDataset, Schema } from '../data/schema.ts';
import { discoverCategorical } from '../discovery/categorical.ts';
import { discoverNumeric, LEVEL1_SENSITIVITY, measureLevel1 } from '../discovery/numeric.ts';
import { DiscoveryProfile } from '../discovery/profile.ts';
import { ExactAnswers } from '../engine/exact-answers.ts';
import { measurementSigma } from '../engine/measure.ts';
import { scalesFor } from '../engine/table-mode/rho-schedule.ts';
import { boundContributions, personIndices } from '../privacy/contribution.ts';
import { seededNoise } from '../privacy/noise.ts';
import { makePartitionSelection } from '../privacy/partition-selection.ts';
import { gumbelScale } from '../privacy/selection.ts';
import type { Threshold } from '../workload/types.ts';
import { workloadWithoutUnit } from './person.ts';

/** A record: person id, a category (a…e) and a number (text; '' is missing, 'x' a text). */
type Row = readonly [string, string, string];

const CATS = ['a', 'b', 'c', 'd', 'e'];
const NUMS = ['0', '3', '7.5', '40', '1000.5', '-2', '', 'x'];
const N_HAT = 60; // the public normaliser n̂ (any public value: the sensitivities are in its units)
const RHO = 0.3;

const rowArb = (id: string) =>
  fc.tuple(fc.constant(id), fc.constantFrom(...CATS), fc.constantFrom(...NUMS)) as fc.Arbitrary<Row>;

/** The changed person: k rows in one cell, spread over k cells, or `many` rows in one cell. */
function changed(id: string, k: number, shape: 'one-cell' | 'spread' | 'many', cell: number): Row[] {
  if (shape === 'spread')
    return Array.from({ length: k }, (_, j) => [id, CATS[(cell + j) % 5], NUMS[(cell + j) % 8]]);
  const n = shape === 'many' ? 200 : k;
  return Array.from({ length: n }, () => [id, CATS[cell % 5], NUMS[cell % 8]]);
}

const caseArb = fc
  .constantFrom(1, 2, 4, 8)
  .chain((k) =>
    fc.record({
      k: fc.constant(k),
      // Everyone else already within k rows, so bounding draws nothing for them (the coupling).
      others: fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: k }), { minLength: 1, maxLength: 12 }),
      seedRows: fc.array(rowArb('?'), { minLength: 100, maxLength: 100 }),
      before: fc.constantFrom('one-cell', 'spread', 'many', 'absent'),
      after: fc.constantFrom('one-cell', 'spread', 'many', 'absent'),
      cellBefore: fc.nat({ max: 39 }),
      cellAfter: fc.nat({ max: 39 }),
      seed: fc.integer(),
    }),
  )
  .filter((c) => c.before !== 'absent' || c.after !== 'absent');

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** D and D′ bounded to k rows per person (rows grouped by person, as release/person.ts writes them). */
function neighbours(c: Case): [Row[], Row[]] {
  let r = 0;
  const base: Row[] = c.others.flatMap((rows, p) =>
    rows.map(() => {
      const s = c.seedRows[r++ % c.seedRows.length];
      return [`p${p}`, s[1], s[2]] as Row;
    }),
  );
  const make = (shape: string, cell: number) =>
    shape === 'absent' ? [] : changed('z', c.k, shape as 'one-cell', cell);
  const bound = (rows: Row[]) => {
    const { person, persons } = personIndices(rows.map((x) => x[0]));
    const b = boundContributions(person, persons, c.k, seededNoise(c.seed));
    const out: Row[] = [];
    for (let p = 0; p < persons; p++)
      for (let j = 0; j < b.taken[p]; j++) out.push(rows[b.order[b.start[p] + j]]);
    return out;
  };
  return [bound([...base, ...make(c.before, c.cellBefore)]), bound([...base, ...make(c.after, c.cellAfter)])];
}

const SCHEMA: Schema = {
  version: 1,
  origin: 'declared',
  columns: [
    { name: 'cat', kind: 'categorical', categories: CATS, missing: false },
    { name: 'num', kind: 'categorical', categories: NUMS, missing: false },
  ],
};

function encode(rows: readonly Row[]): EncodedDataset {
  return {
    schema: SCHEMA,
    n: rows.length,
    codes: [
      Uint8Array.from(rows, (x) => CATS.indexOf(x[1])),
      Uint8Array.from(rows, (x) => NUMS.indexOf(x[2])),
    ],
  };
}

const l2 = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return Math.sqrt(s);
};
const l1 = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s;
};
const EPS = 1e-9;

/** What a Gaussian σ at ρ was computed from: Δ₂ = σ·√(2ρ). */
const gaussianSensitivity = (sigma: number, rho: number) => sigma * Math.sqrt(2 * rho);
/** What a Gumbel scale for one exponential mechanism at ρ was computed from: Δ = β·√(2ρ). */
const gumbelSensitivity = (scale: number, rho: number) => scale * Math.sqrt(2 * rho);

const TABLES: Threshold[] = [
  { features: [0], r: 1, weight: 1 },
  { features: [1], r: 1, weight: 1 },
  { features: [0, 1], r: 2, weight: 1 },
];
const QUERIES: Threshold = { features: [0, 1], r: 1, weight: 1 }; // 1-of-2: a row answers many

describe('engine measurements at the person level (answers over the public n̂)', () => {
  it('N tables measured together move by at most k√(2N)/n̂ in ℓ2 (measurementSigma)', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const [d, e] = neighbours(c).map((rows) => new ExactAnswers(encode(rows), undefined, N_HAT));
        const all = (x: ExactAnswers) => Float64Array.from(TABLES.flatMap((t) => [...x.of(t)]));
        const sigma = measurementSigma(RHO, { tables: TABLES.length }, N_HAT, c.k);
        expect(l2(all(d), all(e))).toBeLessThanOrEqual(gaussianSensitivity(sigma, RHO) + EPS);
      }),
      { numRuns: 300 },
    );
  });

  it('m counting queries move by at most k√m/n̂ in ℓ2, each by k/n̂ (query measurement and selection)', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const [d, e] = neighbours(c).map((rows) =>
          new ExactAnswers(encode(rows), undefined, N_HAT).of(QUERIES),
        );
        const m = d.length;
        const sigma = measurementSigma(RHO, { queries: m }, N_HAT, c.k);
        expect(l2(d, e)).toBeLessThanOrEqual(gaussianSensitivity(sigma, RHO) + EPS);
        // The query score w·|exact − synthetic| (w ≤ 1), with the scale rap.ts uses for K = 1.
        const scoreMove = Math.max(...d.map((x, i) => Math.abs(x - e[i])));
        expect(scoreMove).toBeLessThanOrEqual(gumbelSensitivity(gumbelScale(RHO, 1, N_HAT, c.k), RHO) + EPS);
      }),
      { numRuns: 300 },
    );
  });

  it("table mode's selection score (ℓ1 gap to a fixed D') moves by at most 2k/n̂, and its measurement by k√2/n̂", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const [d, e] = neighbours(c).map((rows) =>
          new ExactAnswers(encode(rows), undefined, N_HAT).of(TABLES[2]),
        );
        const s = scalesFor(1, RHO, N_HAT, false, c.k);
        // |‖d − r‖₁ − ‖e − r‖₁| ≤ ‖d − e‖₁ for any relaxed r: the score's move.
        expect(l1(d, e)).toBeLessThanOrEqual(gumbelSensitivity(s.gumbel, s.rhoSelect) + EPS);
        expect(l2(d, e)).toBeLessThanOrEqual(gaussianSensitivity(s.sigma, s.rhoMeasure) + EPS);
      }),
      { numRuns: 300 },
    );
  });
});

function profile(rows: readonly Row[]): DiscoveryProfile {
  const p = new DiscoveryProfile(['cat', 'num'], [''], 'id');
  p.start('test.csv', ['id', 'cat', 'num']);
  for (const r of rows) p.row(r);
  return p;
}

describe('discovery at the person level', () => {
  it("level 1 (grid, missing, text, fractional counts) moves by at most k√3, level 2 by k√2 (numeric.ts's σ)", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const [d, e] = neighbours(c).map((rows) => profile(rows).columns[1]);
        const vec = (x: typeof d) => Float64Array.from([...x.octaves, x.missing, x.texts, x.fractional]);
        const l1out = measureLevel1(d, N_HAT, RHO, seededNoise(1), c.k);
        expect(l1out.sigma).toBeCloseTo((c.k * LEVEL1_SENSITIVITY) / Math.sqrt(2 * RHO), 12);
        expect(l2(vec(d), vec(e))).toBeLessThanOrEqual(gaussianSensitivity(l1out.sigma, RHO) + EPS);
        const keys = [...new Set([...d.fine.keys(), ...e.fine.keys()])];
        const fine = (x: typeof d) => Float64Array.from(keys, (key) => x.fine.get(key) ?? 0);
        const level2 = discoverNumeric(d, l1out, RHO, seededNoise(2), { bins: 4, bound: c.k });
        expect(l2(fine(d), fine(e))).toBeLessThanOrEqual(gaussianSensitivity(level2.level2Sigma, RHO) + EPS);
      }),
      { numRuns: 300 },
    );
  });

  it('partition selection counts distinct persons: keys in both move by ≤ √(2k); ≤ 2k keys of count 1 in one only', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const [d, e] = neighbours(c).map((rows) => profile(rows).columns[0].values!);
        const sel = makePartitionSelection(RHO, 1e-6, c.k);
        const both = [...d.keys()].filter((key) => e.has(key));
        const moved = l2(
          both.map((key) => d.get(key)!),
          both.map((key) => e.get(key)!),
        );
        expect(moved).toBeLessThanOrEqual(gaussianSensitivity(sel.sigma, RHO) + EPS);
        const onlyD = [...d.keys()].filter((key) => !e.has(key));
        const onlyE = [...e.keys()].filter((key) => !d.has(key));
        for (const key of onlyD) expect(d.get(key)).toBe(1);
        for (const key of onlyE) expect(e.get(key)).toBe(1);
        // δ = 2k·Q((τ − 1)/σ) covers at most 2k such keys.
        expect(onlyD.length + onlyE.length).toBeLessThanOrEqual(2 * sel.keysPerPerson);
      }),
      { numRuns: 300 },
    );
  });
});

describe('workloadWithoutUnit', () => {
  it('refuses a threshold on the unit column and renumbers the others', () => {
    const w = { thresholds: [{ features: [0, 2], r: 2, weight: 1 }] };
    expect(workloadWithoutUnit(w, 1, 'patient_id').thresholds[0].features).toEqual([0, 1]);
    expect(() => workloadWithoutUnit(w, 2, 'patient_id')).toThrow(/unit column "patient_id".*never released/);
  });
});

/** P(X ≥ c) for X ~ Binomial(n, p), by summing the pmf in log space. */
function binomialUpperTail(n: number, p: number, c: number): number {
  let logPmf = n * Math.log1p(-p); // P(X = 0)
  let tail = c <= 0 ? 1 : 0;
  for (let x = 1; x <= n; x++) {
    logPmf += Math.log((n - x + 1) / x) + Math.log(p) - Math.log1p(-p);
    if (x >= c) tail += Math.exp(logPmf);
  }
  return tail;
}

describe('a category held by one person across many rows (partition selection, statistical)', () => {
  // 150 persons share 'common'; one person holds 'rare' in all of their 500 rows.
  const rows: Row[] = [];
  for (let p = 0; p < 150; p++) rows.push([`p${p}`, 'common', '1']);
  for (let j = 0; j < 500; j++) rows.push(['heavy', 'rare', '1']);
  const K = 4;
  const DELTA = 0.2;
  const TRIALS = 4000;

  it(`is released no more often than δ/k at the person level (${TRIALS} draws, α = 1e-6)`, () => {
    const { person, persons } = personIndices(rows.map((r) => r[0]));
    const b = boundContributions(person, persons, K, seededNoise(5));
    const bounded: Row[] = [];
    for (let p = 0; p < persons; p++)
      for (let j = 0; j < b.taken[p]; j++) bounded.push(rows[b.order[b.start[p] + j]]);
    const counts = profile(bounded).columns[0];
    expect(counts.values!.get('rare')).toBe(1); // one person, however many rows
    const sel = makePartitionSelection(RHO, DELTA, K);
    const bound = DELTA / K; // ≥ Q((τ − 1)/σ): what one key held by one person may cost (partition-selection.ts)
    let released = 0;
    const noise = seededNoise(11);
    for (let t = 0; t < TRIALS; t++) {
      if (
        discoverCategorical(counts, RHO, DELTA, noise, 'test.csv', rows.length, K).column.categories.includes(
          'rare',
        )
      )
        released++;
    }
    // The smallest c with P(X ≥ c) ≤ 1e-6 under the bound: a correct mechanism fails with
    // probability ≤ 1e-6. Power: at twice the bound (p = 0.1) the test rejects with probability
    // P(Binomial(4000, 0.05) ≥ c) > 0.999.
    let c = Math.ceil(TRIALS * bound);
    while (binomialUpperTail(TRIALS, bound, c) > 1e-6) c++;
    expect(binomialUpperTail(TRIALS, 2 * bound, c)).toBeGreaterThan(0.999);
    expect(released).toBeLessThan(c);
    expect(sel.threshold).toBeGreaterThan(1);
  });

  it('while at the row level (rows counted, k = 1) the same category is released almost always', () => {
    const p = new DiscoveryProfile(['cat'], ['']);
    p.start('test.csv', ['id', 'cat', 'num']);
    for (const r of rows) p.row(r);
    const noise = seededNoise(12);
    let released = 0;
    for (let t = 0; t < 200; t++) {
      if (
        discoverCategorical(
          p.columns[0],
          RHO,
          DELTA,
          noise,
          'test.csv',
          rows.length,
        ).column.categories.includes('rare')
      )
        released++;
    }
    expect(released).toBe(200);
  });
});
