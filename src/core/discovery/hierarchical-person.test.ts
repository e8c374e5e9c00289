/**
 * Hierarchical codes at the person level, on neighbouring datasets: D and D′ differ in ONE
 * person's rows (replaced, removed or added; that person's codes in one subtree or spread, with
 * many rows before bounding), both bounded to k rows per person as release/person.ts does. Each
 * level's distinct-person key counts (hierarchy-counts.ts) must move by at most the sensitivity
 * its σ was computed from — read back from the discovery's own σ and ρ, never re-derived — and
 * the keys held in one neighbour only must have count 1, at most k per side (partition selection's
 * δ with keysPerPerson = k).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HIERARCHY_PRESETS, keyAt, parseHierarchy } from '../data/hierarchy.ts';
import { boundContributions, personIndices } from '../privacy/contribution.ts';
import { seededNoise } from '../privacy/noise.ts';
import { makePartitionSelection } from '../privacy/partition-selection.ts';
import { discoverHierarchical, levelKeyCounts, personLevelKeyCounts } from './hierarchical.ts';
import { HierarchyCounts } from './hierarchy-counts.ts';
import { DiscoveryProfile } from './profile.ts';

type Row = readonly [person: string, code: string];

/** Codes sharing letters and categories, so one person's rows can pile into one key or spread. */
const CODES = ['C34.10', 'C34.90', 'C34', 'C50.1', 'I10', 'I21.4', 'J18.9', 'J18.0', 'J45', 'Z00.0', '', '?'];
const MARKERS = ['', '?'];
const RHO = 0.3;
const DELTA = 1e-6;

const caseArb = fc
  .constantFrom(1, 2, 4, 8)
  .chain((k) =>
    fc.record({
      k: fc.constant(k),
      // Everyone else already within k rows, so bounding draws nothing for them (the coupling).
      others: fc.array(fc.array(fc.nat({ max: CODES.length - 1 }), { minLength: 1, maxLength: k }), {
        minLength: 0,
        maxLength: 12,
      }),
      before: fc.array(fc.nat({ max: CODES.length - 1 }), { minLength: 0, maxLength: 3 * k }),
      after: fc.array(fc.nat({ max: CODES.length - 1 }), { minLength: 0, maxLength: 3 * k }),
      repeat: fc.constantFrom(1, 50),
      seed: fc.integer(),
    }),
  )
  .filter((c) => c.before.length + c.after.length > 0);

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function neighbours(c: Case): [Row[], Row[]] {
  const base: Row[] = c.others.flatMap((codes, p) => codes.map((i) => [`p${p}`, CODES[i]] as Row));
  const person = (codes: number[]): Row[] =>
    codes.flatMap((i) => Array.from({ length: c.repeat }, () => ['z', CODES[i]] as Row));
  const bound = (rows: Row[]) => {
    const { person: of, persons } = personIndices(rows.map((x) => x[0]));
    const b = boundContributions(of, persons, c.k, seededNoise(c.seed));
    const out: Row[] = [];
    for (let p = 0; p < persons; p++)
      for (let j = 0; j < b.taken[p]; j++) out.push(rows[b.order[b.start[p] + j]]);
    return out;
  };
  return [bound([...base, ...person(c.before)]), bound([...base, ...person(c.after)])];
}

const icd = HIERARCHY_PRESETS.icd10;

function profile(rows: readonly Row[], h = icd): HierarchyCounts {
  const p = new DiscoveryProfile(['dx'], MARKERS, 'person', (n, forms) => new HierarchyCounts(n, forms, h));
  p.start('f.csv', ['person', 'dx']);
  for (const r of rows) p.row(r);
  return p.columns[0];
}

/** Level l's counts (every key, the missing markers at the top) as a map. */
function level(c: HierarchyCounts, l: number): Map<string, number> {
  const m = new Map(c.keyPersons[l]);
  if (l === 0) for (const [i, x] of c.formPersons.entries()) if (x > 0) m.set(`m${i}`, x);
  return m;
}

