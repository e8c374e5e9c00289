/**
 * `rap-studio synth --data 'a[1].csv'` with another file, `a1.csv`, beside it (the same row count,
 * other values): DuckDB globs the paths it reads, and before fileLiteral it counted a1.csv while
 * the ledger charged a[1].csv. The release must be of the named file: its values, its fingerprint.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-glob-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (city: string) =>
  `${['city,age', ...Array.from({ length: 2000 }, (_, i) => `${city},${20 + (i % 40)}`)].join('\n')}\n`;

describe('a data file whose name DuckDB would read as a pattern', { timeout: CLI_TIMEOUT }, () => {
  it('a[1].csv is released, not a1.csv beside it', async () => {
    writeFileSync(path.join(dir, 'a[1].csv'), file('Oslo'));
    writeFileSync(path.join(dir, 'a1.csv'), file('Zurich'));
    writeFileSync(
      path.join(dir, 'w.json'),
      JSON.stringify({ thresholds: [{ features: ['city', 'age'], r: 2 }] }),
    );
    const args = ['--ledger', 'l.sqlite'];
    const cap = await runCli(
      ['ledger', 'set-cap', '--dataset', 'a[1].csv', '--epsilon', '10', '--delta', '1e-6', ...args],
      dir,
    );
    expect(cap.code, cap.stderr).toBe(0);
    const r = await runCli(
      [
        'synth',
        '--data',
        'a[1].csv',
        '--header',
        'yes',
        '--workload',
        'w.json',
        '--epsilon',
        '2',
        '--rows',
        '50',
      ].concat([
        '--out',
        'o.csv',
        '--seed',
        '3',
        '--insecure-seed',
        '--max-steps',
        '20',
        '--threads',
        '1',
        ...args,
      ]),
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(dir, 'o.REPORT.private.json'), 'utf8'));
    expect(report.counting?.by).toBe('duckdb');
    const cities = new Set(
      readFileSync(path.join(dir, 'o.csv'), 'utf8')
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((l) => l.split(',')[0]),
    );
    expect(cities.has('Zurich')).toBe(false);
    expect(cities.has('Oslo')).toBe(true);
  });
});
