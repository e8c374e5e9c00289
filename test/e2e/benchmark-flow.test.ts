/**
 * The second curator flow, on a benchmark-format table (integer codes + a domain JSON, as in the
 * DP papers; the vendored test/e2e/data/census-coded.csv with ADULT's public column sizes): the domain file declares the schema, the workload is every 3-way marginal
 * (r = k = 3) over four features, and a small run (n' = 200, T = 2) goes through results,
 * export and the ledger. A screenshot of every step goes to test-results/screenshots/bench-*.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OVERSAMPLE } from '../../src/core/engine/defaults.ts';
import { CENSUS_ROWS } from './data/make-census.ts';
import { chromiumAvailable, ledgerCounts, repoRoot } from './harness.ts';
import { chartPoints, num, openFile, shot, startRun, stat, waitForRunStatus } from './ui.ts';
import { useApp } from './use-app.ts';

/** The vendored census table in the benchmark format (test/e2e/data/make-census.ts writes it). */
const DATA = join(repoRoot, 'test/e2e/data/census-coded.csv');
const DOMAIN = join(repoRoot, 'test/e2e/data/census-domain.json');
const skipReason = !chromiumAvailable() ? 'Chromium is not installed' : null;

/** The four features of the 3-way marginals and their domain sizes. */
const FEATURES = ['sex', 'race', 'relationship', 'income>50K'] as const;

