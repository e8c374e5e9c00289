/**
 * A database source in the app as complete as a file: a read-only query as the source, a column
 * left out (settings.exclude, the file's column choice) and a column declared by the curator
 * (services/database-schema.ts, the Schema step's provenance rule), through the services as the
 * renderer calls them. The ledger holds the query source as the CLI's `--sql` does (the database's
 * keyed identity, release/database.ts): no query text, no password. Bad input refused before
 * anything is reserved, naming what is wrong. Against a real server: RAP_TEST_POSTGRES.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { parsePostgresQuerySource, queryFingerprint } from '../../../src/core/counting/postgres-query.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { databaseColumnView, declaredDatabaseSchema } from '../../../src/services/database-schema.ts';
import { toErrorPayload } from '../../../src/services/dispatch.ts';
import { settle, webApp } from './fixtures.ts';

let dir: string;
let app: ReturnType<typeof webApp>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rap-db-choice-'));
  app = webApp(dir, 1);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETTINGS = { epsilon: '1', rows: '40', rounds: '1', perRound: '5', mode: 'query' } as const;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('not refused');
    },
    (err: unknown) => toErrorPayload(err),
  );

describe("a database column's editor form from its catalogue type (databaseColumnView)", () => {
  it('numeric bins for a number type, integers for an integer type, categories otherwise', () => {
    const kind = (type: string) => {
      const v = databaseColumnView({ name: 'c', type });
      return `${v.kind}${v.integer ? ' integer' : ''}`;
    };
    expect(kind('integer')).toBe('numeric integer');
    expect(kind('bigint')).toBe('numeric integer');
    expect(kind('smallint')).toBe('numeric integer');
    expect(kind('numeric(10,2)')).toBe('numeric');
    expect(kind('double precision')).toBe('numeric');
    expect(kind('real')).toBe('numeric');
    expect(kind('text')).toBe('categorical');
    expect(kind('character varying(20)')).toBe('categorical');
    expect(kind('date')).toBe('categorical');
    expect(kind('integer[]')).toBe('categorical');
  });
});

describe("a database source's declared schema (declaredDatabaseSchema)", () => {
  const names = ['ward', 'age', 'smoker'];
  it('every column sent is declared whole, used exactly (provenance declared)', () => {
    const s = declaredDatabaseSchema('postgres://h/db?table=t', names, {
      columns: [{ name: 'ward', kind: 'categorical', categories: ['A', 'B'], missing: false }],
    });
    expect(s.origin).toBe('declared');
    expect(s.columns).toHaveLength(1);
    expect(s.columns[0]).toMatchObject({ name: 'ward', kind: 'categorical', categories: ['A', 'B'] });
  });

  it('no input: nothing declared (every column discovered privately)', () => {
    expect(declaredDatabaseSchema('x', names, undefined).columns).toEqual([]);
  });

  it('a column the source lacks: refused naming it and the source’s columns', () => {
    expect(() =>
      declaredDatabaseSchema('postgres://h/db?table=t', names, {
        columns: [{ name: 'height', kind: 'numeric', edges: [0, 1], integer: false, missing: false }],
      }),
    ).toThrow(
      /the declared column "height" is not a column of the source \(its columns: ward, age, smoker\)/,
    );
  });

  it('a domain the schema file would refuse (edges not ascending): refused naming the column', () => {
    expect(() =>
      declaredDatabaseSchema('x', names, {
        columns: [{ name: 'age', kind: 'numeric', edges: [10, 5], integer: true, missing: false }],
      }),
    ).toThrow(/age/);
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)(
  'a query source with a column left out and a column declared (RAP_TEST_POSTGRES)',
  () => {
    const table = `rap_app_choice_${process.pid}_${Date.now()}`;
    const src = () => parsePostgresSource(`${PG}?table=${table}`);
    // A private literal in the text: it must reach no file.
    const sql = () => `SELECT id, ward, smoker, age FROM ${table} WHERE ward <> 'private-literal-xyz'`;
    beforeAll(async () => {
      await withPostgres(src(), async (c) => {
        await c.query(`CREATE TABLE ${table} (id integer, ward text, smoker text, age integer)`);
        await c.query(
          `INSERT INTO ${table} SELECT i, (ARRAY['Oncology','Emergency','Cardiology'])[1 + i % 3], ` +
            `(ARRAY['daily','never'])[1 + i % 2], 20 + i % 50 FROM generate_series(0, 599) AS i`,
        );
      });
    });
    afterAll(async () => {
      await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    });

    const source = () => ({ url: PG!, sql: sql(), password: 'typed-pw-choice' });
    const thresholds = [
      { features: ['ward', 'smoker'], r: 2, weight: 1 },
      { features: ['ward', 'age'], r: 2, weight: 1 },
    ];
    // Declared by the curator: a category no row holds is kept (used exactly, not discovered).
    const schema = {
      columns: [
        {
          name: 'ward',
          kind: 'categorical' as const,
          categories: ['Cardiology', 'Emergency', 'Oncology', 'Paediatrics'],
          missing: false,
        },
      ],
    };
    const settings = { ...SETTINGS, exclude: ['id'] };

    it('bad input, refused before anything is reserved, naming what is wrong', async () => {
      const run = (arg: Partial<Parameters<typeof app.call<'startDatabaseRun'>>[1]>) =>
        refusal(app.call('startDatabaseRun', { source: source(), thresholds, settings, schema, ...arg }));
      // A query the database refuses (a column it does not have).
      const bad = await run({ source: { url: PG!, sql: `SELECT nosuch FROM ${table}` } });
      expect(bad.message).toContain('the database refused the query');
      expect(bad.message).toContain('nosuch');
      // A table it cannot see.
      const missing = await run({ source: { url: PG!, table: 'no_such_table_xyz' } });
      expect(missing.message).toContain('no table or view "no_such_table_xyz"');
      // A server it cannot reach.
      const gone = await run({ source: { url: 'postgres://127.0.0.1:1/db', sql: 'SELECT 1 AS a, 2 AS b' } });
      expect(gone.message).toContain('cannot connect');
      expect(gone.message).not.toContain('typed-pw-choice');
      // A column to leave out that the source lacks.
      const left = await run({ settings: { ...SETTINGS, exclude: ['height'] } });
      expect(left.message).toContain('"height", which is not a column of the table');
      // A declared column the source lacks.
      const declared = await run({
        schema: { columns: [{ name: 'height', kind: 'categorical', categories: ['a'], missing: false }] },
      });
      expect(declared.message).toContain('the declared column "height" is not a column of the source');
      // A workload over the column left out.
      const over = await run({ thresholds: [{ features: ['id', 'ward'], r: 2, weight: 1 }] });
      expect(over.message).toContain('names the column "id", which the column choice leaves out');
      // A declared domain a row does not fit: the column and the count named.
      const narrow = await run({
        schema: {
          columns: [{ name: 'ward', kind: 'categorical', categories: ['Oncology'], missing: false }],
        },
      });
      expect(narrow.message).toContain('column "ward"');
      expect(narrow.message).toContain('400 of the 600 rows do not fit the declared domain');
      expect(await app.call('runState', {})).toBeNull();
    });

    it('cap, run and export: the CSV without the column left out, the declared column exact; the ledger as the CLI’s', async () => {
      const budget = await app.call('setDatabaseCap', { source: source(), epsilon: '5' });
      expect(budget.capEpsilon).toBe(5);
      const started = await app.call('startDatabaseRun', { source: source(), thresholds, schema, settings });
      const run = await settle(app, 30_000);
      expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
      const exported = await app.call('exportRun', { runId: started.runId });
      if (!exported.written) throw new Error('not written');
      const lines = readFileSync(exported.path, 'utf8').trim().split(/\r?\n/);
      expect(lines[0]).toBe('ward,smoker,age');
      for (const line of lines.slice(1)) expect(schema.columns[0].categories).toContain(line.split(',')[0]);
      // The manifest states the declared column as declared (its whole domain, the curator's).
      const manifest = readFileSync(exported.manifestPath, 'utf8');
      expect(manifest).not.toContain('typed-pw-choice');
      expect(manifest).not.toContain('private-literal-xyz');
      expect(manifest).toContain('Paediatrics');

      const ledger = Ledger.open(join(dir, 'ledger.sqlite'));
      try {
        // The query source's identity is the database's, keyed as the CLI's --sql keys it.
        const fingerprint = queryFingerprint(ledger.sourceKey(), parsePostgresQuerySource(PG!, sql()));
        const ds = ledger.datasets().find((d) => d.fingerprint === fingerprint);
        expect(ds?.name).toBe('rap (SQL queries)');
        expect(ds?.rows).toBe(600);
        const committed = ledger.releases().filter((r) => r.status === 'committed');
        expect(committed).toHaveLength(1);
        expect(committed[0].datasetFingerprint).toBe(fingerprint);
        const everything = JSON.stringify([ledger.datasets(), ledger.releases()]);
        expect(everything).not.toContain('typed-pw-choice');
        expect(everything).not.toContain('private-literal-xyz');
      } finally {
        ledger.close();
      }
    });

    it('every released column declared (nothing to discover): the release uses the declared domains only', async () => {
      const all = {
        columns: [
          ...schema.columns,
          {
            name: 'smoker',
            kind: 'categorical' as const,
            categories: ['daily', 'never', 'weekly'],
            missing: false,
          },
          { name: 'age', kind: 'numeric' as const, edges: [0, 40, 80, 120], integer: true, missing: false },
        ],
      };
      const started = await app.call('startDatabaseRun', {
        source: source(),
        thresholds,
        schema: all,
        settings,
      });
      const run = await settle(app, 30_000);
      expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
      const exported = await app.call('exportRun', { runId: started.runId });
      if (!exported.written) throw new Error('not written');
      const lines = readFileSync(exported.path, 'utf8').trim().split(/\r?\n/);
      expect(lines[0]).toBe('ward,smoker,age');
      for (const line of lines.slice(1)) {
        const [ward, smoker, age] = line.split(',');
        expect(schema.columns[0].categories).toContain(ward);
        expect(['daily', 'never', 'weekly']).toContain(smoker);
        expect(Number(age)).toBeGreaterThanOrEqual(0);
        expect(Number(age)).toBeLessThanOrEqual(120);
      }
      // No discovery: nothing of the budget goes to it.
      const ledger = Ledger.open(join(dir, 'ledger.sqlite'));
      try {
        expect(ledger.releases().at(-1)?.mechanism).not.toContain('domain-discovery');
      } finally {
        ledger.close();
      }
    });
  },
);

/**
 * One person, several rows: the Data step's identifier passed to the release as a file's
 * unitColumn (the person level counted in the database, core/release/database-person.ts).
 */
