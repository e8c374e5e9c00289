/**
 * The person level counted by DuckDB (release/person-counted.ts, counting/person-table.ts) equals
 * the streaming person path (release/person.ts's boundSource, then discovery and the encoder over
 * the bounded file) under the same seeds: the same k, the same kept records (so the same n̂), the
 * same profile counts (rows and distinct persons per value, per hierarchy level, per missing
 * form), the same discovered schema and noisy details, and the same exact tables. Random small
 * files with repeated persons, identifiers with spaces and missing markers, numbers, dates, codes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPersonTable } from '../../../src/core/counting/person-table.ts';
import { tableKey } from '../../../src/core/data/counted.ts';
import { HIERARCHY_PRESETS } from '../../../src/core/data/hierarchy.ts';
import { Rejections } from '../../../src/core/data/rejections.ts';
import { readTable } from '../../../src/core/data/table.ts';
import { DEFAULT_MISSING_MARKERS } from '../../../src/core/data/values.ts';
import { HierarchyCounts } from '../../../src/core/discovery/hierarchy-counts.ts';
import { personProfile } from '../../../src/core/discovery/person-histograms.ts';
import { ColumnCounts, DiscoveryProfile } from '../../../src/core/discovery/profile.ts';
import { discoverAndLoad, planRawSource } from '../../../src/core/discovery/raw-source.ts';
import { seededNoise } from '../../../src/core/privacy/noise.ts';
import { boundSource, type UnitSpec, unitBudget } from '../../../src/core/release/person.ts';
import { boundOnTable, readPersonLevelSource } from '../../../src/core/release/person-counted.ts';
import { contingencyTable } from '../../../src/core/workload/exact.ts';
import { boundedAsStreamed, neighbouringPersons } from '../../support/person-level.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-person-counted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const IDS = ['P1', ' P1', 'P2 ', 'P3', 'P4', 'P5', 'Q7', '?', '', 'NA', 'Ø9'];
const WARDS = ['A', 'B', ' C', 'D', '?', ''];
const DX = ['I10', 'I10.9', 'C34.90', 'C34.10', 'J45', 'NA', 'E11.65'];
const AGES = ['34', ' 35', '7.5', '', '?', '80', 'x'];
const DAYS = ['2024-01-03', '2024-02-11', '2023-12-30', ''];

const rowArb = fc.tuple(
  fc.constantFrom(...IDS),
  fc.constantFrom(...WARDS),
  fc.constantFrom(...DX),
  fc.constantFrom(...AGES),
  fc.constantFrom(...DAYS),
);
const HEADER = ['person', 'ward', 'diagnosis', 'age', 'admitted'];
const UNIT_COLUMN = 'person';
const HIERARCHIES = { diagnosis: HIERARCHY_PRESETS.icd10 };

let file = 0;
function writeCsv(rows: readonly (readonly string[])[]): string {
  const f = path.join(dir, `d${file++}.csv`);
  writeFileSync(f, `${[HEADER, ...rows].map((r) => r.join(',')).join('\n')}\n`);
  return f;
}

async function planOf(f: string) {
  return planRawSource(
    f,
    [],
    { epsilon: 2, delta: 1e-6, share: 0.3 },
    { header: true, unitColumn: UNIT_COLUMN, hierarchies: HIERARCHIES },
  );
}

const FEATURES = [[0], [1, 2], [0, 2, 3], [3]];

describe('the person level counted by DuckDB = the streaming person path (same seed)', () => {
  it('the same kept records: profile counts (rows, distinct persons per value, level and form) agree', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 120 }),
        fc.constantFrom<UnitSpec['bound']>(1, 2, 3, 'private'),
        fc.integer(),
        async (rows, k, seed) => {
          const f = writeCsv(rows);
          const plan = await planOf(f);
          const unit: UnitSpec = { column: UNIT_COLUMN, bound: k };
          const budget = unitBudget(plan.budget, unit);
          const streamed = await boundSource(f, unit, budget, seededNoise(`${seed}/person`), {
            header: true,
          });
          const table = await loadPersonTable(f, plan.header, UNIT_COLUMN, { header: true });
          try {
            const bounded = await boundedAsStreamed(table, unit, budget, seed, streamed);
            // The streaming profile of the bounded file, persons told by the unit column.
            const names = plan.header;
            const profile = new DiscoveryProfile<ColumnCounts>(
              names,
              DEFAULT_MISSING_MARKERS,
              UNIT_COLUMN,
              (name, forms) =>
                name === 'diagnosis'
                  ? new HierarchyCounts(name, forms, HIERARCHIES.diagnosis)
                  : new ColumnCounts(name, forms),
            );
            await readTable(
              streamed.file,
              { start: (shape) => profile.start(streamed.file, shape.header), row: (v) => profile.row(v) },
              new Rejections(),
              { header: true, raggedAsMissing: true },
            );
            const histograms = await bounded.histograms(names);
            const counted = await personProfile(histograms, names, (labels) => bounded.persons(labels), {
              trim: true,
              hierarchies: HIERARCHIES,
            });
            names.forEach((name, j) => {
              const a = profile.columns[j];
              const b = counted.columns[j];
              expect(b.values, name).toEqual(a.values);
              expect(b.missingForms, name).toEqual(a.missingForms);
              expect([b.numbers, b.texts, b.padded, b.fractional], name).toEqual([
                a.numbers,
                a.texts,
                a.padded,
                a.fractional,
              ]);
              expect(b.octaves, name).toEqual(a.octaves);
              expect(b.fine, name).toEqual(a.fine);
              expect(b.classes, name).toEqual(a.classes);
              if (name === 'diagnosis') {
                expect((b as HierarchyCounts).keyPersons).toEqual((a as HierarchyCounts).keyPersons);
                expect((b as HierarchyCounts).formPersons).toEqual((a as HierarchyCounts).formPersons);
              }
            });
          } finally {
            await table.dispose();
            await streamed.dispose();
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('the same discovered schema, noisy details and exact tables', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 150 }),
        fc.constantFrom<UnitSpec['bound']>(1, 2, 'private'),
        fc.integer(),
        async (rows, k, seed) => {
          const f = writeCsv(rows);
          const plan = await planOf(f);
          const unit: UnitSpec = { column: UNIT_COLUMN, bound: k };
          const budget = unitBudget(plan.budget, unit);
          // Streaming: boundSource, then discovery and the encoder over the bounded file (release.ts).
          const bounded = await boundSource(f, unit, budget, seededNoise(`${seed}/person`), { header: true });
          let streamed: Awaited<ReturnType<typeof discoverAndLoad>>;
          try {
            streamed = await discoverAndLoad(plan, bounded.kept, seededNoise(`${seed}/discovery`), {
              unitColumn: UNIT_COLUMN,
              person: { file: bounded.file, bound: bounded.bound, rows: bounded.rows.rows },
            });
          } finally {
            await bounded.dispose();
          }
          const table = await loadPersonTable(f, plan.header, UNIT_COLUMN, { header: true });
          try {
            const counted = await readPersonLevelSource(
              table,
              plan,
              unit,
              budget,
              { person: seededNoise(`${seed}/person`), discovery: seededNoise(`${seed}/discovery`) },
              () => FEATURES,
              { header: true },
            );
            expect(counted.person.rows).toEqual(bounded.rows);
            expect(counted.discovery.schema).toEqual(streamed.discovery.schema);
            expect(counted.discovery.columns).toEqual(streamed.discovery.columns);
            expect(counted.discovery.records).toBe(streamed.discovery.records);
            expect([...counted.discovery.paidOneWays]).toEqual([...streamed.discovery.paidOneWays]);
            const { dataset } = counted.counted;
            expect(dataset.n).toBe(streamed.loaded.dataset.n);
            for (const fs of FEATURES) {
              expect(dataset.tables.get(tableKey(fs)), fs.join(',')).toEqual(
                contingencyTable(streamed.loaded.dataset, fs),
              );
            }
          } finally {
            await table.dispose();
          }
        },
      ),
      { numRuns: 20 },
    );
  }, 180_000);
});

/** A record of the neighbouring test: person, category, number (texts). */
const CATS = ['a', 'b', 'c', 'd', 'e'];
const NUMS = ['0', '3', '7.5', '40', '1000.5', '-2', '', 'x'];
const NEIGHBOURS = neighbouringPersons(CATS, NUMS);

