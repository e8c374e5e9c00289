/**
 * A release from a PostgreSQL table through the app's services, called as the renderer calls them
 * (dispatch.ts; services/database-runs.ts): the database dataset's cap in the ledger, the run
 * through the same release pipeline as `synth --data postgres://…` (every column discovered
 * privately, counted in the database), its results and export; refusals before anything is
 * reserved. Against a real server: RAP_TEST_POSTGRES (started by .ci/run).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { toErrorPayload } from '../../../src/services/dispatch.ts';
import { settle, webApp } from './fixtures.ts';

let dir: string;
let app: ReturnType<typeof webApp>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rap-db-run-'));
  app = webApp(dir, 1);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETTINGS = { epsilon: '1', rows: '10', rounds: '1', perRound: '5', mode: 'query' } as const;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('not refused');
    },
    (err: unknown) => toErrorPayload(err),
  );

describe('startDatabaseRun / setDatabaseCap: refused before anything is reserved', () => {
  it('a password in the URL: refused, the password in no message', async () => {
    const e = await refusal(
      app.call('startDatabaseRun', {
        source: { url: 'postgres://ann:s3cret@127.0.0.1:1/db', table: 't' },
        thresholds: [{ features: ['a', 'b'], r: 2, weight: 1 }],
        settings: SETTINGS,
      }),
    );
    expect(e.kind).toBe('input');
    expect(e.message).not.toContain('s3cret');
  });

  it('a hierarchy with bad levels: refused with the CLI’s message before the source is read', async () => {
    const source = { url: 'postgres://127.0.0.1:1/db', table: 't' };
    const thresholds = [{ features: ['a', 'b'], r: 2, weight: 1 }];
    const h = await refusal(
      app.call('startDatabaseRun', { source, thresholds, settings: { ...SETTINGS, hierarchy: ['a=1,x'] } }),
    );
    expect(h.message).toContain('hierarchy of "a"');
  });

  it('an unknown key in the source is refused by the dispatcher', async () => {
    const e = await refusal(
      app.call('setDatabaseCap', {
        source: { url: 'postgres://h/db', table: 't', user: 'x' } as never,
        epsilon: '1',
      }),
    );
    expect(e.message).toContain('Invalid argument for setDatabaseCap');
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)('a release from a PostgreSQL table (RAP_TEST_POSTGRES)', () => {
  const table = `rap_app_run_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);
  beforeAll(async () => {
    await withPostgres(src(), async (c) => {
      await c.query(`CREATE TABLE ${table} (color text, size text, age integer)`);
      await c.query(
        `INSERT INTO ${table} SELECT (ARRAY['red','green','blue'])[1 + i % 3], ` +
          `(ARRAY['S','M','L','XL'])[1 + i % 4], 18 + i % 60 FROM generate_series(0, 599) AS i`,
      );
    });
  });
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
  });

  const source = () => ({ url: PG!, table, password: 'typed-pw-run' });
  const thresholds = [{ features: ['color', 'size'], r: 2, weight: 1 }];

  it('without a cap in the ledger: refused at reservation, nothing spent', async () => {
    const e = await refusal(
      app.call('startDatabaseRun', { source: source(), thresholds, settings: SETTINGS }),
    );
    expect(e.kind).toBe('budget');
    expect(e.message).toContain('has no privacy budget cap');
    expect(await app.call('runState', {})).toBeNull();
  });

  it('a workload naming a column the table lacks: refused naming it', async () => {
    const e = await refusal(
      app.call('startDatabaseRun', {
        source: source(),
        thresholds: [{ features: ['color', 'height'], r: 2, weight: 1 }],
        settings: SETTINGS,
      }),
    );
    expect(e.message).toContain('height');
  });

  it('cap, run, results, export: the database dataset spends its ledger budget; the password nowhere', async () => {
    const budget = await app.call('setDatabaseCap', { source: source(), epsilon: '5' });
    expect(budget.registered).toBe(true);
    expect(budget.capEpsilon).toBe(5);
    const started = await app.call('startDatabaseRun', { source: source(), thresholds, settings: SETTINGS });
    expect(started.datasetName).toBe(`rap_${table}`);
    const run = await settle(app);
    expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
    // Stored before it is shown finished (the result store, the private report with it).
    expect(run?.warnings.join(' ')).not.toContain('could not be saved');
    const report = await app.call('releaseReport', { runId: started.runId });
    expect(report.data?.datasetName).toBe(`rap/${table}`);
    const results = await app.call('results', { runId: started.runId });
    expect(results.syntheticRows).toBeGreaterThan(0);
    // The workload's table was counted in the database: its real marginal is there; a pair it
    // did not count is refused, saying why.
    const m = await app.call('marginalCompare', { runId: started.runId, features: ['color', 'size'] });
    expect(m.real.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    const age = await refusal(
      app.call('marginalCompare', { runId: started.runId, features: ['size', 'age'] }),
    );
    expect(age.message).toContain('no rows kept');
    // A numeric column's real distribution needs its rows: not drawn for a database source.
    const one = await app.call('marginalCompare', { runId: started.runId, features: ['age'] });
    expect(one.real.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(one.distribution).toBeUndefined();

    const exported = await app.call('exportRun', { runId: started.runId });
    if (!exported.written) throw new Error('not written');
    expect(basename(exported.path)).toBe(`rap_${table}-synthetic.csv`);
    const lines = readFileSync(exported.path, 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe('color,size,age');
    expect(lines.length - 1).toBe(exported.rows);
    const manifest = readFileSync(exported.manifestPath, 'utf8');
    expect(manifest).not.toContain('typed-pw-run');
    expect(JSON.parse(manifest).dataset.name).toBe(`rap/${table}`);

    // The ledger: one committed release, on the database dataset (keyed identity, named by table).
    const ledger = Ledger.open(join(dir, 'ledger.sqlite'));
    try {
      const ds = ledger.datasets().find((d) => d.name === `rap/${table}`);
      expect(ds?.rows).toBe(600);
      const committed = ledger.releases().filter((r) => r.status === 'committed');
      expect(committed).toHaveLength(1);
      expect(committed[0].datasetFingerprint).toBe(ds?.fingerprint);
      expect(JSON.stringify(ledger.releases())).not.toContain('typed-pw-run');
    } finally {
      ledger.close();
    }
  });
});
