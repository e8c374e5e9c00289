import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HIERARCHY_PRESETS, parseHierarchy } from '../data/hierarchy.ts';
import { loadCsv } from '../data/load.ts';
import type { CategoricalColumn } from '../data/schema.ts';
import { tempDir } from '../data/testing.ts';
import { gaussianCountsRho } from '../privacy/counts.ts';
import { seededNoise } from '../privacy/noise.ts';
import { normalUpperTail } from '../privacy/normal-tail.ts';
import { partitionSelectionDelta } from '../privacy/partition-selection.ts';
import { discoverSchema } from './discover.ts';
import {
  discoverHierarchical,
  LEVEL_SENSITIVITY,
  levelKeyCounts,
  SPURIOUS,
  SPURIOUS_TOP,
  spuriousAt,
} from './hierarchical.ts';
import { ColumnCounts, MISSING_KEY } from './profile.ts';

const dir = tempDir('rap-hierarchy-');
afterAll(() => dir.remove());

function countsOf(name: string, values: readonly [string, number][]): ColumnCounts {
  const c = new ColumnCounts(name);
  for (const [v, k] of values) for (let i = 0; i < k; i++) c.add(v, v === '');
  return c;
}

const icd = HIERARCHY_PRESETS.icd10;

describe('level-by-level discovery: a code held by one record', () => {
  /*
   * Digit codes with levels 1, 2 (public alphabets: digits) and the full code (private keys):
   * D: 34.10 ×2000 (so 3 and 34 pass), 34.90 ×1 (a full code one record holds), 90.0 ×2000 and
   * 99.1 ×1 (a 2-digit category one record holds), 12 ×2000. ρ = 3 (σ = 1 per level), δ = 0.06
   * (δ = 0.02 per level). N = 20,000 runs.
   * - 34.90's full code is a private level (partition selection): it is released with
   *   probability ≤ δ_l = 0.02. Under that bound releases are Binomial(N, ≤ 0.02): mean ≤ 400,
   *   sd ≤ 19.8; the test fails above 400 + 4 sd (false alarm ≤ 3·10⁻⁵). Power: a true rate 1.25×
   *   the bound (mean 500) fails with probability 0.84; 1.5× (as if δ were not split over the
   *   levels: 0.03) with probability > 0.999.
   * - 99 is a public level (a Gaussian histogram over the passed first digits × 10 candidates): it
   *   is released with probability Q((τ_t − 1)/σ) in run t, τ_t = σ·Q⁻¹(SPURIOUS/m_t); the count
   *   must match the sum of those within 4 sd (either way: not vacuous, and no finer than stated).
   * A record whose code is not released is held by its finest released prefix (34, 9): the
   * encoding test in data/hierarchy.test.ts.
   */
  it('releases it at its full level no more often than the level δ, and at a public level as stated (statistical test with power)', () => {
    const counts = countsOf('code', [
      ['34.10', 2000],
      ['34.90', 1],
      ['90.0', 2000],
      ['99.1', 1],
      ['12', 2000],
    ]);
    const h = parseHierarchy('1,2,full,digits');
    const noise = seededNoise('hierarchy-singleton');
    const N = 20_000;
    let full = 0;
    let category = 0;
    let expectedCategory = 0;
    let coarse = 0;
    for (let t = 0; t < N; t++) {
      const d = discoverHierarchical(counts, h, 3, 0.06, noise, 'f.csv', 6002);
      const cats = new Set(d.column.categories);
      if (cats.has('34.90')) full++;
      if (cats.has('99')) category++;
      if (cats.has('34') && cats.has('9')) coarse++;
      const l1 = d.levels[1];
      expectedCategory += normalUpperTail((l1.threshold - 1) / l1.sigma);
      expect(d.levels[2].delta).toBeCloseTo(0.02, 12);
      expect(partitionSelectionDelta(d.levels[2].sigma, d.levels[2].threshold)).toBeLessThanOrEqual(0.02);
    }
    const bound = N * 0.02;
    expect(full).toBeLessThanOrEqual(bound + 4 * Math.sqrt(bound * 0.98));
    expect(full).toBeGreaterThan(0.5 * bound); // not vacuous: the rate is about δ_l
    expect(Math.abs(category - expectedCategory)).toBeLessThan(4 * Math.sqrt(expectedCategory) + 1);
    expect(expectedCategory / N).toBeLessThan(0.03); // Q(Q⁻¹(0.05/30) − 1) ≈ 0.026 at σ = 1
    expect(coarse).toBe(N); // the prefixes 2,000 records hold are always released
  }, 120_000);
});

