/**
 * An SPSS file (.sav, written by the test: data/formats/testing.ts) through the real CLI
 * (`rap-studio synth`): its value labels are the column's declared categories (free, used
 * exactly; the manifest says declared), the other columns are discovered privately, and the
 * released CSV holds labels, not codes. A corrupt .sav is refused with a message naming it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savBytes } from '../../../src/core/data/formats/testing.ts';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

let dir: string;
const N = 300;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-sav-release-'));
  const rows = Array.from({ length: N }, (_, i) => [
    (i % 3) + 1,
    i % 19 === 0 ? null : 18 + ((i * 7) % 60),
    ['Oslo', 'Lima', 'Pune'][i % 3],
  ]);
  writeFileSync(
    path.join(dir, 'survey.sav'),
    savBytes(
      [
        {
          name: 'region',
          type: 'numeric',
          labels: [
            [1, 'North'],
            [2, 'South'],
            [3, 'East'],
          ],
        },
        { name: 'age', type: 'numeric' },
        { name: 'city', type: 'string' },
      ],
      rows,
    ),
  );
  writeFileSync(path.join(dir, 'broken.sav'), Buffer.concat([Buffer.from('$FL2'), Buffer.alloc(40, 7)]));
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({ thresholds: [{ features: ['region', 'age', 'city'], r: 2, weight: 1 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synth = (data: string, ledger: string) => [
  'synth',
  '--data',
  data,
  '--workload',
  'w.json',
  '--epsilon',
  '2',
  '--rows',
  '40',
  '--oversample',
  '2',
  '--max-steps',
  '20',
  '--threads',
  '1',
  '--out',
  'out.csv',
  '--ledger',
  ledger,
  '--seed',
  '5',
  '--insecure-seed',
];

describe('an SPSS .sav file as the private source', () => {
  it(
    'value labels are declared categories; the released CSV holds labels',
    async () => {
      const ledger = path.join(dir, 'l.sqlite');
      const cap = await runCli(
        [
          'ledger',
          'set-cap',
          '--dataset',
          'survey.sav',
          '--epsilon',
          '10',
          '--delta',
          '1e-5',
          '--ledger',
          ledger,
        ],
        dir,
      );
      expect(cap.code).toBe(0);
      const r = await runCli(synth('survey.sav', ledger), dir);
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const lines = readFileSync(path.join(dir, 'out.csv'), 'utf8').trim().split(/\r?\n/);
      expect(lines[0]).toBe('region,age,city');
      const regions = new Set(lines.slice(1).map((l) => l.split(',')[0]));
      for (const v of regions) expect(['North', 'South', 'East', '?']).toContain(v);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out.manifest.json'), 'utf8'));
      const byName = new Map(
        manifest.schema.columns.map((c: { name: string; domain: string }) => [c.name, c.domain]),
      );
      expect(byName.get('region')).toBe('declared');
      expect(byName.get('age')).toBe('discovered privately');
    },
    CLI_TIMEOUT,
  );

  it(
    'a corrupt .sav is refused with a message naming it; nothing is reserved',
    async () => {
      const r = await runCli(synth('broken.sav', path.join(dir, 'b.sqlite')), dir);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('broken.sav');
      expect(r.stderr).toContain('not a readable SPSS data file');
    },
    CLI_TIMEOUT,
  );
});