describe('the counts DuckDB makes at the person level, on neighbouring datasets (one PERSON changed)', () => {
  it('kept records move by ≤ k; distinct persons per value by ≤ √(2k) on keys in both, keys in one only have count 1 (≤ 2k); level 1 by ≤ k√3', async () => {
    await fc.assert(
      fc.asyncProperty(NEIGHBOURS.cases, async (c) => {
        const counts = async (rows: string[][]) => {
          const f = path.join(dir, `n${file++}.csv`);
          writeFileSync(f, `${[['person', 'cat', 'num'], ...rows].map((r) => r.join(',')).join('\n')}\n`);
          const table = await loadPersonTable(f, ['cat', 'num'], 'person', { header: true });
          try {
            const unit: UnitSpec = { column: 'person', bound: c.k };
            const budget = { rhoCount: 0.1, rhoBound: 0, engineEpsilon: 1, engineRho: 1 };
            const { bounded } = await boundOnTable(table, unit, budget, seededNoise(c.seed));
            const h = await bounded.histograms(['cat', 'num']);
            const { columns } = await personProfile(h, ['cat', 'num'], (l) => bounded.persons(l), {
              trim: true,
            });
            return { n: bounded.n, cat: columns[0].values!, num: columns[1] };
          } finally {
            await table.dispose();
          }
        };
        const [before, after] = NEIGHBOURS.datasets(c);
        const d = await counts(before);
        const e = await counts(after);
        expect(Math.abs(d.n - e.n)).toBeLessThanOrEqual(c.k);
        const both = [...d.cat.keys()].filter((key) => e.cat.has(key));
        const moved = Math.hypot(...both.map((key) => d.cat.get(key)! - e.cat.get(key)!));
        expect(moved).toBeLessThanOrEqual(Math.sqrt(2 * c.k) + 1e-9);
        const onlyD = [...d.cat.keys()].filter((key) => !e.cat.has(key));
        const onlyE = [...e.cat.keys()].filter((key) => !d.cat.has(key));
        for (const key of onlyD) expect(d.cat.get(key)).toBe(1);
        for (const key of onlyE) expect(e.cat.get(key)).toBe(1);
        expect(onlyD.length + onlyE.length).toBeLessThanOrEqual(2 * c.k);
        const vec = (x: typeof d.num) => [...x.octaves, x.missing, x.texts, x.fractional];
        const [a, b] = [vec(d.num), vec(e.num)];
        expect(Math.hypot(...a.map((x, i) => x - b[i]))).toBeLessThanOrEqual(c.k * Math.sqrt(3) + 1e-9);
      }),
      { numRuns: 30 },
    );
  }, 180_000);
});