describe('the top level of a public alphabet: the chapter letters', () => {
  /*
   * hospital-visits' chapter letters (20 letters, 270 to 4,997 records; 6 letters and the missing
   * key hold none) at the column's ρ of ε = 1 there: ρ_c = 5.69·10⁻⁴, of which the preset gives
   * the letters 0.45 (σ = 62.5). The top bar is τ = σ·Q⁻¹(SPURIOUS_TOP/m) ≈ 112, m = 27
   * candidates. N = 2,000 runs.
   * - Phantom letters (released keys of count 0): Σ over runs of 7 Bernoulli(Q(τ/σ)) — mean
   *   N·7/27 ≈ 519 (SPURIOUS_TOP = 1 per run at most), sd ≈ 22.3; the test fails beyond 4 sd either
   *   way (false alarm ≤ 7·10⁻⁵). Power: the old bar (SPURIOUS = 0.05: mean 26) fails with
   *   probability ≈ 1; a rate 1.25× the stated one (mean 648, 5.8 sd off) with probability 0.94.
   * - Misses of the 270-record letter L: Binomial(N, Q((270 − τ)/σ) ≈ 0.0057): mean ≈ 11.4, sd
   *   3.4; fails above mean + 4 sd (≈ 25). Power: the old bar (SPURIOUS = 0.05: τ ≈ 181, miss rate
   *   0.078, mean ≈ 156) fails with probability ≈ 1; equal level shares (σ = 72.6, τ ≈ 130, rate
   *   0.027, mean ≈ 54) and a miss rate 3× the stated one (mean ≈ 34) with probability ≥ 0.93.
   */
  it('releases about SPURIOUS_TOP phantom letters per column and keeps a 270-record letter (statistical test with power)', () => {
    // Letter and record count, as in ../shared/datasets/hospital-visits/visits.csv.
    const letters = (
      'L270 G273 B276 H289 T297 Q300 D304 Z593 C891 S920 A923 M1193 F1202 K1202 O1696 N1862 R2142 ' +
      'E3039 J3911 I4997'
    )
      .split(' ')
      .map((t) => [t[0], Number(t.slice(1))] as [string, number]);
    const counts = countsOf(
      'dx',
      letters.map(([l, c]) => [`${l}00`, c]),
    );
    const n = letters.reduce((a, [, c]) => a + c, 0);
    const rhoColumn = 3 * 1.9e-4;
    const noise = seededNoise('hierarchy-letters');
    const N = 2000;
    const real = new Set(letters.map(([l]) => l));
    let phantoms = 0;
    let missL = 0;
    let expectedPhantoms = 0;
    let expectedMissL = 0;
    for (let t = 0; t < N; t++) {
      const d = discoverHierarchical(counts, icd, rhoColumn, 1e-10, noise, 'f.csv', n);
      const top = d.levels[0];
      const m = top.candidates!;
      expect(normalUpperTail(top.threshold / top.sigma) * m).toBeCloseTo(SPURIOUS_TOP, 5);
      const cats = new Set(d.column.categories);
      phantoms += d.column.categories.filter((k) => k.length === 1 && !real.has(k)).length;
      if (d.column.missing) phantoms++;
      if (!cats.has('L')) missL++;
      expectedPhantoms += (m - real.size) * normalUpperTail(top.threshold / top.sigma);
      expectedMissL += 1 - normalUpperTail((top.threshold - 270) / top.sigma);
    }
    const p = expectedPhantoms / N / 7;
    expect(Math.abs(phantoms - expectedPhantoms)).toBeLessThan(4 * Math.sqrt(N * 7 * p * (1 - p)));
    expect(expectedPhantoms / N).toBeLessThanOrEqual(SPURIOUS_TOP);
    expect(missL).toBeLessThan(expectedMissL + 4 * Math.sqrt(expectedMissL));
    expect(expectedMissL / N).toBeLessThan(0.04);
    expect(SPURIOUS).toBeLessThan(SPURIOUS_TOP); // below the top, a missed key stays at its parent
  }, 120_000);
});

