/**
 * Issue 29 through the real CLI: `synth --dry-run` states, before anything is reserved, below
 * how many records a discovered column's categories merge into "(other)"; a release at the same
 * ε merges exactly the categories the preview predicts; "(other)" appears only in a column where
 * something merged, and a column with nothing missing gets no missing value.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitBudget } from '../../../src/core/discovery/budget-split.ts';
import { discoveryLossPreview } from '../../../src/core/discovery/preview.ts';
import { CLI_TIMEOUT, runCli, withLedger } from './helpers.ts';

const N = 3000;
const EPSILON = 2;
const BIG = { Lima: 1400, Oslo: 900, Pune: 400 } as const;
const SMALL = 60; // categories of 5 records each: 300 records
const SMALL_COUNT = 5;

let dir: string;

function csv(): string {
  const city: string[] = [];
  for (const [name, count] of Object.entries(BIG)) for (let i = 0; i < count; i++) city.push(name);
  for (let s = 0; s < SMALL; s++) for (let i = 0; i < SMALL_COUNT; i++) city.push(`Town${s}`);
  const lines = ['city,flag,x'];
  city.forEach((c, i) => {
    lines.push(`${c},${i % 3 === 0 ? 'yes' : 'no'},${(i * 7) % 50}`);
  });
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-preview-'));
  writeFileSync(path.join(dir, 'raw.csv'), csv());
  const w = await runCli(
    ['workload', 'default', '--data', 'raw.csv', '--header', 'yes', '--out', 'w.json'],
    dir,
  );
  expect(w.code).toBe(0);
  expect(w.stderr).toContain('every 2-way marginal of the 3 columns');
}, CLI_TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the expected-loss preview', () => {
  it(
    "predicts the release's merges: categories under the stated count merge into (other), those over it are kept",
    async () => {
      const ledger = path.join(dir, 'l.sqlite');
      const common = [
        '--data',
        'raw.csv',
        '--header',
        'yes',
        '--workload',
        'w.json',
        '--epsilon',
        String(EPSILON),
      ];
      const dry = await runCli(
        ['synth', ...common, '--out', 'out.csv', '--ledger', ledger, '--dry-run'],
        dir,
      );
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain('nothing reserved');
      // The same public function the screens use; the test's counts sit ≥ 5σ either side of τ,
      // so the release follows the prediction except with probability < 3·10⁻⁷ per category.
      const [p] = discoveryLossPreview(splitBudget(EPSILON, 1 / N ** 2, 0.2, true), ['city', 'flag', 'x']);
      const about = Number(Math.ceil(p.mergeBelow).toPrecision(2)).toLocaleString('en-US');
      expect(dry.stdout).toContain(
        `city: at ε = ${EPSILON}, categories held by fewer than about ${about} records`,
      );
      expect(SMALL_COUNT).toBeLessThan(p.mergeBelow - 5 * p.sigma);
      for (const c of Object.values(BIG)) expect(c).toBeGreaterThan(p.mergeBelow + 5 * p.sigma);
      // "(other)" (SMALL·SMALL_COUNT records) passes its own bar, OTHER_SIGMAS·σ√3, by ≥ 5σ√3.
      expect(SMALL * SMALL_COUNT).toBeGreaterThan((p.otherSigmas + 5) * p.sigma * Math.sqrt(3));
      expect(() => readFileSync(path.join(dir, 'out.csv'))).toThrow();
      const set = await runCli(
        [
          'ledger',
          'set-cap',
          '--dataset',
          'raw.csv',
          '--epsilon',
          '10',
          '--delta',
          '1e-5',
          '--ledger',
          ledger,
        ],
        dir,
      );
      expect(set.code).toBe(0);
      withLedger(ledger, (l) => expect(l.releases()).toHaveLength(0));

      const run = await runCli(
        [
          'synth',
          ...common,
          '--rows',
          '200',
          '--oversample',
          '5',
          '--out',
          'out.csv',
          '--ledger',
          ledger,
          '--seed',
          '7',
          '--insecure-seed',
        ],
        dir,
      );
      expect(run.code).toBe(0);
      const rows = readFileSync(path.join(dir, 'out.csv'), 'utf8').trim().split('\n').slice(1);
      const cities = new Set(rows.map((r) => r.split(',')[0]));
      const flags = new Set(rows.map((r) => r.split(',')[1]));
      const xs = rows.map((r) => r.split(',')[2]);
      // What the preview predicted: the big categories kept, every small one merged into (other).
      for (const c of cities) expect([...Object.keys(BIG), '(other)']).toContain(c);
      for (let s = 0; s < SMALL; s++) expect(cities.has(`Town${s}`)).toBe(false);
      // No phantom values: flag released every category, so no (other); x has no missing values.
      expect([...flags].sort()).toEqual(['no', 'yes']);
      expect(xs.every((x) => x !== '?' && x !== '' && Number.isInteger(Number(x)))).toBe(true);
    },
    CLI_TIMEOUT,
  );
});
