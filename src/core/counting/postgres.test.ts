/**
 * PostgreSQL as a private source: the URL rules (no password in it), the ledger's keyed
 * fingerprint, and, against a real server (RAP_TEST_POSTGRES, started by .ci/run from Debian's
 * package), the same exact tables from the CSV, its Parquet copy and the table with the counting
 * pushed down.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCsv } from '../data/load.ts';
import { tempDir } from '../data/testing.ts';
import { InputError } from '../errors.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import { contingencyTable } from '../workload/exact.ts';
import {
  columnHistograms,
  countOnPostgres,
  databaseFingerprint,
  parsePostgresSource,
  tableColumns,
  tableRows,
  withPostgres,
} from './postgres.ts';
import { countFileTables } from './tables.ts';

describe('a PostgreSQL source URL', () => {
  it('names host, port, database, schema and table; the display form holds no credentials', () => {
    const s = parsePostgresSource('postgres://curator@db.example.org:5433/hospital?table=care.visits');
    expect(s).toMatchObject({
      host: 'db.example.org',
      port: 5433,
      database: 'hospital',
      user: 'curator',
      schema: 'care',
      table: 'visits',
    });
    expect(s.display).toBe('postgres://curator@db.example.org:5433/hospital?table=care.visits');
    // What the ledger and public files name: no user either.
    expect(s.location).toBe('postgres://db.example.org:5433/hospital?table=care.visits');
  });

  it('no host (the Unix socket or PGHOST), and an IPv6 host without its URL brackets', () => {
    expect(parsePostgresSource('postgres:///hospital?table=visits')).toMatchObject({
      host: undefined,
      database: 'hospital',
      location: 'postgres:///hospital?table=visits',
    });
    expect(parsePostgresSource('postgresql://[::1]:5433/h?table=t')).toMatchObject({
      host: '::1',
      port: 5433,
      location: 'postgres://[::1]:5433/h?table=t',
    });
  });

  it('a password in the URL is refused, and not repeated in the message', () => {
    const text = 'postgres://curator:s3cret@db/hospital?table=visits';
    let err: unknown;
    try {
      parsePostgresSource(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain('PGPASSWORD');
    expect((err as Error).message).not.toContain('s3cret');
  });

  it.each([
    'postgres://db/hospital',
    'postgres://db/?table=visits',
    'postgres://db/hospital?table=a.b.c',
  ])('%s is refused with what to write', (text) => {
    expect(() => parsePostgresSource(text)).toThrow(
      /postgres:\/\/host\/database\?table=|is not \[schema\.\]name/,
    );
  });
});

describe("the ledger's fingerprint of a database source", () => {
  const src = parsePostgresSource('postgres://db/hospital?table=visits');
  const key = Buffer.alloc(32, 1);
  it('is keyed, and changes with the row count, the query and the table', () => {
    const f = databaseFingerprint(key, src, 'SELECT 1', 100);
    expect(f).toMatch(/^[0-9a-f]{64}$/);
    expect(databaseFingerprint(key, src, 'SELECT 1', 100)).toBe(f);
    expect(databaseFingerprint(Buffer.alloc(32, 2), src, 'SELECT 1', 100)).not.toBe(f);
    expect(databaseFingerprint(key, src, 'SELECT 1', 101)).not.toBe(f);
    expect(databaseFingerprint(key, src, 'SELECT 2', 100)).not.toBe(f);
    expect(
      databaseFingerprint(key, parsePostgresSource('postgres://db/hospital?table=other'), 'SELECT 1', 100),
    ).not.toBe(f);
  });
});

const URL_ = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!URL_)('counting pushed down into PostgreSQL (RAP_TEST_POSTGRES)', () => {
  let dir: ReturnType<typeof tempDir>;
  const table = `rap_test_${process.pid}_${Date.now()}`;
  const rows: [number | null, string | null, number | null][] = [];
  for (let i = 0; i < 200; i++) {
    rows.push([
      i % 23 === 0 ? null : 18 + ((i * 7) % 60),
      ['Oslo', 'Lima', 'Pune', 'New York, NY'][i % 4],
      i % 11 === 0 ? null : [1.5, 2.25, 7, 3][i % 4],
    ]);
  }
  const csvText = `age,city,score\n${rows
    .map((r) =>
      r
        .map((v) => (v === null ? '' : typeof v === 'string' && v.includes(',') ? `"${v}"` : String(v)))
        .join(','),
    )
    .join('\n')}\n`;
  // Parsed lazily: a skipped describe still runs its body.
  let src: ReturnType<typeof parsePostgresSource>;

  beforeAll(async () => {
    dir = tempDir('rap-pg-');
    src = parsePostgresSource(`${URL_}?table=${table}`);
    await withPostgres(src, async (c) => {
      await c.query(`CREATE TABLE ${table} (age integer, city text, score double precision)`);
      for (const r of rows) await c.query(`INSERT INTO ${table} VALUES ($1, $2, $3)`, r);
    });
  });
  afterAll(async () => {
    await withPostgres(src, (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
    dir.remove();
  });

  it('the same exact tables from the CSV, its Parquet copy and the PostgreSQL table', async () => {
    const csv = dir.file('t.csv', csvText);
    const parquet = join(dir.path, 't.parquet');
    await withDuckDb((c) =>
      c.run(`COPY (SELECT * FROM read_csv('${csv}', header = true)) TO '${parquet}' (FORMAT parquet)`),
    );
    const loaded = await loadCsv(csv);
    const schema = loaded.dataset.schema;
    const sets = [[0], [1], [2], [0, 1], [1, 2], [0, 1, 2]];
    const streamed = sets.map((fs) => Array.from(contingencyTable(loaded.dataset, fs)));
    const fromCsv = await countFileTables(csv, schema, sets);
    const fromParquet = await countFileTables(parquet, schema, sets);
    const fromPg = await withPostgres(src, (c) => countOnPostgres(c, src, schema, sets));
    expect(fromPg.n).toBe(rows.length);
    for (const counted of [fromCsv, fromParquet, fromPg]) {
      expect(counted.tables.map((t) => Array.from(t))).toEqual(streamed);
    }
    // One GROUPING SETS query, naming the table and columns only.
    expect(fromPg.query).toContain(`FROM "${table}"`);
    expect(fromPg.query).toContain('GROUPING SETS');
    expect(fromPg.query).not.toContain('Oslo');
  });

  it("per-column histograms counted in the database equal the rows' own, NULL as the empty text", async () => {
    const h = await withPostgres(src, (c) => columnHistograms(c, src, ['age', 'city', 'score']));
    expect(h.n).toBe(rows.length);
    ['age', 'city', 'score'].forEach((name, j) => {
      const expected = new Map<string, number>();
      for (const r of rows) {
        const text = r[j] === null ? '' : String(r[j]);
        expected.set(text, (expected.get(text) ?? 0) + 1);
      }
      expect(h.columns.get(name)).toEqual(expected);
    });
  });

  it('a cancel stops the running query in the server, and the call ends with the abort', async () => {
    const cancel = new AbortController();
    const started = Date.now();
    const slow = withPostgres(src, (c) => c.query("SELECT pg_sleep(60), 'rap-cancel-probe'"), cancel.signal);
    setTimeout(() => cancel.abort(), 300);
    await expect(slow).rejects.toMatchObject({ name: 'AbortError' });
    // Well before the minute the query would take.
    expect(Date.now() - started).toBeLessThan(30_000);
    const running = await withPostgres(src, (c) =>
      c.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%rap-cancel-probe%' AND state = 'active' AND pid <> pg_backend_pid()",
      ),
    );
    expect(running.rows[0].n).toBe(0);
  });

  it('{ snapshot: true }: one read-only snapshot for the whole job (a row added meanwhile unseen, a write refused)', async () => {
    const other = `${table}_snap`;
    const snap = parsePostgresSource(`${URL_}?table=${other}`);
    await withPostgres(src, (c) => c.query(`CREATE TABLE ${other} AS SELECT * FROM ${table}`));
    try {
      const addRow = () => withPostgres(src, (c) => c.query(`INSERT INTO ${other} VALUES (1, 'x', 0)`));
      const seen = (opts: { snapshot?: boolean }) =>
        withPostgres(
          snap,
          async (c) => {
            const before = await tableRows(c, snap);
            await addRow();
            return [before, await tableRows(c, snap)];
          },
          undefined,
          opts,
        );
      expect(await seen({ snapshot: true })).toEqual([rows.length, rows.length]);
      // Without it, each query sees the rows committed before it.
      expect(await seen({})).toEqual([rows.length + 1, rows.length + 2]);
      await expect(
        withPostgres(snap, (c) => c.query(`DELETE FROM ${other}`), undefined, { snapshot: true }),
      ).rejects.toThrow(/read-only transaction/);
      expect(await withPostgres(snap, (c) => tableRows(c, snap))).toBe(rows.length + 2);
    } finally {
      await withPostgres(src, (c) => c.query(`DROP TABLE IF EXISTS ${other}`));
    }
  });

  it('the catalogue gives the columns in order; a missing table is refused naming it', async () => {
    await withPostgres(src, async (c) => {
      expect(await tableColumns(c, src)).toEqual(['age', 'city', 'score']);
      expect(await tableRows(c, src)).toBe(rows.length);
      const missing = parsePostgresSource(`${URL_}?table=no_such_table`);
      await expect(tableColumns(c, missing)).rejects.toThrow('no table or view "no_such_table"');
    });
  });
});
