/**
 * The header rule through `rap-studio synth` (secure noise, default flags): a headerless all-text
 * file whose first record looks like a header is refused before reserving until the curator says
 * --header yes|no; with --header no the released CSV and manifest are named column_1…column_N and
 * hold no value of that record.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, QUICK_RUN, releasesIn, runCli } from '../../support/cli.ts';

let dir: string;
const FIRST = 'Jane Roe,HIV positive,Springfield';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-header-'));
  const names = ['Ann', 'Bob', 'Cy'];
  const status = ['negative', 'unknown'];
  const towns = ['Oslo', 'Lima', 'Pune', 'Riga'];
  const lines = [FIRST];
  for (let i = 0; i < 300; i++) lines.push(`${names[i % 3]},${status[i % 2]},${towns[i % 4]}`);
  writeFileSync(path.join(dir, 'h.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({ thresholds: [{ features: ['column_1', 'column_3'], r: 2 }] }),
  );
  writeFileSync(
    path.join(dir, 'w-guessed.json'),
    JSON.stringify({ thresholds: [{ features: ['Jane Roe', 'Springfield'], r: 2 }] }),
  );
}, CLI_TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synth = (ledger: string, extra: string[]) => [
  'synth',
  '--data',
  'h.csv',
  '--epsilon',
  '2',
  ...QUICK_RUN,
  '--out',
  'out.csv',
  '--ledger',
  ledger,
  '--budget-epsilon',
  '10',
  '--confirm-cap',
  ...extra,
];

describe('the header rule (CLI)', { timeout: CLI_TIMEOUT }, () => {
  it('a first record that looks like a header: refused before reserving until --header is given', async () => {
    const ledger = path.join(dir, 'l1.sqlite');
    for (const workload of ['w-guessed.json', 'w.json']) {
      const r = await runCli(synth(ledger, ['--workload', workload]), dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/h\.csv, line 1: this row looks like a header.*--header yes.*--header no/);
      expect(r.stderr).toMatch(/Nothing was reserved/);
    }
    expect(releasesIn(ledger)).toEqual([]);
    expect(existsSync(path.join(dir, 'out.csv'))).toBe(false);
  });

  it('--header no: the release names the columns column_1…column_3 and publishes nothing of line 1', async () => {
    const ledger = path.join(dir, 'l2.sqlite');
    const r = await runCli(synth(ledger, ['--workload', 'w.json', '--header', 'no']), dir);
    expect(r.code).toBe(0);
    const csv = readFileSync(path.join(dir, 'out.csv'), 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('column_1,column_2,column_3');
    const manifest = readFileSync(path.join(dir, 'out.manifest.json'), 'utf8');
    for (const text of [csv, manifest]) {
      expect(text).not.toContain('Jane Roe');
      expect(text).not.toContain('HIV positive');
      expect(text).not.toContain('Springfield');
    }
    expect(releasesIn(ledger)).toHaveLength(1);
  });

  it('--header must be yes or no', async () => {
    const r = await runCli(
      synth(path.join(dir, 'l3.sqlite'), ['--workload', 'w.json', '--header', 'maybe']),
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--header/);
  });
});
