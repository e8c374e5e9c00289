/**
 * The release reports through the real CLI: `synth` writes NAME.report.html (public, from the
 * manifest alone) and NAME.REPORT.private.html (0600) beside the CSV, with no reference outside
 * the page, without Dawn's Vulkan warning on stderr; `rap-studio report RELEASE_ID` draws both
 * again, byte for byte, from what the release kept, and never replaces a file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, type Manifest, shown } from '../../../src/core/release/report/public-html.ts';
import { CLI_TIMEOUT, type CliResult, runCli } from '../../support/cli.ts';
import { splitReport } from '../../support/public-report.ts';

let dir: string;
let synth: CliResult;
const N = 500;
const SECRET = 'Zanzibar-only-once';

/**
 * Public test data: a date column (nearly every value rare; three months of ~167 records each, so
 * every month passes its private bar: with twelve months of ~42 an unseeded release merged one
 * into "(other)" now and then), a city with one unique value.
 */
function rawCsv(): string {
  const lines = ['age,city,income,visited'];
  for (let i = 0; i < N; i++) {
    const city = i === 7 ? SECRET : ['Oslo', 'Lima', 'Pune'][i % 3];
    lines.push(`${18 + ((i * 7) % 60)},${city},${(i * 9173) % 90_000},2021-${1 + (i % 3)}-${1 + (i % 28)}`);
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-report-'));
  writeFileSync(path.join(dir, 'raw.csv'), rawCsv());
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({
      thresholds: [
        { features: ['age', 'city'], r: 2 },
        { features: ['city', 'income'], r: 1 },
      ],
    }),
  );
  const cap = await runCli(
    ['ledger', 'set-cap', '--dataset', 'raw.csv', '--epsilon', '10', '--delta', '1e-5', '--ledger', 'l.db'],
    dir,
  );
  expect(cap.code, cap.stderr).toBe(0);
  synth = await runCli(
    [
      'synth',
      '--data',
      'raw.csv',
      '--header',
      'yes',
      '--workload',
      'w.json',
      '--epsilon',
      '2',
      '--rows',
      '50',
      '--oversample',
      '4',
      '--max-steps',
      '30',
      '--out',
      'out.csv',
      '--ledger',
      'l.db',
    ],
    dir,
  );
  expect(synth.code, synth.stderr).toBe(0);
}, CLI_TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
const releaseId = () => (JSON.parse(read('out.manifest.json')) as { releaseId: string }).releaseId;

describe('synth writes both reports', () => {
  it('beside the CSV: the public one 0644, the private one (and its JSON) 0600', () => {
    expect(synth.stdout).toContain('out.report.html');
    expect(synth.stdout).toContain('out.REPORT.private.html');
    const mode = (f: string) => statSync(path.join(dir, f)).mode & 0o777;
    expect(mode('out.REPORT.private.html')).toBe(0o600);
    expect(mode('out.REPORT.private.json')).toBe(0o600);
    expect(mode('out.report.html') & 0o077).not.toBe(0);
  });

  it('prints no Vulkan warning when no GPU was asked for', () => {
    expect(synth.stderr).not.toMatch(/vulkan/i);
    const report = JSON.parse(read('out.REPORT.private.json')) as { backendNote: string; epsilon: number };
    expect(report.backendNote).toMatch(/^cpu/);
    // One ε: the chosen one, in the private report too.
    expect(report.epsilon).toBe(2);
  });

  it('the public report holds manifest values only, and nothing of the private file', () => {
    const text = read('out.manifest.json');
    const manifest = JSON.parse(text) as Manifest;
    const html = read('out.report.html');
    const { marked } = splitReport(html);
    expect(marked.length).toBeGreaterThan(30);
    for (const { path: p, text } of marked) expect(text, p).toBe(shown(at(manifest, p)));
    expect(html).toContain(createHash('sha256').update(text).digest('hex'));
    expect(html).not.toContain(SECRET);
    expect(text).not.toContain(SECRET);
    // The workload in words, and the chosen ε.
    expect(html).toContain('data-m="workload.items.1.features.1">income<');
    expect(html).toContain('data-m="privacy.epsilon">2<');
  });

  it('both open offline: no URL, no script, no fetch; charts inline as SVG', () => {
    for (const f of ['out.report.html', 'out.REPORT.private.html']) {
      const html = read(f);
      expect(html, f).not.toMatch(/https?:|\bsrc=|\bhref=|url\((?!#)|@import|<script|<link/i);
    }
    const priv = read('out.REPORT.private.html');
    expect((priv.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(6);
    expect(priv).toContain('Overall score');
    // The date column: discovered as a date (issue 28), compared on days by the KS gap, its
    // values read in their format (none merged into "(other)").
    const report = JSON.parse(read('out.REPORT.private.json')) as {
      details: { columns: { name: string; kind: string; distance: number; merged: { share: number } }[] };
    };
    const visited = report.details.columns.find((c) => c.name === 'visited')!;
    expect(visited.kind).toBe('numeric');
    expect(visited.merged.share).toBe(0);
    expect(visited.distance).toBeLessThan(0.5);
  });
});

describe('rap-studio report RELEASE_ID', () => {
  it(
    'draws both reports again, byte for byte, and never replaces a file',
    async () => {
      mkdirSync(path.join(dir, 'again'));
      const id = releaseId();
      const r = await runCli(['report', id.slice(0, 8), '--ledger', 'l.db', '--out-dir', 'again'], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(read('again/out.report.html')).toBe(read('out.report.html'));
      expect(read('again/out.REPORT.private.html')).toBe(read('out.REPORT.private.html'));
      expect(statSync(path.join(dir, 'again/out.REPORT.private.html')).mode & 0o777).toBe(0o600);
      const twice = await runCli(['report', id, '--ledger', 'l.db', '--out-dir', 'again'], dir);
      expect(twice.code).toBe(2);
      expect(twice.stderr).toContain('never replaces a file');
    },
    CLI_TIMEOUT,
  );
});
