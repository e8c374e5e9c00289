/**
 * Public metadata in and out through `rap-studio synth`: a Frictionless Table Schema as --schema
 * (its enum columns declared exactly, its type-only field discovered privately), and the release's
 * Data Package beside the CSV — valid by our own schema, its Table Schema the released domain: read
 * back as the declared schema of the synthetic CSV it gives the same domain, and every synthetic
 * row fits it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCsv } from '../../../src/core/data/load.ts';
import { readDeclaredSchema } from '../../../src/core/data/schema-file.ts';
import { toTableSchema } from '../../../src/core/data/table-schema.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { releaseDataPackageJson } from '../../../src/core/release/data-package.ts';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-ts-release-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 400;
const TABLE_SCHEMA = {
  fields: [
    // "violet" never occurs: a declared category is in the domain all the same.
    { name: 'colour', type: 'string', constraints: { enum: ['red', 'green', 'blue', 'violet'] } },
    { name: 'size', type: 'integer' },
    { name: 'grade', type: 'string', constraints: { enum: ['A', 'B'], required: true } },
    // A date with its format declared: its domain discovered on the calendar grid.
    { name: 'visit', type: 'date', format: '%d/%m/%Y' },
    // Swiss-formatted amounts with a currency code (groupChar "'", bareNumber false): discovered.
    { name: 'charge', type: 'number', groupChar: "'", bareNumber: false },
  ],
  missingValues: ['?'],
};

function data(): string {
  let x = 7;
  const next = (m: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % m;
  };
  const lines = ['colour,size,grade,visit,charge'];
  const chf = (cents: number) => {
    const [int, frac] = (cents / 100).toFixed(2).split('.');
    return `CHF ${int.replace(/\B(?=(\d{3})+(?!\d))/g, "'")}.${frac}`;
  };
  const date = (day: number) => {
    const d = new Date(Date.UTC(2024, 0, 1 + day));
    const two = (x: number) => String(x).padStart(2, '0');
    return `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
  };
  for (let i = 0; i < N; i++) {
    const c = next(10);
    lines.push(
      `${c === 9 ? '?' : ['red', 'green', 'blue'][c % 3]},${next(40)},${next(3) === 0 ? 'B' : 'A'},${date(next(200))},` +
        chf(500 + next(2_000_000)),
    );
  }
  return `${lines.join('\n')}\n`;
}

let stdout = '';
let ledgerPath = '';
const synth = (out: string) => [
  'synth',
  '--data',
  'data.csv',
  '--header',
  'yes',
  '--schema',
  'schema.json',
  '--workload',
  'w.json',
  '--epsilon',
  '1',
  '--rows',
  '50',
  '--max-steps',
  '20',
  '--out',
  out,
  '--ledger',
  ledgerPath,
  '--seed',
  '3',
  '--insecure-seed',
];
beforeAll(async () => {
  const text = data();
  writeFileSync(path.join(dir, 'data.csv'), text);
  writeFileSync(path.join(dir, 'schema.json'), JSON.stringify(TABLE_SCHEMA));
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({
      thresholds: [
        { features: ['colour', 'size'], r: 2 },
        { features: ['size', 'grade'], r: 2 },
      ],
    }),
  );
  ledgerPath = path.join(dir, 'ledger.sqlite');
  const ledger = Ledger.open(ledgerPath);
  const fingerprint = createHash('sha256').update(text).digest('hex');
  try {
    ledger.ensureDataset({ fingerprint, name: 'data.csv', rows: N });
    ledger.setCap(fingerprint, 100, 1e-4);
  } finally {
    ledger.close();
  }
  const r = await runCli(synth('syn.csv'), dir);
  expect(r.code, r.stderr).toBe(0);
  stdout = r.stdout;
}, CLI_TIMEOUT);

describe('a release with a Table Schema', () => {
  it('declares the enum columns exactly, discovers the type-only field, and writes a valid Data Package', () => {
    expect(stdout).toMatch(/Data Package syn\.datapackage\.json/);
    const dp = JSON.parse(readFileSync(path.join(dir, 'syn.datapackage.json'), 'utf8'));
    const parsed = releaseDataPackageJson.parse(dp);
    const [resource] = parsed.resources;
    expect(resource.path).toBe('syn.csv');
    const csv = readFileSync(path.join(dir, 'syn.csv'));
    expect(resource.hash).toBe(`sha256:${createHash('sha256').update(csv).digest('hex')}`);
    expect(resource.schema.fields.map((f) => f.name)).toEqual(['colour', 'size', 'grade', 'visit', 'charge']);
    expect(resource.schema.fields[3]).toMatchObject({ type: 'date', format: '%d/%m/%Y' });
    const rows = readFileSync(path.join(dir, 'syn.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
    expect(rows[0]).toMatch(/,\d\d\/\d\d\/202\d,/);
    // The amounts read in the stated format and written back in it (the currency code is not
    // known from the schema: bare), and described so: decimalChar, groupChar, bareNumber.
    expect(resource.schema.fields[4]).toMatchObject({
      type: 'number',
      decimalChar: '.',
      groupChar: "'",
      bareNumber: true,
    });
    for (const r of rows) expect(r.split(',')[4]).toMatch(/^(-?\d{1,3}('\d{3})*(\.\d+)?|\?)$/);
    expect(rows.some((r) => r.split(',')[4].includes("'"))).toBe(true);
    expect(resource.schema.fields[0].constraints?.enum).toEqual(['red', 'green', 'blue', 'violet']);
    expect(resource.schema.fields[2].constraints).toEqual({ required: true, enum: ['A', 'B'] });
    expect(resource.schema.fields[1].type).toBe('integer');
    // The provenance per column, as the manifest carries it.
    const manifest = JSON.parse(readFileSync(path.join(dir, 'syn.manifest.json'), 'utf8'));
    expect(parsed['rap-studio'].columns).toEqual(manifest.schema.columns);
    expect(parsed['rap-studio'].columns.map((c) => [c.name, c.domain])).toEqual([
      ['colour', 'declared'],
      ['size', 'discovered privately'],
      ['grade', 'declared'],
      ['visit', 'discovered privately'],
      ['charge', 'discovered privately'],
    ]);
    expect(parsed['rap-studio'].releaseId).toBe(manifest.releaseId);
  });

  it('round-trips: read back as the declared schema of the synthetic CSV, the same domain, every row fits', async () => {
    const file = path.join(dir, 'syn.datapackage.json');
    const dp = releaseDataPackageJson.parse(JSON.parse(readFileSync(file, 'utf8')));
    const back = await readDeclaredSchema(file);
    expect(back.open).toEqual([]);
    // The domain read back writes the same Table Schema: same categories, bounds and bins.
    expect(toTableSchema(back.schema)).toEqual(dp.resources[0].schema);
    const loaded = await loadCsv(path.join(dir, 'syn.csv'), { schema: back.schema });
    expect(loaded.summary.rejected).toEqual([]);
    expect(loaded.dataset.n).toBeGreaterThan(0);
  });

  it(
    'an existing Data Package at the output is refused before reserving, naming it',
    async () => {
      writeFileSync(path.join(dir, 'again.datapackage.json'), '{}\n');
      const events = () => {
        const l = Ledger.open(ledgerPath);
        try {
          return l.identity().events;
        } finally {
          l.close();
        }
      };
      const before = events();
      const r = await runCli(synth('again.csv'), dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/data package .*again\.datapackage\.json: the file already exists/);
      expect(events()).toBe(before);
    },
    CLI_TIMEOUT,
  );
});
