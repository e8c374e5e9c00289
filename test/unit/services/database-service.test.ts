/**
 * The Data step's database source (services/database-service.ts, through dispatch as the
 * renderer calls it): refusals that name what to write (a password in the URL never echoed), and,
 * against a real server (RAP_TEST_POSTGRES, started by .ci/run), a table's and a query's columns
 * with their types from the catalogue; the typed password in nothing the call returns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../../src/core/counting/postgres.ts';
import { databaseSource } from '../../../src/services/database-service.ts';
import { toErrorPayload } from '../../../src/services/dispatch.ts';
import { webApp } from './fixtures.ts';

let dir: string;
let app: ReturnType<typeof webApp>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rap-db-service-'));
  app = webApp(dir, 1);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The call's refusal as the host sends it to the renderer (dispatch.ts toErrorPayload). */
const refusal = (arg: Parameters<typeof app.call<'describeDatabase'>>[1]) =>
  app.call('describeDatabase', arg).then(
    () => {
      throw new Error('not refused');
    },
    (err: unknown) => toErrorPayload(err),
  );

describe('describeDatabase: refused, saying what to write', () => {
  it('a password in the URL: refused, the password in no message', async () => {
    const e = await refusal({ url: 'postgres://ann:s3cret@127.0.0.1:1/db', table: 'visits' });
    expect(e.kind).toBe('input');
    expect(e.message).toContain('holds a password');
    expect(e.message).not.toContain('s3cret');
  });

  it('neither or both of a table and a query; a URL that is not PostgreSQL; a table also in the URL', async () => {
    expect((await refusal({ url: 'postgres://h/db' })).message).toContain('Name a table, or give one SELECT');
    expect((await refusal({ url: 'postgres://h/db', table: 't', sql: 'SELECT 1' })).message).toContain(
      'one of the two',
    );
    expect((await refusal({ url: 'mysql://h/db', table: 't' })).message).toContain(
      'must be a PostgreSQL URL',
    );
    expect((await refusal({ url: 'postgres://h/db?table=t', table: 't' })).message).toContain('without "?…"');
  });

  it('a query that is not one SELECT: refused before connecting', async () => {
    const e = await refusal({ url: 'postgres://127.0.0.1:1/db', sql: 'SELECT 1; DROP TABLE t' });
    expect(e.message).toContain('more than one statement');
  });

  it('an unknown argument key is refused by the dispatcher (the shape is checked)', async () => {
    const e = await refusal({ url: 'postgres://h/db', table: 't', user: 'x' } as never);
    expect(e.message).toContain('Invalid argument for describeDatabase');
  });

  it('a server it cannot reach: an input error naming the source, no password in it', async () => {
    const e = await refusal({ url: 'postgres://ann@127.0.0.1:1/db', table: 't', password: 'typed-pw-1' });
    expect(e.kind).toBe('input');
    expect(e.message).toContain('postgres://ann@127.0.0.1:1/db?table=t: cannot connect');
    expect(e.message).not.toContain('typed-pw-1');
  });

  it('the typed password is no property of the source: no copy or JSON of it holds the password', () => {
    const src = databaseSource({ url: 'postgres://ann@h/db', table: 'visits', password: 'typed-pw-2' });
    expect(JSON.stringify(src)).not.toContain('typed-pw-2');
    expect(JSON.stringify(structuredClone(src))).not.toContain('typed-pw-2');
    expect(Object.values({ ...src })).not.toContain('typed-pw-2');
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)('describeDatabase against PostgreSQL (RAP_TEST_POSTGRES)', () => {
  const table = `rap_describe_${process.pid}_${Date.now()}`;
  const src = () => parsePostgresSource(`${PG}?table=${table}`);
  beforeAll(async () => {
    await withPostgres(src(), (c) =>
      c.query(`CREATE TABLE ${table} (age integer, city varchar(20), score double precision, seen date)`),
    );
  });
  afterAll(async () => {
    await withPostgres(src(), (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
  });

  it("a table's columns and types from the catalogue, in order; the password in nothing returned", async () => {
    const view = await app.call('describeDatabase', { url: PG!, table, password: 'typed-pw-3' });
    expect(view.kind).toBe('table');
    expect(view.columns).toEqual([
      { name: 'age', type: 'integer', kind: 'numeric', integer: true },
      { name: 'city', type: 'character varying(20)', kind: 'categorical', integer: false },
      { name: 'score', type: 'double precision', kind: 'numeric', integer: false },
      // A date type: read as dates at discovery (ISO text), said from the type (database-dates.test.ts).
      {
        name: 'seen',
        type: 'date',
        kind: 'categorical',
        integer: false,
        temporal: { kind: 'date', note: 'read as dates (YYYY-MM-DD): no format to state' },
      },
    ]);
    expect(view.location).toBe(`${PG!.replace(/\/\/[^@]*@/, '//')}?table=${table}`);
    expect(JSON.stringify(view)).not.toContain('typed-pw-3');
  });

  it("a query's result columns and types (no row read), named without its text", async () => {
    const view = await app.call('describeDatabase', {
      url: PG!,
      sql: `SELECT city, age * 2 AS twice, 'x'::text AS mark FROM ${table} WHERE city <> 'private-literal'`,
    });
    expect(view.kind).toBe('query');
    expect(view.columns).toEqual([
      { name: 'city', type: 'character varying', kind: 'categorical', integer: false },
      { name: 'twice', type: 'integer', kind: 'numeric', integer: true },
      { name: 'mark', type: 'text', kind: 'categorical', integer: false },
    ]);
    expect(view.location).not.toContain('private-literal');
    expect(view.location).toMatch(/ \(SQL query\)$/);
  });

  it('a missing table: refused naming it', async () => {
    const e = await refusal({ url: PG!, table: 'no_such_table' });
    expect(e.message).toContain('no table or view "no_such_table"');
  });
});
