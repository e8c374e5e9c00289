/**
 * An Excel workbook (.xlsx) through the real CLI (`rap-studio synth`, the release pipeline): the
 * same seeded release as from its CSV (same discovered domain, same synthetic CSV), and a corrupt
 * workbook refused with a message naming it before anything is reserved. The workbook is written
 * by the test (data/formats/testing.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { CLI_TIMEOUT, runCli, withLedger } from '../cli/helpers.ts';

let dir: string;
const N = 300;

function csv(): string {
  const lines = ['age,city,income,smoker'];
  for (let i = 0; i < N; i++) {
    const age = String(18 + ((i * 7) % 60));
    const city = ['Oslo', 'Lima', 'Pune'][i % 3];
    const income = i % 17 === 0 ? '' : String((i * 9173) % 90_000);
    lines.push(`${age},${city},${income},${i % 4 === 0 ? 'daily' : 'never'}`);
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-xlsx-release-'));
  writeFileSync(path.join(dir, 'p.csv'), csv());
  // The same table as a workbook: numbers as numbers, empty cells as no cell.
  const rows = csv()
    .trim()
    .split('\n')
    .map((line, i) =>
      line.split(',').map((v) => (v === '' ? null : i > 0 && /^\d+$/.test(v) ? Number(v) : v)),
    );
  writeFileSync(path.join(dir, 'p.xlsx'), xlsxBytes(rows));
  writeFileSync(
    path.join(dir, 'broken.xlsx'),
    Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 7)]),
  );
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({
      thresholds: [
        { features: ['age', 'city'], r: 2, weight: 1 },
        { features: ['income', 'smoker'], r: 2, weight: 1 },
      ],
    }),
  );
}, CLI_TIMEOUT);
afterAll(() => (process.env.KEEP ? console.log(dir) : rmSync(dir, { recursive: true, force: true })));

async function capped(ledger: string, data: string): Promise<void> {
  const r = await runCli(
    ['ledger', 'set-cap', '--dataset', data, '--epsilon', '10', '--delta', '1e-5', '--ledger', ledger],
    dir,
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

const synth = (data: string, ledger: string, out: string) => [
  'synth',
  '--data',
  data,
  '--workload',
  'w.json',
  '--epsilon',
  '2',
  '--rows',
  '30',
  '--oversample',
  '2',
  '--max-steps',
  '20',
  '--threads',
  '1',
  '--out',
  out,
  '--ledger',
  ledger,
  '--seed',
  '5',
  '--insecure-seed',
];

describe('an Excel workbook as the private source', () => {
  it(
    'releases the same seeded CSV and domain as its CSV; the ledger counts its rows',
    async () => {
      const outs: string[] = [];
      for (const data of ['p.csv', 'p.xlsx']) {
        const ledger = path.join(dir, `${data}.sqlite`);
        await capped(ledger, data);
        const out = `${data}.out.csv`;
        // A CSV's header row is the curator's to confirm; a workbook's first row names the columns.
        const header = data.endsWith('.csv') ? ['--header', 'yes'] : [];
        const r = await runCli([...synth(data, ledger, out), ...header], dir);
        expect(r.stderr).not.toContain('rap-studio:');
        expect(r.code).toBe(0);
        outs.push(readFileSync(path.join(dir, out), 'utf8'));
        withLedger(ledger, (l) => {
          const [release] = l.releases();
          expect(l.dataset(release.datasetFingerprint)?.rows).toBe(N);
        });
      }
      expect(outs[0].split(/\r?\n/)[0]).toBe('age,city,income,smoker');
      expect(outs[1]).toBe(outs[0]);
      const manifests = ['p.csv.out', 'p.xlsx.out'].map(
        (m) => JSON.parse(readFileSync(path.join(dir, `${m}.manifest.json`), 'utf8')).schema,
      );
      expect(manifests[1]).toEqual(manifests[0]);
    },
    CLI_TIMEOUT,
  );

  it(
    'a corrupt workbook is refused with a message naming it; nothing is reserved',
    async () => {
      const ledger = path.join(dir, 'broken.sqlite');
      const r = await runCli(synth('broken.xlsx', ledger, 'broken.out.csv'), dir);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('broken.xlsx');
      expect(r.stderr).toContain('not a readable Excel workbook (.xlsx)');
    },
    CLI_TIMEOUT,
  );
});