const l2 = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>) => {
  let s = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) s += ((a.get(k) ?? 0) - (b.get(k) ?? 0)) ** 2;
  return Math.sqrt(s);
};
const EPS = 1e-9;
/** What a Gaussian σ at ρ was computed from: Δ₂ = σ·√(2ρ). */
const gaussianSensitivity = (sigma: number, rho: number) => sigma * Math.sqrt(2 * rho);

describe('hierarchical codes at the person level: neighbouring datasets (D, D′ differ in one person)', () => {
  it("each level's distinct-person key counts move by at most the level's stated sensitivity; keys in one side only have count 1, ≤ k per side (property)", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const [d, e] = neighbours(c).map((rows) => profile(rows));
        const found = discoverHierarchical(d, icd, RHO, DELTA, seededNoise(1), 'f.csv', 100, c.k, MARKERS);
        found.levels.forEach((lv, l) => {
          const [a, b] = [level(d, l), level(e, l)];
          // The level's σ states its sensitivity: σ·√(2ρ_l) = √(2k).
          expect(l2(a, b)).toBeLessThanOrEqual(gaussianSensitivity(lv.sigma, lv.rho) + EPS);
          const onlyA = [...a.keys()].filter((key) => !b.has(key));
          const onlyB = [...b.keys()].filter((key) => !a.has(key));
          for (const key of onlyA) expect(a.get(key)).toBe(1);
          for (const key of onlyB) expect(b.get(key)).toBe(1);
          expect(onlyA.length).toBeLessThanOrEqual(c.k);
          expect(onlyB.length).toBeLessThanOrEqual(c.k);
          if (lv.mechanism === 'partition-selection') {
            const sel = makePartitionSelection(lv.rho, lv.delta, c.k);
            expect(lv.threshold).toBeCloseTo(sel.threshold, 9);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('counts each key once per person, and rows (the row-level counts) outside a person', () => {
    // One person with C34.10, C34.90 and C34 (three rows): one person under C, one under C34.
    const c = profile([
      ['a', 'C34.10'],
      ['a', 'C34.90'],
      ['a', 'C34'],
      ['b', 'C34.10'],
    ]);
    expect(c.keyPersons[0].get('C')).toBe(2);
    expect(c.keyPersons[1].get('C34')).toBe(2);
    expect(c.keyPersons[2].get('C34.10')).toBe(2);
    expect(c.keyPersons[2].get('C34.90')).toBe(1);
    // Without persons the same class counts rows, as levelKeyCounts does from the values.
    const rows = new HierarchyCounts('dx', 1, icd);
    for (const v of ['C34.10', 'C34.90', 'C34', 'C34.10', 'I10']) rows.add(v, false);
    for (let l = 0; l < 3; l++) {
      const parents = new Set(l === 0 ? [] : [...rows.keyPersons[l - 1].keys()]);
      expect(personLevelKeyCounts(rows, l, parents)).toEqual(levelKeyCounts(rows.values!, icd, l, parents));
    }
  });

  it('a private level (no alphabet) measures only the keys under a released parent', () => {
    const h = parseHierarchy('1,3,full');
    const c = profile(
      [
        ['a', 'C34.1'],
        ['b', 'D10.2'],
      ],
      h,
    );
    const under = personLevelKeyCounts(c, 2, new Set(['C34']));
    expect([...under.keys()]).toEqual(['C34.1']);
    expect(keyAt(h, 'C34.1', 1)).toBe('C34');
  });

  it('refuses plain ColumnCounts at the person level (an internal error, never a silent row count)', () => {
    const p = new DiscoveryProfile(['dx'], MARKERS, 'person');
    p.start('f.csv', ['person', 'dx']);
    p.row(['a', 'C34.1']);
    expect(() => discoverHierarchical(p.columns[0], icd, RHO, DELTA, seededNoise(1), 'f.csv', 1, 2)).toThrow(
      /HierarchyCounts/,
    );
  });
});