describe('the privacy map on neighbouring datasets', () => {
  const codes = ['A01', 'A01.1', 'A01.2', 'A02', 'B10.5', 'B10', 'C34.90', 'C34.10', 'I10', ''];
  const dataset = fc.array(fc.constantFrom(...codes), { minLength: 1, maxLength: 30 });
  const valuesOf = (rows: readonly string[]) => {
    const m = new Map<string, number>();
    for (const r of rows) {
      const k = r === '' ? MISSING_KEY : r;
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return m;
  };

  it('each level moves by at most √2 (ℓ2) and leaves at most one count-1 key to each side (property: D, D′ replace one record)', () => {
    fc.assert(
      fc.property(
        dataset,
        fc.nat(),
        fc.constantFrom(...codes),
        fc.subarray(['A', 'B', 'C', 'I', 'A01', 'A02', 'B10', 'C34', 'I10']),
        fc.constantFrom('icd10', '1,3,full', '2,4', 'sep=.,1,full'),
        (rows, who, replacement, parentList, text) => {
          const h = parseHierarchy(text);
          const other = [...rows];
          other[who % rows.length] = replacement;
          const parents = new Set(parentList);
          for (let l = 0; l < h.levels.length; l++) {
            const a = levelKeyCounts(valuesOf(rows), h, l, parents);
            const b = levelKeyCounts(valuesOf(other), h, l, parents);
            let sq = 0;
            for (const k of new Set([...a.keys(), ...b.keys()]))
              sq += ((a.get(k) ?? 0) - (b.get(k) ?? 0)) ** 2;
            expect(Math.sqrt(sq)).toBeLessThanOrEqual(LEVEL_SENSITIVITY + 1e-12);
            const onlyA = [...a.keys()].filter((k) => !b.has(k));
            const onlyB = [...b.keys()].filter((k) => !a.has(k));
            expect(onlyA.length).toBeLessThanOrEqual(1);
            expect(onlyB.length).toBeLessThanOrEqual(1);
            for (const k of onlyA) expect(a.get(k)).toBe(1);
            for (const k of onlyB) expect(b.get(k)).toBe(1);
          }
        },
      ),
    );
  });

  it('spends exactly the column ρ over its levels and at most its δ; σ_l states ρ_l for sensitivity √2', () => {
    const counts = countsOf('dx', [
      ['C34.10', 300],
      ['I10', 500],
      ['', 40],
    ]);
    for (const h of [icd, parseHierarchy('1,3,full'), HIERARCHY_PRESETS.naics]) {
      const d = discoverHierarchical(counts, h, 0.04, 1e-6, seededNoise(5), 'f.csv', 840);
      const rho = d.levels.reduce((a, l) => a + l.rho, 0);
      const delta = d.levels.reduce((a, l) => a + l.delta, 0);
      expect(rho).toBeCloseTo(0.04, 12);
      expect(delta).toBeLessThanOrEqual(1e-6 * (1 + 1e-12));
      // ρ_l = ρ·w_l/Σw: the ICD-10 preset's stated shares, equal shares for plain lengths.
      const shares = h === icd ? [0.45, 0.45, 0.1] : h.levels.map(() => 1 / h.levels.length);
      expect(d.levels.map((l) => l.rho / 0.04)).toEqual(shares.map((x) => expect.closeTo(x, 12)));
      for (const l of d.levels) {
        expect(gaussianCountsRho(l.sigma, LEVEL_SENSITIVITY) / l.rho).toBeCloseTo(1, 10);
        if (l.mechanism === 'partition-selection')
          expect(partitionSelectionDelta(l.sigma, l.threshold)).toBeLessThanOrEqual(l.delta);
        else
          expect(normalUpperTail(l.threshold / l.sigma) * (l.candidates ?? 0)).toBeLessThanOrEqual(
            spuriousAt(l.level) * (1 + 1e-9),
          );
      }
    }
  });
});

describe('discoverSchema with a hierarchical column', () => {
  it('releases prefixes level by level, states each level, and encodes codes at their finest released key', async () => {
    const lines = ['dx,zip'];
    for (let i = 0; i < 3000; i++) {
      const dx =
        i % 3 === 0 ? 'I10' : i % 3 === 1 ? `C34.${i % 2 === 0 ? '10' : '90'}` : i === 2 ? 'Q99.9' : 'J18.9';
      const zip = i % 10 === 0 ? '' : `0${String(2100 + (i % 7)).padStart(4, '0')}`;
      lines.push(`${dx},${zip}`);
    }
    const file = dir.file('codes.csv', `${lines.join('\n')}\n`);
    const found = await discoverSchema(file, {
      rho: 2,
      delta: 1e-6,
      noise: seededNoise(11),
      header: true,
      hierarchies: { dx: icd, zip: HIERARCHY_PRESETS.postcode },
    });
    const dx = found.schema.columns[0] as CategoricalColumn;
    const zip = found.schema.columns[1] as CategoricalColumn;
    expect(dx.kind).toBe('categorical');
    expect(dx.hierarchy?.preset).toBe('icd10');
    expect(dx.categories).toEqual(
      expect.arrayContaining(['C', 'C34', 'C34.10', 'C34.90', 'I', 'I10', 'J18.9']),
    );
    expect(dx.categories).not.toContain('Q99.9');
    // Leading zeros kept: codes, not numbers; missing values are one more top-level key.
    expect(zip.categories).toEqual(expect.arrayContaining(['021', '02100', '02106']));
    expect(zip.missing).toBe(true);
    expect(zip.missingText).toBe(''); // written back empty, as in the source
    const detail = found.columns[0].detail!;
    expect(detail.kind).toBe('hierarchical');
    expect(detail.level1Mechanism).toBe('public-histogram');
    expect(detail.level3Mechanism).toBe('partition-selection');
    expect(Number(detail.level3Threshold)).toBeGreaterThan(1);
    // One share per level (3 + 2 = 5 shares): dx spends 3/5 of ρ and δ, zip 2/5.
    const cost = found.columns.map((c) => c.provenance as { rho: number; delta: number });
    expect(cost[0].rho).toBeCloseTo(1.2, 12);
    expect(cost[0].delta).toBeCloseTo(6e-7, 18);
    expect(cost[0].rho + cost[1].rho).toBeCloseTo(2, 12);
    expect(cost[0].delta + cost[1].delta).toBeLessThanOrEqual(1e-6 * (1 + 1e-12));
    const loaded = await loadCsv(file, { schema: found.schema, outOfDomain: 'other', header: true });
    // Row 2 holds Q99.9 (one record): at its letter where Q passed the top bar (a count of 1 does
    // with probability ≈ 0.15 here), else "(other)" or the heaviest top key.
    const code = loaded.dataset.codes[0][2];
    const unreleased = dx.fallbackCode === undefined ? '(other)' : dx.categories[dx.fallbackCode];
    expect(dx.categories[code]).toBe(dx.categories.includes('Q') ? 'Q' : unreleased);
  });
});

describe('codes are not numbers', () => {
  it('discovers a column with zero-padded digit strings as codes, and a plain numeric column as numbers', async () => {
    const lines = ['zip,age'];
    for (let i = 0; i < 4000; i++) {
      // One postcode in ten starts with 0 (as US ZIP codes do); ages never do.
      const zip = i % 10 === 0 ? `0${2100 + (i % 3)}` : String(60000 + (i % 5));
      lines.push(`${zip},${20 + (i % 50)}`);
    }
    const file = dir.file('zips.csv', `${lines.join('\n')}\n`);
    const found = await discoverSchema(file, { rho: 1, delta: 1e-6, noise: seededNoise(3), header: true });
    const [zip, age] = found.schema.columns;
    expect(zip.kind).toBe('categorical');
    expect((zip as CategoricalColumn).categories).toEqual(expect.arrayContaining(['02100', '60000']));
    expect(age.kind).toBe('numeric');
  });
});
