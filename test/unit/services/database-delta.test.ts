/**
 * A database release's δ typed in the app (DatabaseSource.vue's δ field, sent as `settings.delta`
 * and parsed by settings.ts parseSettings as the Privacy step's): the plan states it before Run,
 * the release spends it and the ledger records it; blank is the default the plan names
 * (`defaultDelta`: 1/n² from the row count, or the person level's constant); a δ that does not
 * parse is named in the plan and refused at Run before anything is reserved. Against a real
 * server: RAP_TEST_POSTGRES.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { defaultDelta } from '../../../src/core/privacy/accounting.ts';
import { PERSON_DEFAULT_DELTA } from '../../../src/core/release/person.ts';
import { toErrorPayload } from '../../../src/services/dispatch.ts';
import type { RunSettingsInput } from '../../../src/shared/api.ts';
import { settle, webApp } from './fixtures.ts';

const PG = process.env.RAP_TEST_POSTGRES;

const SETTINGS: RunSettingsInput = { epsilon: '4', rows: '30', rounds: '1', perRound: '2', mode: 'query' };

describe.skipIf(!PG)('a database release’s typed δ (RAP_TEST_POSTGRES)', () => {
  const table = `rap_app_delta_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);
  const source = () => ({ url: PG!, table });
  const thresholds = [{ features: ['ward', 'age'], r: 2, weight: 1 }];
  let dir: string;
  let app: ReturnType<typeof webApp>;

  const releases = () => {
    const ledger = Ledger.open(join(dir, 'ledger.sqlite'));
    try {
      return ledger.releases();
    } finally {
      ledger.close();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rap-db-delta-'));
    app = webApp(dir, 1);
    await withPostgres(src(), async (c) => {
      await c.query(`CREATE TABLE ${table} (id integer, ward text, age integer)`);
      await c.query(
        `INSERT INTO ${table} SELECT i % 400, (ARRAY['A','B','C'])[1 + i % 3], 20 + i % 50 ` +
          'FROM generate_series(0, 1199) AS i',
      );
    });
    await app.call('setDatabaseCap', { source: source(), epsilon: '10' });
  }, 60_000);
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a typed δ is the δ the plan states, the release spends and the ledger records', async () => {
    const blank = await app.call('planDatabaseRun', { source: source(), settings: SETTINGS });
    expect(blank.defaultDelta).toBe(defaultDelta(1200));
    expect(blank.delta).toBe(defaultDelta(1200));

    const settings = { ...SETTINGS, delta: '1e-6' };
    const plan = await app.call('planDatabaseRun', { source: source(), settings });
    expect(plan.problems).toEqual([]);
    expect(plan.delta).toBe(1e-6);
    // The placeholder still names the default the blank field would mean.
    expect(plan.defaultDelta).toBe(defaultDelta(1200));
    // Discovery's δ (partition selection) is its share of the typed δ, not of the default.
    const deltaDiscovery = plan.discovery?.deltaDiscovery ?? Number.NaN;
    expect(deltaDiscovery).toBeGreaterThan(0);
    expect(deltaDiscovery).toBeLessThan(1e-6);
    expect(deltaDiscovery).not.toBeCloseTo(blank.discovery?.deltaDiscovery ?? 0, 20);

    await app.call('startDatabaseRun', { source: source(), thresholds, settings });
    const run = await settle(app, 30_000);
    expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
    // The run's one release in the ledger, as reserved and charged.
    const committed = releases();
    expect(committed).toHaveLength(1);
    expect(committed[0].epsilon).toBe(4);
    expect(committed[0].delta).toBe(1e-6);
    expect(committed[0].approxDelta).toBeCloseTo(deltaDiscovery, 20);
  }, 120_000);

  it('a δ that does not parse: named in the plan (field δ), refused at Run, nothing reserved', async () => {
    const before = releases().length;
    for (const bad of ['x', '0', '1', '-1e-6']) {
      const settings = { ...SETTINGS, delta: bad };
      const plan = await app.call('planDatabaseRun', { source: source(), settings });
      expect(plan.problems.map((p) => p.field)).toEqual(['delta']);
      expect(plan.problems[0].message).toMatch(/δ/);
      expect(plan.delta).toBeNull();
      expect(plan.defaultDelta).toBe(defaultDelta(1200));
      const e = await app.call('startDatabaseRun', { source: source(), thresholds, settings }).then(
        () => null,
        (err: unknown) => toErrorPayload(err),
      );
      expect(e?.message).toBe(plan.problems[0].message);
      expect(e?.kind).toBe('input');
    }
    expect(releases()).toHaveLength(before);
  });

  it('at the person level the default is the constant; a typed δ replaces it', async () => {
    const person = { ...SETTINGS, unitColumn: 'id', rowsPerPerson: '3' };
    const blank = await app.call('planDatabaseRun', { source: source(), settings: person });
    expect(blank.defaultDelta).toBe(PERSON_DEFAULT_DELTA);
    expect(blank.delta).toBe(PERSON_DEFAULT_DELTA);
    const typed = await app.call('planDatabaseRun', {
      source: source(),
      settings: { ...person, delta: '2e-7' },
    });
    expect(typed.delta).toBe(2e-7);
    expect(typed.defaultDelta).toBe(PERSON_DEFAULT_DELTA);
  });
});