describe('file order on a file DuckDB reads in parallel (more than one row group of 122,880 rows)', () => {
  it('keeps the same records as the streaming path (records ranked in file order within a person)', async () => {
    const lines = ['person,line'];
    // 100,000 persons with 3 records each, spread across the file: k = 1 keeps one by rank.
    for (let i = 0; i < 300_000; i++) lines.push(`p${(i * 7919) % 100_000},${i}`);
    const f = path.join(dir, 'large.csv');
    writeFileSync(f, `${lines.join('\n')}\n`);
    const unit: UnitSpec = { column: 'person', bound: 1 };
    const budget = { rhoCount: 0.1, rhoBound: 0, engineEpsilon: 1, engineRho: 1 };
    const streamed = await boundSource(f, unit, budget, seededNoise('order'), { header: true });
    const kept = new Set<string>();
    try {
      await readTable(streamed.file, { start() {}, row: (v) => kept.add(v[1]) }, new Rejections(), {
        header: true,
      });
    } finally {
      await streamed.dispose();
    }
    const table = await loadPersonTable(f, ['line'], 'person', { header: true });
    try {
      const { bounded } = await boundOnTable(table, unit, budget, seededNoise('order'));
      const counted = (await bounded.histograms(['line'])).columns.get('line')!;
      expect(counted.size).toBe(100_000);
      expect([...counted.keys()].every((line) => kept.has(line))).toBe(true);
    } finally {
      await table.dispose();
    }
  }, 120_000);
});
