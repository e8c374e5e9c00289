/**
 * A Parquet file, an Excel workbook (.xlsx), a Stata file (.dta) and a SAS data set (.sas7bdat)
 * as the private source, through the real CLI (`rap-studio synth`, the release pipeline): each
 * releases the same seeded CSV and domain as the CSV it copies, the ledger counts its rows, and a
 * corrupt file of each is refused with a message naming it before anything is reserved. The
 * Parquet and .xlsx copies are made by the tests (DuckDB writes the Parquet file;
 * data/formats/testing.ts the workbook); the Stata and SAS copies were written once by pandas and
 * R haven (fixtures/make-fixtures.*) and are checked to hold the same table as the test's CSV.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { withDuckDb } from '../../../src/core/sql/duckdb.ts';
import { CLI_TIMEOUT, runCli, withLedger } from '../../support/cli.ts';
import { PEOPLE_WORKLOAD, peopleCsv, synth as quickSynth, withoutBudget } from '../../support/people.ts';

let dir: string;
const N = 300;
const FIXTURES = path.join(import.meta.dirname, 'fixtures');

/** Copies a fixture written by another program, after checking it was made from this CSV. */
function fixtureCopy(name: string) {
  return async (from: string, to: string) => {
    expect(readFileSync(from, 'utf8')).toBe(readFileSync(path.join(FIXTURES, 'people.csv'), 'utf8'));
    copyFileSync(path.join(FIXTURES, name), to);
  };
}

/** Each format: how the tests copy p.csv into it, a corrupt file's bytes, and its refusal. */
const FORMATS = [
  {
    name: 'a Parquet file',
    ext: 'parquet',
    // A typed copy, as an analytics team would hold it (integers, text, NULLs).
    copy: (from: string, to: string) =>
      withDuckDb(async (c) => {
        await c.run(`COPY (SELECT * FROM read_csv('${from}', header = true)) TO '${to}' (FORMAT parquet)`);
      }),
    broken: Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64, 7)]),
    refusal: 'not a readable Parquet file',
  },
  {
    name: 'an Excel workbook',
    ext: 'xlsx',
    // The same table as a workbook: numbers as numbers, empty cells as no cell.
    copy: async (from: string, to: string) => {
      const rows = readFileSync(from, 'utf8')
        .trim()
        .split('\n')
        .map((line, i) =>
          line.split(',').map((v) => (v === '' ? null : i > 0 && /^\d+$/.test(v) ? Number(v) : v)),
        );
      writeFileSync(to, xlsxBytes(rows));
    },
    broken: Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 7)]),
    refusal: 'not a readable Excel workbook (.xlsx)',
  },
  {
    name: 'a Stata file (release 118, written by pandas)',
    ext: 'dta',
    copy: fixtureCopy('people-118.dta'),
    broken: Buffer.concat([Buffer.from('<stata_dta><header><release>118</release>'), Buffer.alloc(64, 7)]),
    refusal: 'not a readable Stata data file (.dta)',
  },
  {
    name: 'a SAS data set (written by R haven)',
    ext: 'sas7bdat',
    copy: fixtureCopy('people.sas7bdat'),
    // A truncated copy: the header promises pages that are not there.
    broken: readFileSync(path.join(FIXTURES, 'people.sas7bdat')).subarray(0, 3000),
    refusal: 'not a readable SAS data set (.sas7bdat)',
  },
] as const;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-copy-release-'));
  writeFileSync(path.join(dir, 'p.csv'), peopleCsv(N));
  for (const f of FORMATS) {
    await f.copy(path.join(dir, 'p.csv'), path.join(dir, `p.${f.ext}`));
    writeFileSync(path.join(dir, `broken.${f.ext}`), f.broken);
  }
  writeFileSync(path.join(dir, 'w.json'), JSON.stringify(PEOPLE_WORKLOAD));
}, CLI_TIMEOUT);
afterAll(() => (process.env.KEEP ? console.log(dir) : rmSync(dir, { recursive: true, force: true })));

/** The quick seeded run, spending the ledger's own cap (set before each release). */
const synth = (data: string, ledger: string, out: string) => withoutBudget(quickSynth(data, ledger, out));

/** A seeded release of `data` on a fresh capped ledger: its CSV and manifest schema. */
async function release(data: string): Promise<{ csv: string; schema: unknown }> {
  const ledger = path.join(dir, `${data}.sqlite`);
  const cap = await runCli(
    ['ledger', 'set-cap', '--dataset', data, '--epsilon', '10', '--delta', '1e-5', '--ledger', ledger],
    dir,
  );
  expect(cap.stderr).toBe('');
  expect(cap.code).toBe(0);
  const out = `${data}.out.csv`;
  // A CSV's or a sheet's header row is the curator's to confirm; the other formats name their
  // columns in their metadata.
  const header = /\.(csv|xlsx)$/.test(data) ? ['--header', 'yes'] : [];
  const r = await runCli([...synth(data, ledger, out), ...header], dir);
  expect(r.stderr).not.toContain('rap-studio:');
  expect(r.code).toBe(0);
  withLedger(ledger, (l) => {
    const [spent] = l.releases();
    expect(l.dataset(spent.datasetFingerprint)?.rows).toBe(N);
  });
  return {
    csv: readFileSync(path.join(dir, out), 'utf8'),
    schema: JSON.parse(readFileSync(path.join(dir, `${data}.out.manifest.json`), 'utf8')).schema,
  };
}

let fromCsv: Promise<{ csv: string; schema: unknown }> | undefined;

describe.each(FORMATS)('$name as the private source', (f) => {
  it(
    'releases the same seeded CSV and domain as its CSV; the ledger counts its rows',
    async () => {
      fromCsv ??= release('p.csv');
      const base = await fromCsv;
      expect(base.csv.split(/\r?\n/)[0]).toBe('age,city,income,smoker');
      const copy = await release(`p.${f.ext}`);
      expect(copy.csv).toBe(base.csv);
      expect(copy.schema).toEqual(base.schema);
    },
    CLI_TIMEOUT,
  );

  it(
    `a corrupt .${f.ext} file is refused with a message naming it; nothing is reserved`,
    async () => {
      const ledger = path.join(dir, `broken-${f.ext}.sqlite`);
      const r = await runCli(synth(`broken.${f.ext}`, ledger, `broken-${f.ext}.out.csv`), dir);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`broken.${f.ext}`);
      expect(r.stderr).toContain(f.refusal);
    },
    CLI_TIMEOUT,
  );
});
