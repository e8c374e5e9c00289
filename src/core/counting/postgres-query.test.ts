/**
 * A read-only query as a private source (`--sql`): the one-statement rule, the ledger identity
 * (the database's, whatever the query), and, against a real server (RAP_TEST_POSTGRES, started by
 * .ci/run), the same exact tables from `(query) AS source` as from the table, a write refused by
 * the READ ONLY transaction, and the result's columns from its description.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schema } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { countOnPostgres, parsePostgresSource, tableColumns, tableRows, withPostgres } from './postgres.ts';
import {
  checkReadQuery,
  parsePostgresQuerySource,
  queryDatasetName,
  queryFingerprint,
  repeatingSteps,
} from './postgres-query.ts';

describe('a query source: one SELECT, refused otherwise before anything connects', () => {
  it('keeps one SELECT or WITH statement, a trailing ";" dropped, a ";" inside quotes or comments allowed', () => {
    expect(checkReadQuery('  SELECT a FROM t;  ')).toBe('SELECT a FROM t');
    expect(checkReadQuery('with x as (select 1) select * from x')).toBe(
      'with x as (select 1) select * from x',
    );
    expect(checkReadQuery("SELECT a FROM t WHERE b = 'x;y'")).toBe("SELECT a FROM t WHERE b = 'x;y'");
    expect(checkReadQuery('SELECT "a;b" FROM t -- no; second\n')).toBe('SELECT "a;b" FROM t -- no; second');
    expect(checkReadQuery('/* a; */ (SELECT $q$;$q$ AS a) ; -- done')).toBe('/* a; */ (SELECT $q$;$q$ AS a)');
  });

  it('refuses a second statement, and any verb but SELECT / WITH, saying what to give', () => {
    const refused = (sql: string) => {
      try {
        checkReadQuery(sql);
      } catch (err) {
        expect(err).toBeInstanceOf(InputError);
        return (err as Error).message;
      }
      throw new Error(`not refused: ${sql}`);
    };
    expect(refused('SELECT 1; DROP TABLE t')).toContain('more than one statement');
    expect(refused("SELECT 'a'; SELECT 2;")).toContain('Give one SELECT (or WITH … SELECT) only');
    expect(refused('DELETE FROM t')).toContain('must be one SELECT (or WITH … SELECT), not DELETE');
    expect(refused('-- SELECT\nUPDATE t SET a = 1')).toContain('not UPDATE');
    expect(refused('')).toContain('must be one SELECT');
  });

  it('the URL names the database only: a table or a password in it is refused', () => {
    expect(() => parsePostgresQuerySource('postgres://h/db?table=t', 'SELECT 1')).toThrow(
      'names the database only',
    );
    expect(() => parsePostgresQuerySource('postgres://u:pw@h/db', 'SELECT 1')).toThrow('PGPASSWORD');
    const src = parsePostgresQuerySource('postgres://ann@h:5433/db', "SELECT a FROM t WHERE n = 'Ann Lee'");
    // Named without the query (it may quote private values) and without the user.
    expect(src.location).toBe('postgres://h:5433/db (SQL query)');
    expect(src.display).toBe('postgres://ann@h:5433/db (SQL query)');
    expect(queryDatasetName(src)).toBe('db (SQL queries)');
  });
});