describe.skipIf(!PG)('a database source with an identifier column (RAP_TEST_POSTGRES)', () => {
  const table = `rap_app_person_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);
  beforeAll(async () => {
    await withPostgres(src(), async (c) => {
      // 200 persons, three rows each.
      await c.query(`CREATE TABLE ${table} (person integer, ward text, smoker text, age integer)`);
      await c.query(
        `INSERT INTO ${table} SELECT i % 200, (ARRAY['Oncology','Emergency','Cardiology'])[1 + i % 3], ` +
          `(ARRAY['daily','never'])[1 + i % 2], 20 + i % 50 FROM generate_series(0, 599) AS i`,
      );
    });
  });
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
  });
  const source = () => ({ url: PG!, table });
  const thresholds = [{ features: ['ward', 'smoker'], r: 2, weight: 1 }];
  const settings = { epsilon: '1', rows: '40', unitColumn: 'person', rowsPerPerson: '3' };

  it('an identifier the source lacks, or one in the workload: refused naming it', async () => {
    const gone = await refusal(
      app.call('startDatabaseRun', {
        source: source(),
        thresholds,
        settings: { ...settings, unitColumn: 'patient' },
      }),
    );
    expect(gone.message).toContain('no column named "patient"');
    const inWorkload = await refusal(
      app.call('startDatabaseRun', {
        source: source(),
        thresholds: [{ features: ['person', 'ward'], r: 2, weight: 1 }],
        settings,
      }),
    );
    expect(inWorkload.message).toContain('the workload names the unit column "person"');
    const cap = await refusal(
      app.call('setDatabaseCap', { source: source(), epsilon: '5', unitColumn: 'patient' }),
    );
    expect(cap.message).toContain('no column named "patient"');
  });

  it('released per person: the identifier never in the CSV; the ledger charges a person-level release', async () => {
    await app.call('setDatabaseCap', { source: source(), epsilon: '5', unitColumn: 'person' });
    const started = await app.call('startDatabaseRun', { source: source(), thresholds, settings });
    const run = await settle(app, 30_000);
    expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
    const exported = await app.call('exportRun', { runId: started.runId });
    if (!exported.written) throw new Error('not written');
    const lines = readFileSync(exported.path, 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe('ward,smoker,age');
    const ledger = Ledger.open(join(dir, 'ledger.sqlite'));
    try {
      expect(ledger.releases().at(-1)?.mechanism).toContain('person-bounding');
    } finally {
      ledger.close();
    }
  });
});
