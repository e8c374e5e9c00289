/**
 * A PostgreSQL table as the private source of `rap-studio synth --data postgres://…?table=…`:
 * refusals before anything is reserved (a password in the URL, no table named, a server it cannot
 * reach, a missing table or declared column, a value a declared column cannot hold), each naming
 * the source without credentials; and, against a real server (RAP_TEST_POSTGRES, started by
 * .ci/run from Debian's package), the release itself.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, withLedger } from '../../support/cli.ts';
import { runCliInProcess } from '../../support/cli-in-process.ts';
import { PEOPLE_WORKLOAD, peopleCsv, synth } from '../../support/people.ts';
import { expectSetCapThenSpent, N, useTestTable } from '../../support/postgres-release.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-pg-release-'));
  writeFileSync(path.join(dir, 'p.csv'), peopleCsv(N));
  writeFileSync(path.join(dir, 'w.json'), JSON.stringify(PEOPLE_WORKLOAD));
  writeFileSync(
    path.join(dir, 'w-declared.json'),
    JSON.stringify({ thresholds: [{ features: ['city', 'smoker'], r: 2, weight: 1 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI's main() in this process, cwd = the test folder, stdout and stderr captured. */
const runInProcess = (args: string[]) => runCliInProcess(dir, args);

describe('synth --data postgres://…: refused before anything is reserved', { timeout: CLI_TIMEOUT }, () => {
  it('a password in the URL: exit 2, the password in no message, no ledger created', async () => {
    const ledger = path.join(dir, 'pw.sqlite');
    const r = await runInProcess(
      synth('postgres://curator:s3cret@127.0.0.1/hospital?table=visits', ledger, 'pw.csv'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PGPASSWORD');
    expect(r.stderr + r.stdout).not.toContain('s3cret');
    expect(existsSync(ledger)).toBe(false);
  });

  it('no table named: exit 2, saying what to write', async () => {
    const ledger = path.join(dir, 'notable.sqlite');
    const r = await runInProcess(synth('postgres://127.0.0.1/hospital', ledger, 'notable.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('postgres://host/database?table=[schema.]name');
    expect(existsSync(ledger)).toBe(false);
  });

  it('a server it cannot reach: exit 2, naming the source and what to check', async () => {
    const ledger = path.join(dir, 'unreachable.sqlite');
    // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
    const r = await runInProcess(synth('postgres://rap@127.0.0.1:1/rap?table=t', ledger, 'unreachable.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('postgres://rap@127.0.0.1:1/rap?table=t: cannot connect');
    expect(r.stderr).toContain('PGPASSWORD');
    expect(existsSync(ledger)).toBe(false);
  });
});

const PG = process.env.RAP_TEST_POSTGRES;

describe.skipIf(!PG)('synth from a PostgreSQL table (RAP_TEST_POSTGRES)', { timeout: CLI_TIMEOUT }, () => {
  const table = `rap_release_${process.pid}_${Date.now()}`;
  const url = `${PG}?table=${table}`;
  useTestTable(() => PG!, table);

  it('a missing table: exit 2, naming it and the database; no ledger created', async () => {
    const ledger = path.join(dir, 'missing.sqlite');
    const r = await runInProcess(synth(`${PG}?table=no_such_table`, ledger, 'missing.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no table or view "no_such_table"');
    expect(existsSync(ledger)).toBe(false);
  });

  it('a declared column the table lacks, and a value a declared column cannot hold: exit 2, nothing reserved', async () => {
    const schema = (columns: unknown[]) => JSON.stringify({ version: 1, origin: 'declared', columns });
    writeFileSync(
      path.join(dir, 'lacks.json'),
      schema([
        { name: 'city', kind: 'categorical', categories: ['Oslo', 'Lima', 'Pune'] },
        { name: 'smoker', kind: 'categorical', categories: ['daily', 'never'] },
        { name: 'zip', kind: 'categorical', categories: ['1', '2'] },
      ]),
    );
    writeFileSync(
      path.join(dir, 'misfit.json'),
      schema([
        { name: 'city', kind: 'categorical', categories: ['Oslo', 'Lima'] },
        { name: 'smoker', kind: 'categorical', categories: ['daily', 'never'] },
      ]),
    );
    const ledger = path.join(dir, 'declared.sqlite');
    const declared = (file: string) =>
      synth(url, ledger, 'declared.csv', ['--schema', file]).map((a) =>
        a === 'w.json' ? 'w-declared.json' : a,
      );
    const lacks = await runInProcess(declared('lacks.json'));
    expect(lacks.code).toBe(2);
    expect(lacks.stderr).toContain('the declared column "zip" is not in the table');
    const misfit = await runInProcess(declared('misfit.json'));
    expect(misfit.code).toBe(2);
    expect(misfit.stderr).toContain('column "city": the value "Pune" is not among its declared categories');
    expect(misfit.stderr).toContain('80 of the 240 rows');
    // The ledger is opened (the declared schema needs no catalogue to parse the workload) but holds nothing.
    withLedger(ledger, (l) => {
      expect(l.releases()).toEqual([]);
      expect(l.datasets()).toEqual([]);
    });
  });

  it('releases the same seeded CSV and domain as the CSV holding the same rows; credentials in no file', async () => {
    const csvLedger = path.join(dir, 'csv.sqlite');
    const fromCsv = await runInProcess(synth('p.csv', csvLedger, 'csv.out.csv', ['--header', 'yes']));
    expect(fromCsv.stderr).not.toContain('rap-studio:');
    expect(fromCsv.code).toBe(0);
    const pgLedger = path.join(dir, 'pg.sqlite');
    // A password in the environment, as libpq takes it (the test cluster trusts loopback: unused).
    const secret = `pw-${process.pid}-never-written`;
    process.env.PGPASSWORD = secret;
    let fromPg: Awaited<ReturnType<typeof runInProcess>>;
    try {
      fromPg = await runInProcess(synth(url, pgLedger, 'pg.out.csv'));
    } finally {
      delete process.env.PGPASSWORD;
    }
    expect(fromPg.stderr).not.toContain('rap-studio:');
    expect(fromPg.code).toBe(0);
    expect(readFileSync(path.join(dir, 'pg.out.csv'), 'utf8')).toBe(
      readFileSync(path.join(dir, 'csv.out.csv'), 'utf8'),
    );
    const manifest = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
    const pgManifest = manifest('pg.out.manifest.json');
    expect(pgManifest.schema).toEqual(manifest('csv.out.manifest.json').schema);
    expect(pgManifest.dataset).toMatchObject({ rows: N, source: { kind: 'postgresql-table' } });
    // The curator's private report says where the counts came from.
    expect(manifest('pg.out.REPORT.private.json').counting).toEqual({ by: 'postgresql' });
    // The budget applies as to a file: the ledger's dataset for the table counts its rows and spent ε.
    withLedger(pgLedger, (l) => {
      const [spent] = l.releases();
      expect(spent.status).toBe('committed');
      const dataset = l.dataset(spent.datasetFingerprint);
      expect(dataset?.rows).toBe(N);
      expect(dataset?.name).toBe(`rap/${table}`);
    });
    // No credential and no user in any file the release wrote (ledger, key, manifest, Data Package, CSV, report).
    const user = new URL(PG!).username;
    const written = readdirSync(dir).filter((f) => f.startsWith('pg.'));
    expect(written).toEqual(
      expect.arrayContaining([
        'pg.sqlite',
        'pg.sqlite.key',
        'pg.out.csv',
        'pg.out.manifest.json',
        'pg.out.datapackage.json',
        'pg.out.REPORT.private.json',
        // The HTML reports, drawn from the counted histograms and tables (no private row read).
        'pg.out.report.html',
        'pg.out.REPORT.private.html',
      ]),
    );
    for (const file of written) {
      const bytes = readFileSync(path.join(dir, file)).toString('latin1');
      expect(bytes, file).not.toContain(secret);
      if (user) expect(bytes, file).not.toContain(`${user}@`);
    }
  });

  it("a second release from the table spends the same dataset's budget, and the cap refuses what it cannot pay", async () => {
    const ledger = path.join(dir, 'twice.sqlite');
    const capped = (out: string, epsilon: string) =>
      synth(url, ledger, out).map((a, i, all) => (all[i - 1] === '--epsilon' ? epsilon : a));
    const first = await runInProcess(capped('twice-1.csv', '8'));
    expect(first.code).toBe(0);
    // The cap (ε = 10) cannot pay two of ε = 8 (zCDP: ρ adds, 2·ρ(8) > ρ(10)): the second is
    // refused (exit 3), nothing reserved, though it reads fewer columns (the identity is the table's).
    const second = await runInProcess([
      ...capped('twice-2.csv', '8').map((a) => (a === 'w.json' ? 'w-declared.json' : a)),
      ...['--exclude', 'age,income'],
    ]);
    expect(second.code).toBe(3);
    withLedger(ledger, (l) => {
      expect(l.datasets()).toHaveLength(1);
      expect(l.releases().map((r) => r.status)).toEqual(['committed']);
    });
  });

  it('a declared schema without discovery: the same seeded CSV as from the CSV, the declared columns only', async () => {
    writeFileSync(
      path.join(dir, 'declared.json'),
      JSON.stringify({
        version: 1,
        origin: 'declared',
        columns: [
          { name: 'city', kind: 'categorical', categories: ['Lima', 'Oslo', 'Pune'] },
          { name: 'smoker', kind: 'categorical', categories: ['daily', 'never'] },
        ],
      }),
    );
    const declared = (data: string, name: string, extra: string[] = []) =>
      synth(data, path.join(dir, `${name}.sqlite`), `${name}.csv`, [
        '--schema',
        'declared.json',
        ...extra,
      ]).map((a) => (a === 'w.json' ? 'w-declared.json' : a));
    const fromCsv = await runInProcess(declared('p.csv', 'declared-csv', ['--header', 'yes']));
    expect(fromCsv.stderr).not.toContain('rap-studio:');
    expect(fromCsv.code).toBe(0);
    const fromPg = await runInProcess(declared(url, 'declared-pg'));
    expect(fromPg.stderr).not.toContain('rap-studio:');
    expect(fromPg.code).toBe(0);
    const pgCsv = readFileSync(path.join(dir, 'declared-pg.csv'), 'utf8');
    expect(pgCsv.split(/\r?\n/)[0]).toBe('city,smoker');
    expect(pgCsv).toBe(readFileSync(path.join(dir, 'declared-csv.csv'), 'utf8'));
  });

  it('ledger set-cap --dataset postgres://… caps the table; synth then spends that cap', async () => {
    const ledger = path.join(dir, 'set-cap.sqlite');
    await expectSetCapThenSpent(runInProcess, {
      dataset: url,
      ledger,
      listed: `rap/${table}`,
      synthArgs: synth(url, ledger, 'set-cap.csv'),
    });
  });

  it("workload default --data postgres://…: every 2-way marginal over the table's columns (catalogue only)", async () => {
    const r = await runInProcess([
      'workload',
      'default',
      '--data',
      url,
      '--exclude',
      'income',
      '--out',
      'w-pg.json',
    ]);
    expect(r.stderr).not.toContain('rap-studio: --');
    expect(r.code).toBe(0);
    const w = JSON.parse(readFileSync(path.join(dir, 'w-pg.json'), 'utf8'));
    const named = new Set(w.thresholds.flatMap((t: { features: string[] }) => t.features));
    expect([...named].sort()).toEqual(['age', 'city', 'smoker']);
  });

  it('--dry-run: the plan from the catalogue and the row count, nothing reserved', async () => {
    const ledger = path.join(dir, 'dry.sqlite');
    const r = await runInProcess(synth(url, ledger, 'dry.csv', ['--dry-run']));
    expect(r.stderr).not.toContain('rap-studio:');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`n = ${N}`);
    expect(r.stdout).toContain('over 4 undeclared columns');
    expect(existsSync(ledger)).toBe(false);
  });
});
