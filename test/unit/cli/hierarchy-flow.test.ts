/**
 * Issue 28 (hierarchical codes) through the real CLI: `synth --hierarchy dx=1,3,full --dry-run`
 * states each level's merge threshold (the same public function discovery spends), and a release
 * at the same ε holds codes at the finest level that passed: a category of many records is
 * released, a full code held by few records comes out as its category, and with `full-codes` a
 * category is decoded as a released full code under it, never an unreleased one. The ledger's
 * event names the hierarchical column; bad --hierarchy text is refused before anything is read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHierarchy } from '../../../src/core/data/hierarchy.ts';
import { splitBudget } from '../../../src/core/discovery/budget-split.ts';
import { hierarchyPreview } from '../../../src/core/discovery/preview.ts';
import { CLI_TIMEOUT, runCli, withLedger } from '../../support/cli.ts';

const N = 3000;
const EPSILON = 4;
let dir: string;

/** dx: K20.1 ×1200 (a full code that passes), K20.x ×2 each for 40 x (few: merged into K20), M5x. */
function csv(): string {
  const dx: string[] = [];
  for (let i = 0; i < 1200; i++) dx.push('K20.1');
  for (let x = 0; x < 40; x++) for (let i = 0; i < 2; i++) dx.push(`K20.${x + 10}`);
  while (dx.length < N) dx.push(`M5${dx.length % 2}`);
  const lines = ['dx,flag'];
  dx.forEach((d, i) => {
    lines.push(`${d},${i % 3 === 0 ? 'yes' : 'no'}`);
  });
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-hierarchy-'));
  writeFileSync(path.join(dir, 'raw.csv'), csv());
  const w = await runCli(
    ['workload', 'default', '--data', 'raw.csv', '--header', 'yes', '--out', 'w.json'],
    dir,
  );
  expect(w.code).toBe(0);
}, CLI_TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hierarchical codes through synth', () => {
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

  it(
    'previews each level, then releases every code at its finest released level',
    async () => {
      const ledger = path.join(dir, 'l.sqlite');
      const dry = await runCli(
        [
          'synth',
          ...common,
          '--hierarchy',
          'dx=1,3,full',
          '--out',
          'out.csv',
          '--ledger',
          ledger,
          '--dry-run',
        ],
        dir,
      );
      expect(dry.code).toBe(0);
      const levels = hierarchyPreview(
        splitBudget(EPSILON, 1 / N ** 2, 0.2, true),
        ['dx', 'flag'],
        { dx: parseHierarchy('1,3,full') },
        'dx',
      );
      expect(levels.map((l) => l.mechanism)).toEqual([
        'partition-selection',
        'partition-selection',
        'partition-selection',
      ]);
      for (const l of levels) {
        const about = Number(Math.ceil(l.mergeBelow).toPrecision(2)).toLocaleString('en-US');
        expect(dry.stdout).toContain(`dx level ${l.level + 1} (`);
        expect(dry.stdout).toContain(`fewer than about ${about} records`);
      }
      expect(dry.stdout).toContain('4 shares: a hierarchical column one per level');
      // The data sit ≥ 5σ either side of each τ: K, K20, M, M50, M51 and K20.1 pass; K20.10… do not.
      const [top, mid, full] = levels;
      expect(1280).toBeGreaterThan(top.mergeBelow + 5 * top.sigma);
      expect(2).toBeLessThan(full.mergeBelow - 5 * full.sigma);
      expect(1200).toBeGreaterThan(full.mergeBelow + 5 * full.sigma);
      expect(N - 1280).toBeGreaterThan(2 * (mid.mergeBelow + 5 * mid.sigma));

      const set = await runCli(
        [
          'ledger',
          'set-cap',
          '--dataset',
          'raw.csv',
          '--epsilon',
          '20',
          '--delta',
          '1e-5',
          '--ledger',
          ledger,
        ],
        dir,
      );
      expect(set.code).toBe(0);
      /** A seeded synth run of n' = 300 with dx under `hierarchy`, into `out`. */
      const synth = (hierarchy: string, out: string, seed: number) =>
        runCli(
          [
            'synth',
            ...common,
            '--hierarchy',
            hierarchy,
            '--rows',
            '300',
            '--out',
            out,
            '--ledger',
            ledger,
            '--seed',
            String(seed),
            '--insecure-seed',
          ],
          dir,
        );
      const run = await synth('dx=1,3,full', 'out.csv', 3);
      expect(run.code).toBe(0);
      const rows = readFileSync(path.join(dir, 'out.csv'), 'utf8').trim().split('\n').slice(1);
      const dx = new Set(rows.map((r) => r.split(',')[0]));
      for (const v of dx) expect(['K', 'K20', 'K20.1', 'M', 'M50', 'M51', '(other)']).toContain(v);
      expect(dx.has('K20.1')).toBe(true);
      withLedger(ledger, (l) => {
        const [release] = l.releases();
        const discovery = release.params.discovery as { hierarchies: Record<string, string> };
        expect(discovery.hierarchies).toEqual({ dx: '1,3,full' });
        // The ledger charges dx one share per level: 3 of the 4 shares of discovery's ρ and δ.
        const columns = release.params.columns as { name: string; rho: number; delta: number }[];
        const [dx, flag] = ['dx', 'flag'].map((n) => columns.find((c) => c.name === n)!);
        const spent = release.params.discovery as { rho: number; delta: number };
        expect(dx.rho / flag.rho).toBeCloseTo(3, 10);
        expect(dx.rho + flag.rho).toBeCloseTo(spent.rho, 12);
        expect(dx.delta + flag.delta).toBeLessThanOrEqual(spent.delta * (1 + 1e-12));
      });

      const codes = await synth('dx=1,3,full,full-codes', 'codes.csv', 4);
      expect(codes.code).toBe(0);
      const decoded = readFileSync(path.join(dir, 'codes.csv'), 'utf8').trim().split('\n').slice(1);
      // K and K20 become K20.1 (the one released full code under them); M50, M51 have none: kept.
      for (const r of decoded) expect(['K20.1', 'M', 'M50', 'M51', '(other)']).toContain(r.split(',')[0]);
    },
    CLI_TIMEOUT * 2,
  );

  it(
    'refuses bad hierarchy text and an unknown column before anything is read',
    async () => {
      const bad = await runCli(
        ['synth', ...common, '--hierarchy', 'dx=3,1', '--out', 'x.csv', '--dry-run'],
        dir,
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('hierarchy of "dx": levels must be ascending');
      const unknown = await runCli(
        ['synth', ...common, '--hierarchy', 'zip=postcode', '--out', 'x.csv', '--dry-run'],
        dir,
      );
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('the hierarchical column "zip" is not in the table');
    },
    CLI_TIMEOUT,
  );
});
