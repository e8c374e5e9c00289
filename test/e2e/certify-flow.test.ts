/**
 * The accuracy certificate in the app (issue 30), as a curator does it in Chromium: the Privacy
 * step's Advanced section asks for the relative-error pass at ζ = 0.25; before Run the plan shows
 * its cost (its share of ρ, taken out of the synthesis: the run's ρ does not change) and the α it
 * will certify; after the run the Results step shows the certificate's sentence.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wideCsv } from './fixtures.ts';
import { chromiumAvailable } from './harness.ts';
import { num, openFile, prepareRun, shot, startRun, stat, waitForRunEnabled } from './ui.ts';
import { useApp } from './use-app.ts';

const skipReason = chromiumAvailable() ? null : 'Chromium is not installed';

describe.skipIf(skipReason !== null)('the accuracy certificate in the app', () => {
  const app = useApp({
    name: 'certify',
    prepare: (dir) => writeFileSync(join(dir, 'wide.csv'), wideCsv(1500)),
  });

  it('shows the pass’s cost and α before Run, the run’s ρ unchanged', async () => {
    const { page } = app;
    await openFile(page, join(app.dir, 'wide.csv'));
    await prepareRun(page, {
      features: ['a', 'b', 'c'],
      k: 2,
      r: 2,
      epsilon: '20',
      rows: '100',
      rounds: '',
      cap: '100',
    });
    const rhoText = await stat(page, 'plan-rho');
    const rho = num(rhoText);
    expect(await page.getByTestId('plan-certify').count()).toBe(0);
    await page.locator('details.advanced summary').first().click();
    await page.getByTestId('privacy-certify').fill('0.25');
    await page.getByTestId('plan-certify').waitFor({ timeout: 30_000 });
    await waitForRunEnabled(page);
    expect(await stat(page, 'plan-rho')).toBe(rhoText);
    // Discovered columns: the pass takes a tenth (the default share) of what discovery leaves,
    // and the synthesis tile shows the rest (3 significant digits each).
    const cost = num(await stat(page, 'plan-certify-cost'));
    const synthesis = num(await stat(page, 'plan-synthesis'));
    expect(cost / (cost + synthesis)).toBeCloseTo(0.1, 2);
    expect(cost).toBeLessThan(0.1 * rho);
    // α is an estimate until discovery has fixed the number of queries.
    expect(await stat(page, 'plan-certify-alpha')).toMatch(/^\(1 ± 0\.25\)·q ± ≈/);
    await shot(page, 'certify-1-privacy');
    await startRun(page, ['finished']);
  });

  it('shows the certificate on the Results step', async () => {
    const { page } = app;
    await page.getByTestId('nav-Results').click();
    await page.getByTestId('res-certificate').waitFor({ timeout: 60_000 });
    const sentence = (await page.getByTestId('res-certificate-statement').textContent()) ?? '';
    expect(sentence).toMatch(
      /With probability ≥ 0\.95, every one of the workload's \d+ queries|of the workload's \d+ queries/,
    );
    expect(sentence).toMatch(/\(1 ± 0\.25\)·q\(D\)/);
    await shot(page, 'certify-2-results');
  });
});

if (skipReason !== null) {
  it.skip(`the accuracy certificate in the app: skipped because ${skipReason}`, () => {});
}
