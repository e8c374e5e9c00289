/**
 * The person level with a PostgreSQL table as the source (`synth --data postgres://…?table=…
 * --unit-column patient`), counted in the database (counting/postgres-person.ts,
 * release/database-person.ts), against a real server (RAP_TEST_POSTGRES, .ci/postgres):
 * - the same exact tables as DuckDB's person table from a CSV holding the same rows in the same
 *   order, given the same kept ranks; and the same released CSV for the same seed;
 * - the counts on neighbouring tables (one PERSON's rows changed) move by at most the stated
 *   sensitivities (docs/privacy.md, "The unit of privacy");
 * - the ledger charges the table's keyed identity and records the unit; a unit column the table
 *   (or query) lacks is refused before anything is reserved.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SynthFlags, synthSpec } from '../../../src/cli/commands/synth.ts';
import { loadPersonTable } from '../../../src/core/counting/person-table.ts';
import {
  databaseFingerprint,
  parsePostgresSource,
  readQuery,
  withPostgres,
} from '../../../src/core/counting/postgres.ts';
import { postgresPersonTable } from '../../../src/core/counting/postgres-person.ts';
import { parsePostgresQuerySource } from '../../../src/core/counting/postgres-query.ts';
import type { Schema } from '../../../src/core/data/schema.ts';
import { personProfile } from '../../../src/core/discovery/person-histograms.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { seededNoise } from '../../../src/core/privacy/noise.ts';
import { databaseFacts } from '../../../src/core/release/database.ts';
import { boundOnTable } from '../../../src/core/release/person-counted.ts';
import { releaseStraightThrough } from '../../../src/core/release/release.ts';
import { CLI_TIMEOUT } from '../../support/cli.ts';
import { runCliInProcess } from '../../support/cli-in-process.ts';
import {
  DX,
  neighbouringPersons,
  VISITS_WORKLOAD,
  visitsPersonFlags,
  WARDS,
} from '../../support/person-level.ts';

const PG = process.env.RAP_TEST_POSTGRES;
const dir = mkdtempSync(path.join(tmpdir(), 'rap-pg-person-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLUMNS = ['patient', 'ward', 'diagnosis', 'age', 'stay'];

/** Public test data: 300 persons with 1–7 visits each, interleaved (some ids missing: '?' or empty). */
function visits(): string[][] {
  const rows: string[][] = [];
  for (let round = 0; round < 7; round++) {
    for (let p = 0; p < 300; p++) {
      if (round >= 1 + ((p * 5) % 7)) continue;
      const id = p % 53 === 0 ? (round % 2 === 0 ? '?' : '') : `P${p}`;
      const age = String(20 + ((p * 13) % 60));
      rows.push([id, WARDS[(p + round) % 4], DX[(p * 3 + round) % 7], age, String((p + round * 5) % 12)]);
    }
  }
  return rows;
}

const csv = (header: readonly string[], rows: readonly string[][]) =>
  `${[header, ...rows].map((r) => r.join(',')).join('\n')}\n`;

/** A table of text columns holding `rows` in their order (one INSERT: heap order = row order). */
async function createTable(c: Client, table: string, columns: readonly string[], rows: readonly string[][]) {
  await c.query(`CREATE TABLE ${table} (${columns.map((n) => `${n} text`).join(', ')})`);
  if (rows.length === 0) return;
  const params = columns.map((_, j) => rows.map((r) => r[j]));
  await c.query(
    `INSERT INTO ${table} SELECT * FROM unnest(${columns.map((_, j) => `$${j + 1}::text[]`).join(', ')})`,
    params,
  );
}

