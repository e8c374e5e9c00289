/**
 * A read-only query as the private source of `rap-studio synth --data postgres://…/db --sql "SELECT …"`:
 * refusals before anything is reserved (a second statement, a verb other than SELECT / WITH, --sql
 * with a file), and, against a real server (RAP_TEST_POSTGRES, started by .ci/run), the release:
 * the same seeded CSV as from the table, the query's text in no file, and one budget for every
 * query over the database (counting/postgres-query.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, withLedger } from '../../support/cli.ts';
import { runCliInProcess } from '../../support/cli-in-process.ts';
import { synth } from '../../support/people.ts';
import { expectSetCapThenSpent, N, rows, useTestTable } from '../../support/postgres-release.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-pg-query-'));
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({ thresholds: [{ features: ['city', 'smoker'], r: 2, weight: 1 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI's main() in this process, cwd = the test folder, stdout and stderr captured. */
const runInProcess = (args: string[]) => runCliInProcess(dir, args);

describe('synth --sql: refused before anything connects or is reserved', { timeout: CLI_TIMEOUT }, () => {
  const refused = async (data: string, sql: string, name: string) => {
    const ledger = path.join(dir, `${name}.sqlite`);
    const r = await runInProcess(synth(data, ledger, `${name}.csv`, ['--sql', sql]));
    expect(r.code).toBe(2);
    expect(existsSync(ledger)).toBe(false);
    return r.stderr;
  };

  it('a second statement after a ";": exit 2, saying to give one SELECT', async () => {
    const stderr = await refused('postgres://127.0.0.1:1/db', 'SELECT * FROM t; DROP TABLE t', 'two');
    expect(stderr).toContain('--sql: the text holds more than one statement');
  });

  it('a verb other than SELECT / WITH: exit 2, naming it', async () => {
    const stderr = await refused('postgres://127.0.0.1:1/db', 'DELETE FROM t', 'delete');
    expect(stderr).toContain('--sql: the query must be one SELECT (or WITH … SELECT), not DELETE');
  });

  it('--sql with a file, or with a table in the URL: exit 2', async () => {
    expect(await refused('p.csv', 'SELECT 1', 'file')).toContain('--sql reads from a PostgreSQL database');
    expect(await refused('postgres://127.0.0.1:1/db?table=t', 'SELECT 1', 'both')).toContain(
      'with --sql the URL names the database only',
    );
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)('synth --sql from PostgreSQL (RAP_TEST_POSTGRES)', { timeout: CLI_TIMEOUT }, () => {
  const table = `rap_query_release_${process.pid}_${Date.now()}`;
  useTestTable(() => PG!, table, { sequence: true });

  it('SELECT * FROM the table: the same seeded CSV and domain as from the table; the query in no file', async () => {
    const fromTable = await runInProcess(synth(`${PG}?table=${table}`, path.join(dir, 't.sqlite'), 't.csv'));
    expect(fromTable.stderr).not.toContain('rap-studio:');
    expect(fromTable.code).toBe(0);
    // A private literal in the query (it must reach no file): a condition every row meets.
    const sql = `SELECT * FROM ${table} WHERE city <> 'Zanzibar-private-literal'`;
    const fromQuery = await runInProcess(synth(PG!, path.join(dir, 'q.sqlite'), 'q.csv', ['--sql', sql]));
    expect(fromQuery.stderr).not.toContain('rap-studio:');
    expect(fromQuery.code).toBe(0);
    expect(readFileSync(path.join(dir, 'q.csv'), 'utf8')).toBe(readFileSync(path.join(dir, 't.csv'), 'utf8'));
    const manifest = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
    const q = manifest('q.manifest.json');
    expect(q.schema).toEqual(manifest('t.manifest.json').schema);
    expect(q.dataset).toMatchObject({ rows: N, source: { kind: 'postgresql-query' } });
    expect(manifest('q.REPORT.private.json').counting).toEqual({ by: 'postgresql' });
    withLedger(path.join(dir, 'q.sqlite'), (l) => {
      const [spent] = l.releases();
      expect(spent.status).toBe('committed');
      expect(l.dataset(spent.datasetFingerprint)?.name).toBe(
        `${new URL(PG!).pathname.slice(1)} (SQL queries)`,
      );
    });
    const user = new URL(PG!).username;
    for (const file of readdirSync(dir).filter((f) => f.startsWith('q.'))) {
      const bytes = readFileSync(path.join(dir, file)).toString('latin1');
      expect(bytes, file).not.toContain('Zanzibar-private-literal');
      expect(bytes, file).not.toContain(table);
      if (user) expect(bytes, file).not.toContain(`${user}@`);
    }
  });

  it('another query over the database (other columns, other rows) spends the same budget: the cap refuses', async () => {
    const ledger = path.join(dir, 'budget.sqlite');
    const first = await runInProcess(synth(PG!, ledger, 'b1.csv', ['--sql', `SELECT * FROM ${table}`], '8'));
    expect(first.stderr).not.toContain('rap-studio:');
    expect(first.code).toBe(0);
    // Reworded, fewer columns, a WHERE: still the database's budget (ε = 10 cannot pay two of ε = 8).
    const second = await runInProcess(
      synth(PG!, ledger, 'b2.csv', ['--sql', `select smoker, city from ${table} where age > 30`], '8'),
    );
    expect(second.code).toBe(3);
    withLedger(ledger, (l) => {
      expect(l.datasets()).toHaveLength(1);
      expect(l.releases().map((r) => r.status)).toEqual(['committed']);
    });
  });

  it('a write hidden in the query is refused by the read-only transaction: exit 2, nothing reserved', async () => {
    const ledger = path.join(dir, 'write.sqlite');
    const r = await runInProcess(
      synth(PG!, ledger, 'write.csv', ['--sql', `SELECT *, nextval('${table}_seq') FROM ${table}`]),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot execute nextval() in a read-only transaction');
    expect(existsSync(path.join(dir, 'write.csv'))).toBe(false);
  });

  it('ledger set-cap --dataset postgres://…/db caps the database; synth --sql then spends that cap', async () => {
    const ledger = path.join(dir, 'set-cap.sqlite');
    await expectSetCapThenSpent(runInProcess, {
      dataset: PG!,
      ledger,
      listed: '(SQL queries)',
      synthArgs: synth(PG!, ledger, 'set-cap.csv', ['--sql', `SELECT city, smoker FROM ${table}`]),
    });
  });

  it("a query over a table released before looks like the table's dataset: refused until named (--name)", async () => {
    const ledger = path.join(dir, 'similar.sqlite');
    const fromTable = await runInProcess(synth(`${PG}?table=${table}`, ledger, 'similar-t.csv'));
    expect(fromTable.code).toBe(0);
    const query = ['--sql', `SELECT * FROM ${table}`];
    const unnamed = await runInProcess(synth(PG!, ledger, 'similar-q.csv', query));
    expect(unnamed.code).not.toBe(0);
    expect(unnamed.stderr).toContain('--name');
    const tableName = `${new URL(PG!).pathname.slice(1)}/${table}`;
    const named = await runInProcess(synth(PG!, ledger, 'similar-q.csv', [...query, '--name', tableName]));
    expect(named.stderr).not.toContain('rap-studio:');
    expect(named.code).toBe(0);
    withLedger(ledger, (l) => {
      expect(l.datasets()).toHaveLength(1);
      expect(new Set(l.releases().map((r) => r.datasetFingerprint)).size).toBe(1);
    });
  });

  it("workload default --data postgres://…/db --sql: every 2-way marginal over the query's columns (no row read)", async () => {
    const r = await runInProcess([
      'workload',
      'default',
      ...['--data', PG!, '--sql', `SELECT city, smoker, age AS years FROM ${table}`, '--out', 'w-sql.json'],
    ]);
    expect(r.stderr).toContain('rap-studio: wrote w-sql.json');
    expect(r.code).toBe(0);
    const w = JSON.parse(readFileSync(path.join(dir, 'w-sql.json'), 'utf8'));
    const named = new Set(w.thresholds.flatMap((t: { features: string[] }) => t.features));
    expect([...named].sort()).toEqual(['city', 'smoker', 'years']);
  });

  it('--dry-run --sql: the plan from the result description and the row count, nothing reserved', async () => {
    const ledger = path.join(dir, 'dry.sqlite');
    const r = await runInProcess(
      synth(PG!, ledger, 'dry.csv', [
        '--sql',
        `SELECT city, smoker FROM ${table} WHERE age < 40`,
        '--dry-run',
      ]),
    );
    expect(r.stderr).not.toContain('rap-studio:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`n = ${rows().filter((x) => (x[0] as number) < 40).length}`);
    expect(existsSync(ledger)).toBe(false);
  });

  it('a query whose plan can repeat a record (a join) is released with a warning that a result row is the unit', async () => {
    const join = `SELECT a.city, b.smoker FROM ${table} a JOIN ${table} b ON a.age = b.age AND a.city = b.city`;
    const r = await runInProcess(
      synth(PG!, path.join(dir, 'join.sqlite'), 'join.csv', ['--sql', join, '--dry-run']),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the query has a join: one row of its result is the unit of privacy');
    const plain = await runInProcess(
      synth(PG!, path.join(dir, 'plain.sqlite'), 'plain.csv', [
        '--sql',
        `SELECT city, smoker FROM ${table}`,
        '--dry-run',
      ]),
    );
    expect(plain.stderr).not.toContain('unit of privacy');
  });
});
