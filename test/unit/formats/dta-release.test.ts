/**
 * A labelled Stata file (fixtures/people-labelled-117.dta, written by pandas) through the real
 * CLI (`rap-studio synth`): the value labels of `smoker` are its declared categories (free, used
 * exactly, a label no row uses included; the manifest says declared), the other columns are
 * discovered privately, and the released CSV holds labels, not codes.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-dta-release-'));
  copyFileSync(
    path.join(import.meta.dirname, 'fixtures', 'people-labelled-117.dta'),
    path.join(dir, 'people.dta'),
  );
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({ thresholds: [{ features: ['smoker', 'city'], r: 2, weight: 1 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a labelled Stata .dta file as the private source', () => {
  it(
    'value labels are declared categories; the released CSV holds labels',
    async () => {
      const ledger = path.join(dir, 'l.sqlite');
      const cap = await runCli(
        [
          'ledger',
          'set-cap',
          '--dataset',
          'people.dta',
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
      const r = await runCli(
        [
          'synth',
          ...['--data', 'people.dta', '--workload', 'w.json', '--epsilon', '2', '--rows', '40'],
          ...['--oversample', '2', '--max-steps', '20', '--threads', '1', '--out', 'out.csv'],
          ...['--ledger', ledger, '--seed', '5', '--insecure-seed'],
        ],
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const lines = readFileSync(path.join(dir, 'out.csv'), 'utf8').trim().split(/\r?\n/);
      expect(lines[0]).toBe('age,city,income,smoker');
      for (const line of lines.slice(1))
        expect(['daily', 'never', 'former', '?']).toContain(line.split(',')[3]);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out.manifest.json'), 'utf8'));
      const columns = new Map<string, { domain: string; categories?: string[] }>(
        manifest.schema.columns.map((c: { name: string }) => [c.name, c]),
      );
      expect(columns.get('smoker')?.domain).toBe('declared');
      expect(columns.get('city')?.domain).toBe('discovered privately');
    },
    CLI_TIMEOUT,
  );
});
