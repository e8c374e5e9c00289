/**
 * A PostgreSQL date or time column in the app (services/database-schema.ts temporalRead): the
 * connection writes it as ISO text (DateStyle ISO, whatever the server's style), which discovery's
 * public candidate formats read with no format stated, so a `date` column is released as dates,
 * `timestamp(0)` as datetimes and `time(0)` as times; the Data step says so from the catalogue
 * type (public). A type whose text ends in a zone offset (`timestamptz`: `+00`) is read by no
 * format, and the panel says what to do. Against a real server: RAP_TEST_POSTGRES, with the
 * session's default style German (PGOPTIONS) to show the pin.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { temporalRead } from '../../../src/services/database-schema.ts';
import { settle, webApp } from './fixtures.ts';

describe('how discovery reads a date or time type (temporalRead)', () => {
  it('date, timestamp and time without a zone: read; a fraction of a second named; a zone: not read', () => {
    expect(temporalRead('date', 'd')?.kind).toBe('date');
    expect(temporalRead('timestamp(0) without time zone', 'ts')).toEqual({
      kind: 'datetime',
      note: 'read as datetimes (YYYY-MM-DD HH:MM:SS): no format to state',
    });
    expect(temporalRead('time(0) without time zone', 't')?.kind).toBe('time');
    // Any other precision (a query's result has none): fractions are not read, the fix named.
    for (const type of ['timestamp without time zone', 'timestamp(3) without time zone']) {
      const r = temporalRead(type, 'ts');
      expect(r?.kind).toBe('datetime');
      expect(r?.note).toContain('fraction of a second is not read');
      expect(r?.note).toContain('ts::timestamp(0) AS ts');
    }
    for (const [type, kind] of [
      ['timestamp with time zone', 'datetimes'],
      ['timestamp(0) with time zone', 'datetimes'],
      ['time with time zone', 'times'],
    ]) {
      const r = temporalRead(type, 'at');
      expect(r?.kind).toBeNull();
      expect(r?.note).toContain(`not read as ${kind}`);
    }
    for (const type of ['text', 'integer', 'interval', 'character varying(10)', 'date[]'])
      expect(temporalRead(type, 'x')).toBeUndefined();
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)('a PostgreSQL date or time column released from the app (RAP_TEST_POSTGRES)', () => {
  const table = `rap_app_dates_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);
  const source = () => ({ url: PG!, table });
  const options = process.env.PGOPTIONS;
  let dir: string;
  let app: ReturnType<typeof webApp>;

  beforeAll(async () => {
    // The server's default output style for this process's sessions: German (15.01.2023), which
    // no candidate format reads; the app's connection asks for ISO.
    process.env.PGOPTIONS = '-c DateStyle=German,DMY';
    dir = mkdtempSync(join(tmpdir(), 'rap-db-dates-'));
    app = webApp(dir, 1);
    await withPostgres(src(), async (c) => {
      await c.query(
        `CREATE TABLE ${table} (d date, ts timestamp(0), t time(0), tz timestamptz(0), ward text)`,
      );
      await c.query(
        `INSERT INTO ${table} SELECT date '2023-01-01' + (i % 365), ` +
          `timestamp '2023-01-01 08:00' + (i % 300) * interval '1 hour', ` +
          `time '08:00' + (i % 200) * interval '1 minute', ` +
          `timestamptz '2023-01-01 08:00+00' + (i % 300) * interval '1 hour', ` +
          `(ARRAY['A','B','C'])[1 + i % 3] FROM generate_series(0, 1499) AS i`,
      );
    });
  }, 60_000);
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    rmSync(dir, { recursive: true, force: true });
    if (options === undefined) delete process.env.PGOPTIONS;
    else process.env.PGOPTIONS = options;
  });

  it('the connection writes ISO text whatever the session’s default style', async () => {
    const [row] = await withPostgres(src(), async (c) => {
      const r = await c.query({ text: `SELECT d::text, current_setting('DateStyle') FROM ${table} LIMIT 1` });
      return r.rows as { d: string; current_setting: string }[];
    });
    expect(row.current_setting).toBe('ISO, DMY');
    expect(row.d).toBe('2023-01-01');
  });

  it('the panel’s columns say how each is read; released with no format stated as date, datetime, time', async () => {
    const view = await app.call('describeDatabase', source());
    const reads = Object.fromEntries(view.columns.map((c) => [c.name, c.temporal?.kind]));
    expect(reads).toEqual({ d: 'date', ts: 'datetime', t: 'time', tz: null, ward: undefined });

    const settings = { epsilon: '4', rows: '40', rounds: '1', perRound: '2', mode: 'query' as const };
    const plan = await app.call('planDatabaseRun', { source: source(), settings });
    expect(plan.problems).toEqual([]);
    await app.call('setDatabaseCap', { source: source(), epsilon: '10' });
    const started = await app.call('startDatabaseRun', {
      source: source(),
      thresholds: [
        { features: ['d', 'ward'], r: 2, weight: 1 },
        { features: ['ts', 't'], r: 2, weight: 1 },
      ],
      settings,
    });
    const run = await settle(app, 30_000);
    expect(run?.status, JSON.stringify(run?.error)).toBe('finished');
    const out = await app.call('exportRun', { runId: started.runId });
    if (!out.written) throw new Error('not written');
    const manifest = JSON.parse(readFileSync(out.manifestPath, 'utf8'));
    const fields = manifest.schema.tableSchema.fields as { name: string; type: string; format?: string }[];
    const typeOf = (n: string) => fields.find((f) => f.name === n);
    expect(typeOf('d')).toMatchObject({ type: 'date', format: '%Y-%m-%d' });
    expect(typeOf('ts')).toMatchObject({ type: 'datetime', format: '%Y-%m-%d %H:%M:%S' });
    expect(typeOf('t')).toMatchObject({ type: 'time', format: '%H:%M:%S' });
    // timestamptz's text (…+00) is read by no format: not a datetime (as the panel says).
    expect(typeOf('tz')?.type).toBe('string');
    const lines = readFileSync(out.path, 'utf8').trim().split(/\r?\n/);
    const header = lines[0].split(',');
    const [d, ts, t] = ['d', 'ts', 't'].map((n) => header.indexOf(n));
    for (const line of lines.slice(1)) {
      const row = line.split(',');
      expect(row[d]).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(row[ts]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(row[t]).toMatch(/^\d\d:\d\d:\d\d$/);
    }
  }, 120_000);
});
