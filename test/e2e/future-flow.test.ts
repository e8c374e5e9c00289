/**
 * Partial knowledge in the app (issue 21), as a curator does it in Chromium: a historical
 * workload (every 2-way marginal of four features), a drifted evaluation workload made on the
 * Workload step's evaluation tab (γ = 1: the features history asked least about), a query-mode
 * run with adaptive selection and the softmax relaxation chosen in the Advanced section, and the
 * Results screen showing future error beside present error with the All-0 and GM baselines,
 * per threshold.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { wideCsv } from './fixtures.ts';
import { chromiumAvailable } from './harness.ts';
import { num, openFile, shot, startRun, stat } from './ui.ts';
import { useApp } from './use-app.ts';

const skipReason = chromiumAvailable() ? null : 'Chromium is not installed';
const HISTORY = ['a', 'b', 'c', 'd'] as const;

describe.skipIf(skipReason !== null)('future workloads in the app', () => {
  const app = useApp({
    name: 'future',
    prepare: (dir) => writeFileSync(join(dir, 'wide.csv'), wideCsv(1500)),
  });

  it('builds a historical workload and a drifted evaluation workload from it', async () => {
    const { page } = app;
    await openFile(page, join(app.dir, 'wide.csv'));
    await page.getByTestId('nav-Workload').click();
    for (const f of HISTORY) await page.getByTestId(`wl-feature-${f}`).check();
    await page.getByTestId('wl-k').fill('2');
    await page.getByTestId('wl-r').fill('2');
    await page.getByTestId('wl-add-subsets').click();
    await expect.poll(() => stat(page, 'wl-count')).toBe('6');
    await page.getByTestId('wl-tab-eval').click();
    expect(await page.getByTestId('wl-drift-card').isVisible()).toBe(true);
    await page.getByTestId('wl-random-size').fill('4');
    await page.getByTestId('wl-drift').fill('1');
    await page.getByTestId('wl-add-drifted').click();
    await expect.poll(() => stat(page, 'wl-count')).toBe('4');
    // γ = 1 reverses the history's ranking: the features it never asked about come first.
    const features = await page.getByTestId('wl-row').locator('td:nth-child(2)').allTextContents();
    expect(features).toHaveLength(4);
    for (const f of features)
      expect(f.split(', ').some((x) => !(HISTORY as readonly string[]).includes(x))).toBe(true);
    await shot(page, 'future-1-eval-workload');
  });

  it('runs in query mode with adaptive selection and the softmax relaxation', async () => {
    const { page } = app;
    await page.getByTestId('nav-Privacy').click();
    await page.getByTestId('privacy-epsilon').fill('1');
    await page.getByTestId('privacy-rows').fill('100');
    await page.getByTestId('privacy-rounds').fill('2');
    await page.locator('details.advanced summary').first().click();
    await page.getByTestId('privacy-mode').selectOption('query');
    await page.getByTestId('privacy-selection').selectOption('adaptive');
    await page.getByTestId('privacy-relaxation').selectOption('softmax');
    // Query mode over privately discovered columns needs K given (its default rule reads the
    // domain sizes, known only after discovery).
    await page.getByTestId('privacy-per-round').fill('4');
    await waitFor('the cap form', async () =>
      (await page.getByTestId('cap-form').count()) > 0 ? true : undefined,
    );
    await page.getByTestId('cap-epsilon').fill('3');
    await page.getByTestId('cap-set').click();
    await startRun(page, ['finished']);
  });

  it('shows future error beside present error, each with All-0 and GM, per threshold', async () => {
    const { page } = app;
    await page.getByTestId('nav-Results').click();
    await page.getByTestId('res-errors').waitFor({ timeout: 60_000 });
    const row = async (id: string) =>
      (await page.getByTestId(id).locator('td').allTextContents()).map((t) => num(t));
    const present = await row('res-errors-present');
    const future = await row('res-errors-future');
    expect(present).toHaveLength(4);
    expect(future).toHaveLength(4);
    for (const values of [present, future]) {
      const [relaxed, released, all0, gm] = values;
      // A small discovered domain can be fitted exactly (error 0); the baselines never are.
      for (const v of values) expect(v).toBeGreaterThanOrEqual(0);
      expect(all0).toBeGreaterThan(0);
      expect(gm).toBeGreaterThan(0);
      expect(relaxed).toBeLessThan(all0);
      expect(released).toBeLessThan(all0);
      expect(gm).toBeLessThan(all0);
    }
    // The future stat tile shows the released future error.
    expect(num(await stat(page, 'res-future'))).toBeCloseTo(future[1], 2);
    await expect.poll(() => page.getByTestId('res-future-row').count()).toBe(4);
    expect(await page.getByTestId('res-present-row').count()).toBe(6);
    const first = await page.getByTestId('res-future-row').first().locator('td').allTextContents();
    expect(first[0]).toMatch(/^#1 2-of-\{.+\}$/);
    await shot(page, 'future-2-results');
  });
});

if (skipReason !== null) {
  it.skip(`future workloads in the app: skipped because ${skipReason}`, () => {});
}