describe.skipIf(skipReason !== null)('the curator flow on a benchmark-format (integer-coded) table', () => {
  const app = useApp({ name: 'benchmark' });
  let domain: Record<string, number>;

  beforeAll(() => {
    domain = JSON.parse(readFileSync(DOMAIN, 'utf8')) as Record<string, number>;
  });

  it('opens the integer-coded CSV with its domain file as a declared schema', async () => {
    const { page } = app;
    await openFile(page, DATA, { domain: DOMAIN });
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    expect(await page.getByTestId('data-file-name').textContent()).toBe('census-coded.csv');
    expect(await stat(page, 'data-rows-read')).toBe(CENSUS_ROWS.toLocaleString('en-US'));
    expect(await stat(page, 'data-rows-accepted')).toBe(CENSUS_ROWS.toLocaleString('en-US'));
    expect(await stat(page, 'data-rows-rejected')).toBe('0');
    expect(await stat(page, 'data-columns')).toBe(String(Object.keys(domain).length));
    expect(await page.getByTestId('data-columns').locator('.stat-hint').textContent()).toBe(
      'one-hot width 588',
    );
    await expect(page.getByTestId('step-Data').textContent()).resolves.toContain('benchmark format');
    // A declared schema leaks nothing: no "inferred" warning anywhere.
    expect(await page.getByTestId('inferred-notice').count()).toBe(0);
    expect(await page.getByTestId('data-budget-none').isVisible()).toBe(true);
    const preview = page.getByTestId('data-preview');
    expect(Number(await preview.getAttribute('data-rows'))).toBe(200);
    expect(await preview.locator('th').allTextContents()).toEqual(expect.arrayContaining([...FEATURES]));
    await shot(page, 'bench-1-data');
  });

  it('shows the declared schema with the domain sizes, and histograms with data', async () => {
    const { page } = app;
    await page.getByTestId('nav-Schema').click();
    await expect.poll(() => page.getByTestId('schema-origin').textContent()).toBe('declared');
    await page.getByTestId('schema-column-race').click();
    await expect.poll(() => chartPoints(page, 'histogram-chart')).toBe(domain.race);
    expect(await page.getByTestId('histogram-chart').locator('canvas').count()).toBeGreaterThan(0);
    await page.getByTestId('schema-column-age').click();
    await expect.poll(() => chartPoints(page, 'histogram-chart')).toBe(domain.age);
    await shot(page, 'bench-2-schema');
  });

  it('builds every 3-way marginal over four features (r = k = 3)', async () => {
    const { page } = app;
    await page.getByTestId('nav-Workload').click();
    for (const f of FEATURES) await page.getByTestId(`wl-feature-${f}`).check();
    await page.getByTestId('wl-k').fill('3');
    await page.getByTestId('wl-r').fill('3');
    await expect(page.getByTestId('wl-add-subsets').textContent()).resolves.toBe('Add all 3-subsets');
    await page.getByTestId('wl-add-subsets').click();
    await expect.poll(() => stat(page, 'wl-count')).toBe('4');
    expect(await page.getByTestId('wl-notice').textContent()).toBe('Added 4 thresholds.');
    let total = 0;
    for (const row of await page.getByTestId('wl-row').all()) {
      const cells = (await row.locator('td').allTextContents()).map((c) => c.trim());
      const features = cells[1].split(', ');
      expect(features).toHaveLength(3);
      expect(cells[2]).toBe('3');
      expect(cells[3]).toBe('3');
      // A 3-way marginal has one query per cell of the feature's product domain.
      const cellsOfMarginal = features.reduce((p, f) => p * domain[f], 1);
      expect(num(cells[5])).toBe(cellsOfMarginal);
      total += cellsOfMarginal;
    }
    expect(num(await stat(page, 'wl-total-queries'))).toBe(total);
    await shot(page, 'bench-3-workload');
  });

  it('shows the cost before running; Run waits for a budget cap and says so', async () => {
    const { page } = app;
    await page.getByTestId('nav-Privacy').click();
    await page.getByTestId('privacy-epsilon').fill('1');
    await page.getByTestId('privacy-rows').fill('200');
    await page.getByTestId('privacy-rounds').fill('2');
    const reason = page.getByTestId('run-disabled-reason');
    await expect.poll(() => reason.getAttribute('data-blocker')).toBe('no-cap');
    expect(await reason.textContent()).toContain(
      'No privacy budget cap is set for this dataset: set one before the first run.',
    );
    expect(await page.getByTestId('run-button').isDisabled()).toBe(true);
    // The delta placeholder is 1/n² for this n.
    expect(await page.getByTestId('privacy-delta').getAttribute('placeholder')).toBe(
      `1/n² = ${(1 / CENSUS_ROWS ** 2).toExponential(2).replace('e-', 'e−')}`,
    );
    await page.getByTestId('cap-epsilon').fill('2');
    await page.getByTestId('cap-set').click();
    await expect.poll(() => page.getByTestId('run-disabled-reason').count()).toBe(0);
    // Run stays disabled while a re-plan is in flight (the cap change schedules one): poll.
    await expect.poll(() => page.getByTestId('run-button').isEnabled()).toBe(true);
    expect(await stat(page, 'plan-cost')).toBe('1');
    expect(await stat(page, 'plan-cap')).toBe('2');
    expect(await stat(page, 'plan-rounds')).toMatch(/^2 × \d+$/);
    const after = num(await stat(page, 'plan-remaining-after'));
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(2);
    await shot(page, 'bench-4-privacy');
  });

  it('runs: live charts, T = 2 rounds, the backend that ran', async () => {
    const { page, host } = app;
    await startRun(page, ['running', 'finished']);
    expect(ledgerCounts(host.ledgerPath).byStatus.reserved).toHaveLength(1);
    await waitForRunStatus(page, ['finished']);
    expect(await chartPoints(page, 'chart-loss')).toBeGreaterThan(0);
    expect(await chartPoints(page, 'chart-max-error')).toBe(2);
    expect(await page.getByTestId('chart-loss').locator('canvas').count()).toBeGreaterThan(0);
    expect(await stat(page, 'run-round')).toBe('100.0%');
    expect(await stat(page, 'run-backend')).toMatch(/cpu|wasm|node/);
    // One line on what ran and why: CPU threads, and why no GPU (this machine has none).
    expect(await page.getByTestId('run-backend-note').textContent()).toMatch(/^Engine: cpu, \d+ threads?;/);
    expect(await page.getByTestId('run-cancel').count()).toBe(0);
    await shot(page, 'bench-5-run');
  });

  it('shows errors below the All-0 baseline, per-threshold errors and a 2-way comparison', async () => {
    const { page } = app;
    await page.getByTestId('run-to-results').click();
    await page.getByTestId('res-present-rounded').waitFor({ timeout: 60_000 });
    const relaxed = num(await stat(page, 'res-present-relaxed'));
    const rounded = num(await stat(page, 'res-present-rounded'));
    const all0 = num(await stat(page, 'res-all0'));
    const gm = num(await stat(page, 'res-gm'));
    for (const e of [relaxed, rounded, all0, gm]) {
      expect(Number.isFinite(e)).toBe(true);
      expect(e).toBeGreaterThan(0);
      expect(e).toBeLessThanOrEqual(1); // errors are fractions of rows
    }
    expect(rounded).toBeLessThan(all0);
    expect(await chartPoints(page, 'chart-baselines')).toBe(4);
    expect(await chartPoints(page, 'chart-threshold-errors')).toBe(4);
    expect(await chartPoints(page, 'chart-profile')).toBeGreaterThan(0);
    await page.getByTestId('marginal-first').selectOption('race');
    await page.getByTestId('marginal-second').selectOption('sex');
    await expect.poll(() => chartPoints(page, 'chart-marginal')).toBe(domain.race * domain.sex);
    await shot(page, 'bench-6-results');
  });

  it('exports the rows in the input columns, inside the domain, and commits the release', async () => {
    const { page, host } = app;
    await page.getByTestId('nav-Export').click();
    const download = page.waitForEvent('download', { timeout: 120_000 });
    await page.getByTestId('export-button').click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8').trim().split(/\r?\n/);
    const header = lines[0].split(',');
    expect(header).toEqual(readFileSync(DATA, 'utf8').split(/\r?\n/, 1)[0].split(','));
    expect(lines.length - 1).toBe(200 * DEFAULT_OVERSAMPLE);
    for (const line of lines.slice(1)) {
      const values = line.split(',');
      header.forEach((h, j) => {
        const v = Number(values[j]);
        expect(Number.isInteger(v) && v >= 0 && v < domain[h]).toBe(true);
      });
    }
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    await expect.poll(() => page.getByTestId('export-sha').textContent()).toBe(sha);
    expect(ledgerCounts(host.ledgerPath).byStatus).toEqual({ committed: [expect.any(String)] });
    await shot(page, 'bench-7-export');
  });

  it('shows the committed release in the ledger, with the spend and a chain that verifies', async () => {
    const { page } = app;
    await page.getByTestId('nav-Ledger').click();
    const row = page.getByTestId('ledger-release-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getAttribute('data-status')).toBe('committed');
    expect(await stat(page, 'ledger-spent')).toBe('1');
    const remaining = num(await stat(page, 'ledger-remaining'));
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(2);
    expect(await chartPoints(page, 'chart-cumulative')).toBe(1);
    await page.getByTestId('ledger-verify').click();
    await expect.poll(() => page.getByTestId('ledger-verify-result').getAttribute('data-ok')).toBe('true');
    await shot(page, 'bench-8-ledger');
  });
});

if (skipReason !== null) {
  it.skip(`the benchmark-format flow: skipped because ${skipReason}`, () => {});
}
