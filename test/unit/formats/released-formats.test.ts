/**
 * The released file in the format `--out` names, through the real CLI (`rap-studio synth`, the
 * release pipeline): a seeded release to .parquet, .xlsx, .sav and .dta reads back, through our
 * own readers, to exactly the rows of the same seeded release to .csv (integers, decimals, a
 * formula-escaped category); the manifest, the Data Package and the ledger describe the written
 * file. A name with another extension, a column name SPSS or Stata cannot hold, and an existing
 * .parquet file, are refused before anything is reserved (the ledger unchanged, no file written).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../src/core/data/csv.ts';
import { fingerprintFile } from '../../../src/core/data/fingerprint.ts';
import { OUTPUT_MEDIA } from '../../../src/core/release/output-format.ts';
import { CLI_TIMEOUT, runCli, withLedger } from '../../support/cli.ts';

let dir: string;
// 400 records per city: far above partition selection's bar at this ε (about 100 records fell
// below it under some seeds), so every city is released whatever the seed's draws.
const N = 1200;
const LEDGER = 'ledger.sqlite';

function csv(): string {
  const lines = ['age,city,income,score'];
  for (let i = 0; i < N; i++) {
    const city = ['Oslo', '=Lima', '"Pune, North"'][i % 3];
    const income = i % 17 === 0 ? '' : String((i * 9173) % 90_000);
    lines.push(`${18 + ((i * 7) % 60)},${city},${income},${((i * 37) % 1000) / 100}`);
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-released-formats-'));
  writeFileSync(path.join(dir, 'p.csv'), csv());
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({
      thresholds: [
        { features: ['age', 'city'], r: 2, weight: 1 },
        { features: ['income', 'score'], r: 2, weight: 1 },
      ],
    }),
  );
  const cap = await runCli(
    ['ledger', 'set-cap', '--dataset', 'p.csv', '--epsilon', '20', '--delta', '1e-5', '--ledger', LEDGER],
    dir,
  );
  expect(cap.code, cap.stderr).toBe(0);
}, CLI_TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synth = (out: string) => [
  'synth',
  ...['--data', 'p.csv', '--header', 'yes', '--workload', 'w.json', '--epsilon', '2', '--rows', '40'],
  ...['--oversample', '2', '--max-steps', '20', '--threads', '1', '--out', out, '--ledger', LEDGER],
  ...['--seed', '5', '--insecure-seed'],
];

async function records(file: string): Promise<string[][]> {
  const out: string[][] = [];
  await readCsvRecords(path.join(dir, file), (fields) => out.push(fields));
  return out;
}

function ledgerState(): string {
  return withLedger(path.join(dir, LEDGER), (l) => {
    const id = l.identity();
    return `${id.events}/${id.headHash}`;
  });
}

async function release(out: string) {
  const r = await runCli(synth(out), dir);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/rap-studio:|HTML reports were not written/);
  return r;
}

describe('the released file keeps the format --out names', { timeout: CLI_TIMEOUT }, () => {
  let fromCsv: string[][];
  beforeAll(async () => {
    await release('s-csv.csv');
    fromCsv = await records('s-csv.csv');
    // The table exercises what a conversion could change: an escaped formula, decimals (missing
    // values, commas, quotes and line breaks inside values: src/core/release/output-format.test.ts).
    expect(fromCsv.length).toBeGreaterThan(1);
    expect(fromCsv.some((r) => r[1] === "'=Lima")).toBe(true);
    expect(fromCsv.some((r) => r[3].includes('.'))).toBe(true);
  }, CLI_TIMEOUT);

  it.each([
    'parquet',
    'xlsx',
    'sav',
    'dta',
  ] as const)('a seeded release to .%s holds exactly the rows of the .csv', async (format) => {
    const r = await release(`s-${format}.${format}`);
    expect(r.stdout).toContain(`→ s-${format}.${format}`);
    expect(await records(`s-${format}.${format}`)).toEqual(fromCsv);
    const sha256 = await fingerprintFile(path.join(dir, `s-${format}.${format}`));
    const manifest = JSON.parse(readFileSync(path.join(dir, `s-${format}.manifest.json`), 'utf8'));
    expect(manifest.output).toMatchObject({
      file: `s-${format}.${format}`,
      ...OUTPUT_MEDIA[format],
      sha256,
      rows: fromCsv.length - 1,
    });
    const pkg = JSON.parse(readFileSync(path.join(dir, `s-${format}.datapackage.json`), 'utf8'));
    expect(pkg.resources[0]).toMatchObject({
      path: `s-${format}.${format}`,
      ...OUTPUT_MEDIA[format],
      hash: `sha256:${sha256}`,
    });
    // The ledger's committed release holds the written file's hash.
    withLedger(path.join(dir, LEDGER), (l) => {
      expect(l.releases().some((x) => x.status === 'committed' && x.outputSha256 === sha256)).toBe(true);
    });
    // Nothing of the conversion left beside it (no temp CSV, no temp file).
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('another extension is refused before anything is reserved, naming the extensions', async () => {
    const before = { ledger: ledgerState(), files: readdirSync(dir).sort() };
    const r = await runCli(synth('s.txt'), dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/s\.txt.*"\.txt".*\.csv, \.parquet, \.xlsx, \.sav, \.dta/);
    expect(r.stderr).toMatch(/Nothing was reserved/);
    expect(r.stderr).not.toMatch(/reserved release/);
    expect(ledgerState()).toBe(before.ledger);
    expect(readdirSync(dir).sort()).toEqual(before.files);
  });

  it.each([
    ['dta', 'in', /"in" is a reserved word in Stata/],
    ['sav', 'in-patient', /"in-patient" is not an SPSS variable name/],
  ])('a column name .%s cannot hold is refused before anything is reserved, naming it', async (format, name, message) => {
    // The same table with one more column, named as the format does not allow.
    const lines = readFileSync(path.join(dir, 'p.csv'), 'utf8').trim().split('\n');
    const file = `named-${format}.csv`;
    writeFileSync(
      path.join(dir, file),
      `${lines.map((l, i) => `${l},${i === 0 ? name : i % 2}`).join('\n')}\n`,
    );
    const before = { ledger: ledgerState(), files: readdirSync(dir).sort() };
    const args = synth(`s-named.${format}`).map((a) => (a === 'p.csv' ? file : a));
    const r = await runCli(args, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/release to \.csv, \.parquet or \.xlsx.*Nothing was reserved/);
    expect(r.stderr).not.toMatch(/reserved release/);
    expect(ledgerState()).toBe(before.ledger);
    expect(readdirSync(dir).sort()).toEqual(before.files);
  });

  it('a value .sav cannot hold (a text of 33,000 bytes), found after the reservation: no .sav; the CSV is kept beside it, named; the release stays reserved', async () => {
    const lines = readFileSync(path.join(dir, 'p.csv'), 'utf8').trim().split('\n');
    const long = 'x'.repeat(33_000);
    writeFileSync(
      path.join(dir, 'long.csv'),
      `${lines.map((l, i) => `${l},${i === 0 ? 'note' : long}`).join('\n')}\n`,
    );
    const cap = [
      'ledger',
      'set-cap',
      '--dataset',
      'long.csv',
      '--epsilon',
      '20',
      '--delta',
      '1e-5',
      '--ledger',
      LEDGER,
    ];
    expect((await runCli(cap, dir)).code).toBe(0);
    writeFileSync(path.join(dir, 's-long.csv'), 'not ours'); // the first name is taken: the second is used
    const args = synth('s-long.sav').map((a) => (a === 'p.csv' ? 'long.csv' : a));
    const r = await runCli(args, dir);
    expect(r.code).toBe(1);
    const releaseId = /release ([0-9a-f-]+) stays reserved/i.exec(r.stderr)?.[1];
    expect(releaseId, r.stderr).toBeDefined();
    const kept = `s-long.${releaseId}.csv`;
    expect(r.stderr).toMatch(/s-long\.sav .*SPSS strings hold at most 32767.*the file was NOT written/);
    expect(r.stderr).toContain(
      `synthetic CSV (the same rows, not committed) was kept at ${path.join(dir, kept)}`,
    );
    expect(existsSync(path.join(dir, 's-long.sav'))).toBe(false);
    expect(readFileSync(path.join(dir, 's-long.csv'), 'utf8')).toBe('not ours');
    const rows = await records(kept);
    expect(rows[0]).toEqual(['age', 'city', 'income', 'score', 'note']);
    expect(rows.length).toBeGreaterThan(1);
    withLedger(path.join(dir, LEDGER), (l) => {
      expect(l.releases().find((x) => x.id === releaseId)?.status).toBe('reserved');
    });
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('an existing .parquet file is refused before anything is reserved, and kept', async () => {
    writeFileSync(path.join(dir, 'mine.parquet'), 'not ours');
    const before = ledgerState();
    const r = await runCli(synth('mine.parquet'), dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/synthetic data .*mine\.parquet: the file already exists/);
    expect(ledgerState()).toBe(before);
    expect(readFileSync(path.join(dir, 'mine.parquet'), 'utf8')).toBe('not ours');
    expect(existsSync(path.join(dir, 'mine.manifest.json'))).toBe(false);
  });
});