describe.skipIf(!PG)(
  'the person level counted in PostgreSQL (RAP_TEST_POSTGRES)',
  { timeout: CLI_TIMEOUT },
  () => {
    const table = `rap_person_${process.pid}_${Date.now()}`;
    const url = () => `${PG}?table=${table}`;
    const src = () => parsePostgresSource(url());
    const made: string[] = [table];

    beforeAll(async () => {
      writeFileSync(path.join(dir, 'visits.csv'), csv(COLUMNS, visits()));
      writeFileSync(path.join(dir, 'w.json'), JSON.stringify(VISITS_WORKLOAD));
      await withPostgres(src(), (c) => createTable(c, table, COLUMNS, visits()));
    });
    afterAll(async () => {
      if (!PG) return;
      await withPostgres(src(), async (c) => {
        for (const t of made) await c.query(`DROP TABLE IF EXISTS ${t}`);
      });
    });

    it('the same kept records and exact tables as DuckDB from the CSV, given the same draws (k = 2)', async () => {
      const names = ['ward', 'diagnosis', 'age', 'stay'];
      const schema: Schema = {
        columns: [
          { name: 'ward', kind: 'categorical', categories: WARDS },
          { name: 'diagnosis', kind: 'categorical', categories: DX },
          { name: 'stay', kind: 'numeric', edges: [0, 3, 6, 9, 12], integer: true },
        ],
      } as unknown as Schema;
      const features = [[0, 1], [0, 2], [1, 2], [0]];
      const opts = { outOfDomain: 'reject' as const, trim: false, missingMarkers: ['?'] };
      const unit = { column: 'patient', bound: 2 };
      const budget = { rhoCount: 0.1, rhoBound: 0, engineEpsilon: 1, engineRho: 1 };
      const duck = await loadPersonTable(path.join(dir, 'visits.csv'), names, 'patient', { header: true });
      let fromCsv: Awaited<ReturnType<typeof counted>>;
      async function counted(t: Parameters<typeof boundOnTable>[0]) {
        const { bounded, outcome } = await boundOnTable(t, unit, budget, seededNoise('kept'));
        const h = await bounded.histograms(names);
        const { columns } = await personProfile(h, names, (l) => bounded.persons(l), { trim: false });
        const tables = await bounded.tables(schema, features, opts);
        return {
          n: bounded.n,
          rows: outcome.rows,
          histograms: h,
          persons: columns.map((c) => c.values),
          tables: tables.tables.map((x) => Array.from(x)),
        };
      }
      try {
        fromCsv = await counted(duck);
      } finally {
        await duck.dispose();
      }
      const fromPg = await withPostgres(
        src(),
        async (c) => counted(await postgresPersonTable(c, src(), names, 'patient')),
        undefined,
        { snapshot: true },
      );
      // Bounding kept records: fewer than the table's, more than none.
      expect(fromPg.n).toBeLessThan(visits().length);
      expect(fromPg.n).toBeGreaterThan(300);
      expect(fromPg).toEqual(fromCsv);
    });

    async function release(data: string, tag: string, k: string, extra: Partial<SynthFlags> = {}) {
      const at = (f: string) => path.join(dir, f);
      const flags = {
        ...visitsPersonFlags(data, at('w.json'), at(`${tag}.csv`), k),
        ...extra,
      } as unknown as SynthFlags;
      const spec = await synthSpec(flags);
      const ledger = Ledger.open(at(`${tag}.sqlite`), { anchorFile: null });
      try {
        const r = await releaseStraightThrough(ledger, spec, {
          outPath: spec.outPath,
          reportPath: at(`${tag}.report.json`),
        });
        return {
          csv: readFileSync(spec.outPath, 'utf8'),
          report: r.report,
          releases: ledger.releases(),
          datasets: ledger.datasets(),
          key: ledger.sourceKey(),
        };
      } finally {
        ledger.close();
      }
    }

    it.each([
      ['k given', '3'],
      ['k chosen privately', 'private'],
    ])('%s: the same released CSV as from the CSV for the same seed; the ledger charges the table, at the person level', async (tag, k) => {
      const fromCsv = await release(path.join(dir, 'visits.csv'), `csv-${k}`, k, {
        header: 'yes',
      } as Partial<SynthFlags>);
      const fromPg = await release(url(), `pg-${k}`, k);
      expect(fromCsv.report.counting).toEqual({ by: 'duckdb' });
      expect(fromPg.report.counting).toEqual({ by: 'postgresql' });
      expect(fromPg.csv.split(/\r?\n/)[0]).toBe('ward,diagnosis,age,stay');
      expect(fromPg.csv, tag).toBe(fromCsv.csv);
      // The ledger: one dataset, the table's keyed identity (database.ts), its rows; the release at
      // the person level (the unit in its parameters and mechanism), committed against it.
      const [dataset] = fromPg.datasets;
      expect(fromPg.datasets).toHaveLength(1);
      const rows = visits().length;
      expect(dataset.fingerprint).toBe(
        databaseFingerprint(fromPg.key, src(), readQuery(src(), COLUMNS), rows),
      );
      expect(dataset.rows).toBe(rows);
      expect(dataset.name).toBe(`rap/${table}`);
      const [spent] = fromPg.releases;
      expect(spent.status).toBe('committed');
      expect(spent.datasetFingerprint).toBe(dataset.fingerprint);
      expect(spent.mechanism).toMatch(/^person-bounding\+/);
      expect((spent.params as { unit?: { column?: string } }).unit?.column).toBe('patient');
      expect(spent.rho).toBeGreaterThan(0);
    });

    it('a declared schema (no discovery): the declared and unit columns only, the same CSV as from a file of those columns', async () => {
      writeFileSync(
        path.join(dir, 'declared.json'),
        JSON.stringify({
          version: 1,
          origin: 'declared',
          columns: [
            { name: 'ward', kind: 'categorical', categories: WARDS },
            { name: 'diagnosis', kind: 'categorical', categories: DX },
          ],
        }),
      );
      writeFileSync(
        path.join(dir, 'w-declared.json'),
        JSON.stringify({ thresholds: [{ features: ['ward', 'diagnosis'], r: 2 }] }),
      );
      writeFileSync(
        path.join(dir, 'declared.csv'),
        csv(
          ['patient', 'ward', 'diagnosis'],
          visits().map((r) => r.slice(0, 3)),
        ),
      );
      const declared = {
        schema: path.join(dir, 'declared.json'),
        workload: path.join(dir, 'w-declared.json'),
        hierarchy: undefined,
      } as unknown as Partial<SynthFlags>;
      const fromCsv = await release(path.join(dir, 'declared.csv'), 'declared-csv', '3', {
        ...declared,
        header: 'yes',
      } as Partial<SynthFlags>);
      const fromPg = await release(url(), 'declared-pg', '3', declared);
      expect(fromPg.report.counting).toEqual({ by: 'postgresql' });
      expect(fromPg.csv.split(/\r?\n/)[0]).toBe('ward,diagnosis');
      expect(fromPg.csv).toBe(fromCsv.csv);
    });

    it('a query source: the person level over its result, the database charged', async () => {
      const fromQuery = await release(`${PG}`, 'query', '3', {
        sql: `SELECT ${COLUMNS.join(', ')} FROM ${table} WHERE ward <> 'Surgery'`,
      } as Partial<SynthFlags>);
      expect(fromQuery.report.counting).toEqual({ by: 'postgresql' });
      expect(fromQuery.csv.split(/\r?\n/)[0]).toBe('ward,diagnosis,age,stay');
      expect(fromQuery.csv).not.toContain('Surgery');
      expect((fromQuery.releases[0].params as { unit?: { column?: string } }).unit?.column).toBe('patient');
    });

    it('a unit column the table or the query lacks: exit 2 naming it and the columns; no ledger created', async () => {
      const args = (data: string, ledger: string, extra: string[] = []) => [
        'synth',
        ...['--data', data, '--workload', path.join(dir, 'w.json'), '--epsilon', '2', '--rows', '30'],
        ...['--out', path.join(dir, `${ledger}.csv`), '--ledger', path.join(dir, `${ledger}.sqlite`)],
        ...['--seed', '5', '--insecure-seed', '--budget-epsilon', '10', '--confirm-cap'],
        ...['--unit-column', 'person_id'],
        ...extra,
      ];
      const fromTable = await runCliInProcess(dir, args(url(), 'no-unit'));
      expect(fromTable.code).toBe(2);
      expect(fromTable.stderr).toContain('the unit column "person_id" is not in the table');
      expect(fromTable.stderr).toContain('patient, ward, diagnosis, age, stay');
      expect(existsSync(path.join(dir, 'no-unit.sqlite'))).toBe(false);
      const fromQuery = await runCliInProcess(
        dir,
        args(`${PG}`, 'no-unit-q', ['--sql', `SELECT ward, diagnosis FROM ${table}`]),
      );
      expect(fromQuery.code).toBe(2);
      expect(fromQuery.stderr).toContain('the unit column "person_id" is not in');
      expect(existsSync(path.join(dir, 'no-unit-q.sqlite'))).toBe(false);
      // The release's own check (the app, or any spec that bypasses the CLI), before the reservation.
      const query = parsePostgresQuerySource(`${PG}`, `SELECT ward, diagnosis FROM ${table}`);
      await expect(databaseFacts(query, [], Buffer.alloc(32), undefined, true, 'person_id')).rejects.toThrow(
        /the unit column "person_id" is not in the query's result \(it has: ward, diagnosis\)/,
      );
    });

    it('ledger set-cap --dataset postgres://… --unit-column: a person-level release spends that cap; a row-level one is refused', async () => {
      const ledger = path.join(dir, 'cap-unit.sqlite');
      const cap = await runCliInProcess(dir, [
        'ledger',
        'set-cap',
        ...[
          '--dataset',
          url(),
          '--epsilon',
          '3',
          '--delta',
          '1e-6',
          '--unit-column',
          'patient',
          '--ledger',
          ledger,
        ],
      ]);
      expect(cap.stderr).toBe('');
      expect(cap.code).toBe(0);
      const synth = (out: string, extra: string[]) => [
        'synth',
        ...['--data', url(), '--workload', path.join(dir, 'w.json'), '--epsilon', '1', '--rows', '30'],
        ...['--out', path.join(dir, out), '--ledger', ledger, '--seed', '5', '--insecure-seed'],
        ...['--hierarchy', 'diagnosis=icd10'],
        ...extra,
      ];
      const perPerson = await runCliInProcess(dir, synth('cap-person.csv', ['--unit-column', 'patient']));
      expect(perPerson.stderr).not.toContain('rap-studio:');
      expect(perPerson.code).toBe(0);
      const perRow = await runCliInProcess(dir, synth('cap-row.csv', []));
      expect(perRow.code).not.toBe(0);
      expect(perRow.stderr).toContain('per person (identified by column patient)');
      const l = Ledger.open(ledger, { anchorFile: null });
      try {
        expect(l.datasets()).toHaveLength(1);
        const [d] = l.datasets();
        expect(d.cap?.epsilon).toBe(3);
        expect(l.releases().map((r) => [r.status, r.datasetFingerprint])).toEqual([
          ['committed', d.fingerprint],
        ]);
      } finally {
        l.close();
      }
    });

    /** The neighbouring test's records: person, category, number (texts). */
    const CATS = ['a', 'b', 'c', 'd', 'e'];
    const NUMS = ['0', '3', '7.5', '40', '1000.5', '-2', 'x'];
    const NEIGHBOURS = neighbouringPersons(CATS, NUMS);
    const pairSchema = {
      columns: [
        { name: 'cat', kind: 'categorical', categories: CATS },
        { name: 'num', kind: 'categorical', categories: NUMS },
      ],
    } as unknown as Schema;
    let neighbour = 0;

    it('neighbours (one PERSON changed, all their rows): bounded n and every table cell move by ≤ k, a table by ≤ 2k in ℓ1; distinct persons per value by ≤ √(2k)', async () => {
      // Each neighbour's table is made on a connection of its own, then counted as a release counts
      // it: on a fresh connection, in one snapshot (release/database-person.ts).
      const counts = async (rows: string[][], k: number, seed: number) => {
        const name = `${table}_n${neighbour++}`;
        made.push(name);
        await withPostgres(src(), (c) => createTable(c, name, ['person', 'cat', 'num'], rows));
        const s = parsePostgresSource(`${PG}?table=${name}`);
        try {
          return await withPostgres(
            s,
            async (c) => {
              const t = await postgresPersonTable(c, s, ['cat', 'num'], 'person');
              const budget = { rhoCount: 0.1, rhoBound: 0, engineEpsilon: 1, engineRho: 1 };
              const { bounded } = await boundOnTable(
                t,
                { column: 'person', bound: k },
                budget,
                seededNoise(seed),
              );
              const h = await bounded.histograms(['cat', 'num']);
              const { columns } = await personProfile(h, ['cat', 'num'], (l) => bounded.persons(l), {
                trim: false,
              });
              const tables = await bounded.tables(pairSchema, [[0], [1], [0, 1]]);
              return { n: bounded.n, cat: columns[0].values!, tables: tables.tables };
            },
            undefined,
            { snapshot: true },
          );
        } finally {
          await withPostgres(src(), (c) => c.query(`DROP TABLE ${name}`));
        }
      };
      await fc.assert(
        fc.asyncProperty(NEIGHBOURS.cases, async (x) => {
          const [before, after] = NEIGHBOURS.datasets(x);
          const d = await counts(before, x.k, x.seed);
          const e = await counts(after, x.k, x.seed);
          expect(Math.abs(d.n - e.n)).toBeLessThanOrEqual(x.k);
          d.tables.forEach((td, i) => {
            const te = e.tables[i];
            const diffs = Array.from(td, (v, j) => Math.abs(v - te[j]));
            expect(Math.max(...diffs)).toBeLessThanOrEqual(x.k);
            expect(diffs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * x.k);
          });
          const both = [...d.cat.keys()].filter((key) => e.cat.has(key));
          const moved = Math.hypot(...both.map((key) => d.cat.get(key)! - e.cat.get(key)!));
          expect(moved).toBeLessThanOrEqual(Math.sqrt(2 * x.k) + 1e-9);
          for (const key of [...d.cat.keys()].filter((key) => !e.cat.has(key)))
            expect(d.cat.get(key)).toBe(1);
          for (const key of [...e.cat.keys()].filter((key) => !d.cat.has(key)))
            expect(e.cat.get(key)).toBe(1);
          const onlyOne = [...d.cat.keys(), ...e.cat.keys()].filter(
            (key) => !(d.cat.has(key) && e.cat.has(key)),
          );
          expect(onlyOne.length).toBeLessThanOrEqual(2 * x.k);
        }),
        { numRuns: 25 },
      );
    });
  },
);