describe("a query source's ledger identity is its database's", () => {
  const key = randomBytes(32);
  const fp = (url: string, sql: string, k = key) => queryFingerprint(k, parsePostgresQuerySource(url, sql));

  it('the same for any query, column choice or rewording over one database', () => {
    const base = fp('postgres://h/db', 'SELECT a, b FROM t');
    expect(fp('postgres://h/db', 'select b from t where a > 3')).toBe(base);
    expect(fp('postgres://other_user@h/db', 'SELECT * FROM u JOIN t USING (id)')).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it('another database, host or port, or another ledger key, is another identity', () => {
    const base = fp('postgres://h/db', 'SELECT 1');
    expect(fp('postgres://h/db2', 'SELECT 1')).not.toBe(base);
    expect(fp('postgres://h2/db', 'SELECT 1')).not.toBe(base);
    expect(fp('postgres://h:5433/db', 'SELECT 1')).not.toBe(base);
    expect(fp('postgres://h/db', 'SELECT 1', randomBytes(32))).not.toBe(base);
  });
});

const URL_ = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!URL_)('a query source counted in PostgreSQL (RAP_TEST_POSTGRES)', () => {
  const table = `rap_query_${process.pid}_${Date.now()}`;
  const rows: [number | null, string, string][] = [];
  for (let i = 0; i < 150; i++) {
    rows.push([i % 13 === 0 ? null : 20 + (i % 5), ['Oslo', 'Lima', 'Pune'][i % 3], i % 2 ? 'y' : 'n']);
  }
  let tableSrc: ReturnType<typeof parsePostgresSource>;

  beforeAll(async () => {
    tableSrc = parsePostgresSource(`${URL_}?table=${table}`);
    await withPostgres(tableSrc, async (c) => {
      await c.query(`CREATE TABLE ${table} (age integer, city text, flag text)`);
      for (const r of rows) await c.query(`INSERT INTO ${table} VALUES ($1, $2, $3)`, r);
    });
  });
  afterAll(async () => {
    await withPostgres(tableSrc, (c) => c.query(`DROP TABLE IF EXISTS ${table}`));
  });

  it('SELECT * FROM the table counts the same exact tables as the table, in one GROUPING SETS query', async () => {
    const query = parsePostgresQuerySource(URL_!, `SELECT * FROM ${table} -- every column`);
    const schema: Schema = {
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'age', kind: 'categorical', categories: ['20', '21', '22', '23', '24'], missing: true },
        { name: 'city', kind: 'categorical', categories: ['Lima', 'Oslo', 'Pune'], missing: false },
        { name: 'flag', kind: 'categorical', categories: ['n', 'y'], missing: false },
      ],
    };
    const sets = [[0], [1], [2], [0, 1], [1, 2], [0, 1, 2]];
    const fromTable = await withPostgres(tableSrc, (c) => countOnPostgres(c, tableSrc, schema, sets));
    const fromQuery = await withPostgres(query, (c) => countOnPostgres(c, query, schema, sets));
    expect(fromQuery.n).toBe(rows.length);
    expect(fromQuery.tables.map((t) => Array.from(t))).toEqual(fromTable.tables.map((t) => Array.from(t)));
    expect(fromQuery.query).toContain('GROUPING SETS');
    expect(fromQuery.query).toContain(`-- every column\n) AS source`);
  });

  it("the result's columns from its description and its row count; a duplicate name refused", async () => {
    const query = parsePostgresQuerySource(URL_!, `SELECT city, age AS years FROM ${table} WHERE flag = 'y'`);
    await withPostgres(query, async (c) => {
      expect(await tableColumns(c, query)).toEqual(['city', 'years']);
      expect(await tableRows(c, query)).toBe(rows.filter((r) => r[2] === 'y').length);
    });
    const twice = parsePostgresQuerySource(
      URL_!,
      `SELECT a.city, b.city FROM ${table} a, ${table} b LIMIT 1`,
    );
    await expect(withPostgres(twice, (c) => tableColumns(c, twice))).rejects.toThrow(
      'two columns named "city"',
    );
  });

  it('a write hidden in a function is refused by the READ ONLY transaction (a WITH by the server); the table is untouched', async () => {
    const fn = `${table}_wipe`;
    await withPostgres(tableSrc, (c) =>
      c.query(`CREATE FUNCTION ${fn}() RETURNS int LANGUAGE sql AS $$ DELETE FROM ${table}; SELECT 1 $$`),
    );
    const inFunction = parsePostgresQuerySource(URL_!, `SELECT ${fn}() AS x`);
    await expect(withPostgres(inFunction, (c) => tableRows(c, inFunction))).rejects.toThrow(
      'cannot execute DELETE in a read-only transaction',
    );
    const inWith = parsePostgresQuerySource(
      URL_!,
      `WITH d AS (DELETE FROM ${table} RETURNING *) SELECT * FROM d`,
    );
    await expect(withPostgres(inWith, (c) => tableRows(c, inWith))).rejects.toThrow('the database refused');
    await withPostgres(tableSrc, (c) => c.query(`DROP FUNCTION ${fn}()`));
    expect(await withPostgres(tableSrc, (c) => tableRows(c, tableSrc))).toBe(rows.length);
  });

  it("the plan's steps that can repeat a record: a join, a UNION ALL, unnest; none for a filter or an anti join", async () => {
    const steps = (sql: string) => {
      const q = parsePostgresQuerySource(URL_!, sql);
      return withPostgres(q, (c) => repeatingSteps(c, q));
    };
    expect(await steps(`SELECT city, age FROM ${table} WHERE flag = 'y'`)).toEqual([]);
    expect(
      await steps(
        `SELECT * FROM ${table} a WHERE NOT EXISTS (SELECT 1 FROM ${table} b WHERE b.age = a.age + 100)`,
      ),
    ).toEqual([]);
    expect(await steps(`SELECT a.city FROM ${table} a JOIN ${table} b ON a.age = b.age`)).toEqual(['a join']);
    expect(await steps(`SELECT city FROM ${table} UNION ALL SELECT city FROM ${table}`)).toEqual([
      'a UNION ALL (an append)',
    ]);
    expect(await steps(`SELECT city, unnest(ARRAY[1, 2]) AS k FROM ${table}`)).toEqual([
      'a set-returning function',
    ]);
  });
});
