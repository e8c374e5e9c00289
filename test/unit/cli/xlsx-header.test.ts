/**
 * The header rule for an Excel sheet through `rap-studio synth` (secure noise): a sheet's first
 * row is a row like a CSV's, not the file's own schema (as Parquet's, SPSS's, Stata's or SAS's
 * column names are). With --header no a first row that is a record is counted as one and the
 * columns are published as column_1…column_N; without --header a first row that looks like a
 * header is refused before reserving; with --header yes it names the columns. The person level
 * (a unit column) reads the sheet by the same rule.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { CLI_TIMEOUT, QUICK_RUN, releasesIn, runCli, withLedger } from '../../support/cli.ts';

let dir: string;
/** A record, all text, none of whose cells recurs below: a guess takes it for a header. */
const FIRST = ['Ann Smith', '1961-03-04', 'Oslo', 'HIV+'];
const ROWS = 300;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-xlsx-header-'));
  const names = ['Bob Lee', 'Cy Ng', 'Di Wu'];
  const born = ['1970-01-02', '1980-05-06'];
  const towns = ['Lima', 'Pune', 'Riga'];
  const status = ['none', 'HIV-'];
  const rows = Array.from({ length: ROWS }, (_, i) => [
    names[i % 3],
    born[i % 2],
    towns[i % 3],
    status[i % 2],
  ]);
  writeFileSync(path.join(dir, 'headerless.xlsx'), xlsxBytes([FIRST, ...rows]));
  writeFileSync(path.join(dir, 'named.xlsx'), xlsxBytes([['name', 'born', 'town', 'status'], ...rows]));
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({ thresholds: [{ features: ['column_1', 'column_3'], r: 2 }] }),
  );
  writeFileSync(
    path.join(dir, 'w-named.json'),
    JSON.stringify({ thresholds: [{ features: ['name', 'town'], r: 2 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synth = (data: string, ledger: string, out: string, extra: string[]) => [
  'synth',
  ...['--data', data, '--epsilon', '2', ...QUICK_RUN, '--out', out, '--ledger', ledger],
  ...['--budget-epsilon', '10', '--confirm-cap', ...extra],
];

describe('the header rule for an .xlsx sheet (CLI)', { timeout: CLI_TIMEOUT }, () => {
  it('--header no: the first row is counted as a record and the columns are named column_1…column_4', async () => {
    const ledger = path.join(dir, 'no.sqlite');
    const r = await runCli(
      synth('headerless.xlsx', ledger, 'no.csv', ['--workload', 'w.json', '--header', 'no']),
      dir,
    );
    expect(r.stderr).not.toContain('rap-studio:');
    expect(r.code).toBe(0);
    const csv = readFileSync(path.join(dir, 'no.csv'), 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('column_1,column_2,column_3,column_4');
    const pkg = JSON.parse(readFileSync(path.join(dir, 'no.datapackage.json'), 'utf8'));
    expect(pkg.resources[0].schema.fields.map((f: { name: string }) => f.name)).toEqual([
      'column_1',
      'column_2',
      'column_3',
      'column_4',
    ]);
    const manifest = readFileSync(path.join(dir, 'no.manifest.json'), 'utf8');
    for (const text of [csv, manifest, JSON.stringify(pkg)]) {
      for (const cell of FIRST) expect(text).not.toContain(cell);
    }
    withLedger(ledger, (l) => {
      const [spent] = l.releases();
      expect(l.dataset(spent.datasetFingerprint)?.rows).toBe(ROWS + 1);
    });
  });

  it('--header no at the person level (--unit-column column_1): the other columns released as column_2…column_4', async () => {
    writeFileSync(
      path.join(dir, 'w-person.json'),
      JSON.stringify({ thresholds: [{ features: ['column_3', 'column_4'], r: 2 }] }),
    );
    const ledger = path.join(dir, 'person.sqlite');
    const r = await runCli(
      synth('headerless.xlsx', ledger, 'person.csv', [
        ...['--workload', 'w-person.json', '--header', 'no', '--unit-column', 'column_1'],
      ]),
      dir,
    );
    expect(r.stderr).not.toContain('rap-studio:');
    expect(r.code).toBe(0);
    const csv = readFileSync(path.join(dir, 'person.csv'), 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('column_2,column_3,column_4');
    const manifest = readFileSync(path.join(dir, 'person.manifest.json'), 'utf8');
    for (const text of [csv, manifest]) {
      for (const cell of FIRST) expect(text).not.toContain(cell);
    }
    expect(releasesIn(ledger)).toHaveLength(1);
  });

  it('no --header on an all-text headerless sheet: refused before reserving, asking --header yes|no', async () => {
    const ledger = path.join(dir, 'unsaid.sqlite');
    const r = await runCli(synth('headerless.xlsx', ledger, 'unsaid.csv', ['--workload', 'w.json']), dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /headerless\.xlsx, line 1: this row looks like a header.*--header yes.*--header no.*Nothing was reserved/s,
    );
    expect(releasesIn(ledger)).toEqual([]);
    expect(existsSync(path.join(dir, 'unsaid.csv'))).toBe(false);
  });

  it('--header yes: the first row names the columns', async () => {
    const ledger = path.join(dir, 'yes.sqlite');
    const r = await runCli(
      synth('named.xlsx', ledger, 'yes.csv', ['--workload', 'w-named.json', '--header', 'yes']),
      dir,
    );
    expect(r.stderr).not.toContain('rap-studio:');
    expect(r.code).toBe(0);
    const csv = readFileSync(path.join(dir, 'yes.csv'), 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('name,born,town,status');
    withLedger(ledger, (l) => {
      const [spent] = l.releases();
      expect(l.dataset(spent.datasetFingerprint)?.rows).toBe(ROWS);
    });
  });
});
