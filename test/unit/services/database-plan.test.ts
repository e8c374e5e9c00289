/**
 * A database source with what a file's Schema step offers (services/database-plan.ts), through the
 * services as the renderer calls them: each column's discovery cost before Run (planDatabaseRun,
 * the same split the release spends: the plan's ρ per column is the manifest's), a date format
 * stated for a text column holding dates (read in it: a date column in the released Table Schema,
 * the released values in the format), and a hierarchical code (ICD-10: a share per level in the
 * plan, discovered level by level; the ledger names the hierarchy). Bad settings are named as the
 * CLI names them. Against a real server: RAP_TEST_POSTGRES.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { DEFAULT_DISCOVERY_SHARE } from '../../../src/core/discovery/discover.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { defaultDelta } from '../../../src/core/privacy/accounting.ts';
import { PERSON_DEFAULT_DELTA } from '../../../src/core/release/person.ts';
import { statedDatabaseFormats } from '../../../src/services/database-plan.ts';
import { toErrorPayload } from '../../../src/services/dispatch.ts';
import type { DatabasePlanView, RunSettingsInput } from '../../../src/shared/api.ts';
import { settle, webApp } from './fixtures.ts';

describe('a stated date format for a database column (statedDatabaseFormats)', () => {
  it('the editor’s pattern as the spec carries it (strftime), by column', () => {
    expect(statedDatabaseFormats('db', { visit: { kind: 'date', format: 'DD.MM.YYYY' } })).toEqual({
      visit: { temporal: { kind: 'date', format: '%d.%m.%Y' } },
    });
    expect(statedDatabaseFormats('db', undefined)).toEqual({});
  });

  it('a pattern the release cannot read: refused naming the source and the column', () => {
    expect(() => statedDatabaseFormats('db', { visit: { kind: 'date', format: 'DD.MM.YY' } })).toThrow(
      /db: column "visit": .*two-digit years/,
    );
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

const SETTINGS: RunSettingsInput = {
  epsilon: '4',
  rows: '30',
  rounds: '1',
  perRound: '2',
  mode: 'query',
  exclude: ['id'],
};

const cost = (p: DatabasePlanView, name: string) => {
  const c = p.columns.find((x) => x.name === name);
  if (c?.domain !== 'discovered' || !c.cost) throw new Error(`no cost for ${name}: ${JSON.stringify(c)}`);
  return c.cost;
};

describe.skipIf(!PG)('a database source’s costs, date formats and hierarchies (RAP_TEST_POSTGRES)', () => {
  const table = `rap_app_plan_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);
  const source = () => ({ url: PG!, table });
  let dir: string;
  let app: ReturnType<typeof webApp>;
  /** ward declared (free); visit, dx and age discovered; id left out. */
  const schema = {
    columns: [{ name: 'ward', kind: 'categorical' as const, categories: ['A', 'B', 'C'], missing: false }],
  };
  const temporal = { visit: { kind: 'date' as const, format: 'DD.MM.YYYY' } };
  const stated = { ...SETTINGS, hierarchy: ['dx=icd10'] };
  let plan: DatabasePlanView;
  let manifest: {
    schema: {
      columns: { name: string; domain: string; rho?: number }[];
      tableSchema: { fields: { name: string; type: string; format?: string }[] };
    };
  };
  let csv: string[][];
  let pkg: { resources: { schema: { fields: { name: string; constraints?: { enum?: string[] } }[] } }[] };
  let ledgerParams: Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rap-db-plan-'));
    app = webApp(dir, 1);
    await withPostgres(src(), async (c) => {
      await c.query(`CREATE TABLE ${table} (id integer, visit text, dx text, ward text, age integer)`);
      // Dates written day.month.year (no public candidate format reads them), ICD-10 codes.
      await c.query(
        `INSERT INTO ${table} SELECT i, to_char(date '2023-01-01' + (i % 365), 'DD.MM.YYYY'), ` +
          `(ARRAY['C34.10','C34.10','C34.90','I10','I10','J18.9'])[1 + i % 6], ` +
          `(ARRAY['A','B','C'])[1 + i % 3], 20 + i % 50 FROM generate_series(0, 1499) AS i`,
      );
    });
    plan = await app.call('planDatabaseRun', { source: source(), schema, temporal, settings: stated });
    await app.call('setDatabaseCap', { source: source(), epsilon: '10' });
    const started = await app.call('startDatabaseRun', {
      source: source(),
      thresholds: [
        { features: ['dx', 'ward'], r: 2, weight: 1 },
        { features: ['visit', 'ward'], r: 2, weight: 1 },
      ],
      schema,
      temporal,
      settings: stated,
    });
    const run = await settle(app, 30_000);
    if (run?.status !== 'finished') throw new Error(`run ${run?.status}: ${JSON.stringify(run?.error)}`);
    const out = await app.call('exportRun', { runId: started.runId });
    if (!out.written) throw new Error('not written');
    manifest = JSON.parse(readFileSync(out.manifestPath, 'utf8'));
    pkg = JSON.parse(readFileSync(out.path.replace(/\.csv$/, '.datapackage.json'), 'utf8'));
    csv = readFileSync(out.path, 'utf8')
      .trim()
      .split(/\r?\n/)
      .map((l) => l.split(','));
    const ledger = Ledger.open(join(dir, 'ledger.sqlite'));
    try {
      ledgerParams = ledger.releases().filter((r) => r.status === 'committed')[0].params;
    } finally {
      ledger.close();
    }
  }, 120_000);
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    rmSync(dir, { recursive: true, force: true });
  });

  it('(c) the plan states each released column’s cost before Run, and the release charges exactly that', async () => {
    expect(plan.problems).toEqual([]);
    // id is left out (no cost shown); ward is declared (free); the others are discovered.
    expect(plan.columns.map((c) => [c.name, c.domain])).toEqual([
      ['visit', 'discovered'],
      ['dx', 'discovered'],
      ['ward', 'declared'],
      ['age', 'discovered'],
    ]);
    // δ left blank: the release's default from the table's row count.
    expect(plan.delta).toBe(defaultDelta(1500));
    expect(plan.discovery?.columns).toBe(3);
    const shares = ['visit', 'dx', 'age'].reduce((a, n) => a + cost(plan, n).shareOfRho, 0);
    expect(shares).toBeCloseTo(DEFAULT_DISCOVERY_SHARE, 12);
    // The manifest's per-column ρ (the ledger event's): the plan's, column by column.
    for (const name of ['visit', 'dx', 'age']) {
      const charged = manifest.schema.columns.find((c) => c.name === name);
      expect(charged?.domain).toBe('discovered privately');
      expect(charged?.rho).toBeCloseTo(cost(plan, name).rho, 14);
    }
    expect(manifest.schema.columns.find((c) => c.name === 'ward')?.rho).toBeUndefined();

    // At the person level the identifier is no column of the release; δ is the person level's constant.
    const person = await app.call('planDatabaseRun', {
      source: source(),
      settings: { ...SETTINGS, exclude: [], unitColumn: 'id' },
    });
    expect(person.columns.map((c) => c.name)).toEqual(['visit', 'dx', 'ward', 'age']);
    expect(person.delta).toBe(PERSON_DEFAULT_DELTA);
    expect(cost(person, 'ward').shareOfRho).toBeCloseTo(DEFAULT_DISCOVERY_SHARE / 4, 12);

    // A setting that does not parse: named as the Privacy step names it, no cost shown.
    const bad = await app.call('planDatabaseRun', {
      source: source(),
      settings: { ...SETTINGS, epsilon: 'x' },
    });
    expect(bad.problems.map((p) => p.field)).toContain('epsilon');
    expect(bad.columns.find((c) => c.name === 'age')).toEqual({
      name: 'age',
      domain: 'discovered',
      cost: null,
    });
  });

  it('(a) a stated date format: the text column is released as dates in that format', async () => {
    const field = manifest.schema.tableSchema.fields.find((f) => f.name === 'visit');
    expect(field?.type).toBe('date');
    const at = csv[0].indexOf('visit');
    expect(at).toBeGreaterThanOrEqual(0);
    for (const row of csv.slice(1)) expect(row[at]).toMatch(/^(\d\d\.\d\d\.\d{4}|\?|)$/);
    // Some row holds a date (the privately discovered range may reach a neighbouring year).
    expect(csv.slice(1).some((row) => /^\d\d\.\d\d\.\d{4}$/.test(row[at]))).toBe(true);

    // A pattern the release cannot read: a problem in the plan, a refusal at Run, nothing reserved.
    const bad = { visit: { kind: 'date' as const, format: 'DD.MM.YY' } };
    const p = await app.call('planDatabaseRun', { source: source(), temporal: bad, settings: SETTINGS });
    expect(p.problems).toContainEqual({ field: 'temporal', message: expect.stringContaining('"visit"') });
    const e = await app
      .call('startDatabaseRun', {
        source: source(),
        thresholds: [{ features: ['visit', 'ward'], r: 2, weight: 1 }],
        temporal: bad,
        settings: SETTINGS,
      })
      .then(
        () => null,
        (err: unknown) => toErrorPayload(err),
      );
    expect(e?.message).toMatch(/two-digit years/);
    // A format on a column that is not discovered (declared): refused by the release, naming it.
    const declared = await app
      .call('startDatabaseRun', {
        source: source(),
        thresholds: [{ features: ['visit', 'ward'], r: 2, weight: 1 }],
        schema,
        temporal: { ward: { kind: 'date', format: 'DD.MM.YYYY' } },
        settings: SETTINGS,
      })
      .then(
        () => null,
        (err: unknown) => toErrorPayload(err),
      );
    expect(declared?.message).toContain('"ward", which is not a column to discover');
  });

  it('(b) a hierarchical code: a share per level in the plan, discovered level by level at release', async () => {
    const plain = await app.call('planDatabaseRun', { source: source(), schema, settings: SETTINGS });
    // dx's three ICD-10 levels take 3 of 5 shares; the plain columns one each.
    expect(cost(plan, 'dx').rho).toBeCloseTo(3 * cost(plan, 'age').rho, 14);
    expect(cost(plain, 'dx').rho).toBeCloseTo(cost(plain, 'age').rho, 14);
    expect(cost(plan, 'dx').rho + cost(plan, 'age').rho + cost(plan, 'visit').rho).toBeCloseTo(
      cost(plain, 'dx').rho + cost(plain, 'age').rho + cost(plain, 'visit').rho,
      14,
    );
    expect((ledgerParams.discovery as { hierarchies?: unknown }).hierarchies).toEqual({ dx: 'icd10' });
    const field = pkg.resources[0].schema.fields.find((f) => f.name === 'dx');
    expect(field?.constraints?.enum).toEqual(expect.arrayContaining(['C', 'C34', 'I', 'I10', 'J', 'J18']));
    const domain = new Set(field?.constraints?.enum);
    const at = csv[0].indexOf('dx');
    for (const row of csv.slice(1)) expect(domain.has(row[at])).toBe(true);

    // Bad levels: the CLI's message, in the plan and at Run (nothing reserved).
    const bad = await app.call('planDatabaseRun', {
      source: source(),
      settings: { ...SETTINGS, hierarchy: ['dx=1,x'] },
    });
    expect(bad.problems).toContainEqual({
      field: 'hierarchy',
      message: expect.stringContaining('hierarchy of "dx": "x" is not a level'),
    });
    // A hierarchy on a column the release leaves out: refused naming it.
    const out = await app
      .call('startDatabaseRun', {
        source: source(),
        thresholds: [{ features: ['ward', 'age'], r: 2, weight: 1 }],
        settings: { ...SETTINGS, hierarchy: ['id=1,2'] },
      })
      .then(
        () => null,
        (err: unknown) => toErrorPayload(err),
      );
    expect(out?.message).toContain('"id"');
  });
  it('(a, b) at the person level, from a query: the identifier bounds persons, the format and the levels hold', async () => {
    const q = {
      url: PG!,
      sql: `SELECT id % 500 AS person, visit, dx, ward FROM ${table}`,
    };
    const settings = {
      ...SETTINGS,
      exclude: [],
      unitColumn: 'person',
      rowsPerPerson: '3',
      hierarchy: ['dx=icd10'],
    };
    const p = await app.call('planDatabaseRun', { source: q, temporal, settings });
    expect(p.problems).toEqual([]);
    expect(p.columns.map((c) => c.name)).toEqual(['visit', 'dx', 'ward']);
    expect(cost(p, 'dx').rho).toBeCloseTo(3 * cost(p, 'ward').rho, 14);
    await app.call('setDatabaseCap', { source: q, epsilon: '10', unitColumn: 'person' });
    const started = await app.call('startDatabaseRun', {
      source: q,
      thresholds: [{ features: ['dx', 'visit'], r: 2, weight: 1 }],
      temporal,
      settings,
    });
    const run = await settle(app, 30_000);
    expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
    const out = await app.call('exportRun', { runId: started.runId });
    if (!out.written) throw new Error('not written');
    const m = JSON.parse(readFileSync(out.manifestPath, 'utf8'));
    expect(m.schema.tableSchema.fields.find((f: { name: string }) => f.name === 'visit')?.type).toBe('date');
    // The plan's cost per column is what the person-level release charges too.
    for (const name of ['visit', 'dx', 'ward']) {
      const charged = m.schema.columns.find((c: { name: string }) => c.name === name);
      expect(charged?.rho).toBeCloseTo(cost(p, name).rho, 14);
    }
    const rows = readFileSync(out.path, 'utf8').trim().split(/\r?\n/);
    expect(rows[0]).toBe('visit,dx,ward');
    for (const r of rows.slice(1)) expect(r.split(',')[0]).toMatch(/^(\d\d\.\d\d\.\d{4}|\?|)$/);
    const fields = JSON.parse(readFileSync(out.path.replace(/\.csv$/, '.datapackage.json'), 'utf8'))
      .resources[0].schema.fields as { name: string; constraints?: { enum?: string[] } }[];
    expect(fields.find((f) => f.name === 'dx')?.constraints?.enum).toEqual(
      expect.arrayContaining(['C', 'I', 'J']),
    );
  }, 60_000);
});
