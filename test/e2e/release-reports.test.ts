/**
 * The release reports in the app, on the raw ADULT file, as a curator meets them in Chromium:
 * the Results step opens with a verdict (score, validity, 20 released rows) drawn from the kept
 * report; the export writes NAME.report.html (public) and NAME.REPORT.private.html (0600) beside
 * the CSV; both open offline — every request but the file itself is blocked and none is made —
 * with their charts drawn, and print to PDF; after a restart the kept release shows the same
 * verdict and the same private report. Screenshots (1280×800) and PDFs go to
 * test-results/screenshots/.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportView, ReleaseReportView } from '../../src/shared/api.ts';
import { runCli } from '../support/cli.ts';
import { callApi, chromiumAvailable, launchBrowser, repoRoot, screenshotDir } from './harness.ts';
import { openFile, prepareRun, startRun, stat } from './ui.ts';
import { useApp } from './use-app.ts';

const ADULT = join(repoRoot, '../shared/datasets/adult-raw/adult.data');
const skipReason = !chromiumAvailable()
  ? 'Chromium is not installed'
  : !existsSync(ADULT)
    ? `the raw ADULT file is missing (${ADULT})`
    : null;

const VIEW = { width: 1280, height: 800 };

describe.skipIf(skipReason !== null)('release reports in the app (raw ADULT)', () => {
  const hostIn = (dir: string) => ({ ledgerPath: join(dir, 'ledger.sqlite'), workDir: join(dir, 'work') });
  const app = useApp({ name: 'reports', host: hostIn, page: VIEW });
  let runId = '';
  let before: ReleaseReportView;
  let exported: ExportView;

  const shot = (p: Page, name: string, fullPage = false) =>
    p.screenshot({ path: join(screenshotDir, `reports-${name}.png`), fullPage });

  it('the Results step opens with the verdict: score, validity, 20 released rows', async () => {
    const { page, host } = app;
    await openFile(page, ADULT);
    await prepareRun(page, {
      features: ['age', 'workclass', 'education', 'marital-status', 'sex', 'hours-per-week'],
      k: 2,
      r: 2,
      epsilon: '1',
      rows: '300',
      rounds: '2',
      cap: '4',
    });
    await startRun(page, ['finished']);
    const state = await callApi(host, 'runState', {});
    runId = state.ok && state.result ? state.result.runId : '';
    // One ε on every screen: the one chosen, not synthesis's part of it.
    expect(state.ok && state.result?.epsilon).toBe(1);
    await page.getByTestId('nav-Results').click();
    await page.getByTestId('verdict').waitFor({ timeout: 60_000 });
    const score = await stat(page, 'verdict-score');
    expect(score).toMatch(/^\d+(\.\d)?%$/);
    expect(await page.getByTestId('verdict-validity').locator('li').count()).toBe(3);
    expect(await page.getByTestId('verdict-preview').locator('tbody tr').count()).toBe(20);
    const r = await callApi(host, 'releaseReport', { runId });
    expect(r.ok).toBe(true);
    before = r.ok ? r.result : (undefined as never);
    expect(score).toBe(`${(100 * before.data!.score.overall).toFixed(1)}%`);
    await shot(page, 'results-verdict');
    // The full private report inside the app: the same HTML, its charts drawn.
    await page.getByTestId('report-toggle').click();
    const frame = page.frameLocator('[data-testid="report-frame"]');
    await expect.poll(() => frame.locator('svg').count(), { timeout: 30_000 }).toBeGreaterThan(10);
  });

  it('the export writes both reports beside the CSV: the private one 0600', async () => {
    const { page, host } = app;
    await page.getByTestId('nav-Export').click();
    const download = page.waitForEvent('download');
    await page.getByTestId('export-button').click();
    await download;
    await page.getByTestId('export-private-report').waitFor({ timeout: 60_000 });
    const state = await callApi(host, 'runState', {});
    exported = state.ok && state.result?.exported ? state.result.exported : (undefined as never);
    expect(exported.reports).toBeTruthy();
    const { publicPath, privatePath } = exported.reports!;
    expect(publicPath.endsWith('-synthetic.report.html')).toBe(true);
    expect(privatePath.endsWith('-synthetic.REPORT.private.html')).toBe(true);
    expect(statSync(privatePath).mode & 0o777).toBe(0o600);
    expect(readFileSync(privatePath, 'utf8')).toBe(before.privateHtml);
    // The public report's values are the manifest's (the unit tests check every one).
    const manifest = JSON.parse(readFileSync(exported.manifestPath, 'utf8'));
    const pub = readFileSync(publicPath, 'utf8');
    expect(pub).toContain(`data-m="privacy.epsilon">1<`);
    expect(pub).toContain(`data-m="dataset.rows">${manifest.dataset.rows}<`);
    await shot(page, 'export');
  });

  for (const which of ['public', 'private'] as const) {
    it(`the ${which} report opens offline, draws its charts and prints to PDF`, async () => {
      const { browser } = app;
      const file = which === 'public' ? exported.reports!.publicPath : exported.reports!.privatePath;
      const { page: p, requests } = await openOffline(browser, file);
      const charts = await p.locator('svg').count();
      if (which === 'private') {
        expect(charts).toBeGreaterThan(10);
        // Drawn, not empty: the bars and lines are there.
        expect(await p.locator('svg path').count()).toBeGreaterThan(200);
        await expect(p.locator('[data-section="verdict"]').textContent()).resolves.toContain('Overall score');
      } else {
        expect(charts).toBe(0);
        await expect(p.locator('[data-section="guarantee"]').textContent()).resolves.toContain('ε = 1');
      }
      expect(requests).toEqual([]);
      await shot(p, which);
      await shot(p, `${which}-full`, true);
      await p.emulateMedia({ media: 'print' });
      const pdf = await p.pdf({
        path: join(screenshotDir, `reports-${which}.pdf`),
        format: 'A4',
        printBackground: true,
      });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      await p.context().close();
    });
  }

  it('the Ledger step: the per-dataset timeline, its CSV and its printable page', async () => {
    const { page, host, browser } = app;
    await page.getByTestId('nav-Ledger').click();
    await page.getByTestId('ledger-release-row').first().waitFor();
    const overview = await callApi(host, 'ledgerOverview', {});
    const fingerprint = overview.ok ? overview.result.datasets[0].fingerprint : '';
    const csv = await callApi(host, 'ledgerTimeline', { fingerprint, format: 'csv' });
    const lines = csv.ok ? csv.result.text.trim().split(/\r?\n/) : [];
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(',committed,1,');
    // Never the raw fingerprint of the private file.
    expect(csv.ok && csv.result.text).not.toContain(fingerprint);
    await page.getByTestId('ledger-timeline-page').click();
    const frame = page.frameLocator('[data-testid="ledger-printable-frame"]');
    await expect
      .poll(() => frame.locator('tr[data-status="committed"]').count(), { timeout: 30_000 })
      .toBe(1);
    await page.getByTestId('ledger-printable').scrollIntoViewIfNeeded();
    await shot(page, 'ledger');
    await shot(page, 'ledger-full', true);
    // The printable page itself, offline, printed to PDF.
    const html = await callApi(host, 'ledgerTimeline', { fingerprint, format: 'html' });
    const file = join(app.dir, 'timeline.html');
    writeFileSync(file, html.ok ? html.result.text : '');
    expect(html.ok && html.result.text).not.toContain(fingerprint);
    const context = await browser.newContext({ viewport: VIEW, offline: true });
    const p = await context.newPage();
    await p.goto(`file://${file}`);
    await p.screenshot({ path: join(screenshotDir, 'reports-ledger-timeline.png') });
    await p.emulateMedia({ media: 'print' });
    await p.pdf({
      path: join(screenshotDir, 'reports-ledger-timeline.pdf'),
      format: 'A4',
      printBackground: true,
    });
    await context.close();
  });

  it('after a restart the kept release shows the same verdict and the same private report', async () => {
    await app.restart(hostIn(app.dir));
    const { page, host } = app;
    await page.getByTestId('nav-Results').click();
    await page.getByTestId('kept-releases').waitFor({ timeout: 30_000 });
    await page.getByTestId('kept-inspect').first().click();
    await page.getByTestId('verdict').waitFor({ timeout: 30_000 });
    expect(await stat(page, 'verdict-score')).toBe(`${(100 * before.data!.score.overall).toFixed(1)}%`);
    const after = await callApi(host, 'releaseReport', { runId });
    expect(after.ok && after.result.privateHtml).toBe(before.privateHtml);
    expect(after.ok && after.result.data).toEqual(before.data);
    await shot(page, 'results-after-restart');
  });
});

/** Opens a report from disk with every request but the file itself blocked; counts what was asked for. */
async function openOffline(browser: Browser, file: string): Promise<{ page: Page; requests: string[] }> {
  const context = await browser.newContext({ viewport: VIEW, offline: true });
  const requests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === `file://${file}`) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('request', (req) => {
    if (req.url() !== `file://${file}`) requests.push(req.url());
  });
  await page.goto(`file://${file}`);
  await page.waitForLoadState('load');
  return { page, requests };
}

describe.skipIf(skipReason !== null)('release reports through the CLI (raw ADULT)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rap-e2e-cli-reports-'));
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('synth writes both reports; they open offline with their charts drawn', async () => {
    const cli = (args: string[]) => runCli([...args], dir);
    const w = await cli([
      'workload',
      'random',
      '--data',
      ADULT,
      '--header',
      'yes',
      '--k',
      '3',
      '--r',
      '2',
      '--size',
      '8',
      '--seed',
      '3',
      '--out',
      'w.json',
    ]);
    expect(w.code, w.stderr).toBe(0);
    const cap = await cli([
      'ledger',
      'set-cap',
      '--dataset',
      ADULT,
      '--epsilon',
      '2',
      '--delta',
      '1e-9',
      '--ledger',
      'l.db',
    ]);
    expect(cap.code, cap.stderr).toBe(0);
    const synth = await cli([
      'synth',
      '--data',
      ADULT,
      '--header',
      'yes',
      '--workload',
      'w.json',
      '--epsilon',
      '1',
      '--rows',
      '300',
      '--rounds',
      '2',
      '--out',
      'adult-synthetic.csv',
      '--ledger',
      'l.db',
    ]);
    expect(synth.code, synth.stderr).toBe(0);
    expect(synth.stderr).not.toMatch(/vulkan/i);
    for (const which of ['report', 'REPORT.private'] as const) {
      const file = join(dir, `adult-synthetic.${which}.html`);
      expect(existsSync(file)).toBe(true);
      const { page: p, requests } = await openOffline(browser, file);
      if (which === 'REPORT.private') {
        expect(await p.locator('svg').count()).toBeGreaterThan(10);
        expect(await p.locator('svg path').count()).toBeGreaterThan(200);
      } else {
        await expect(p.locator('[data-section="guarantee"]').textContent()).resolves.toContain('ε = 1');
      }
      expect(requests).toEqual([]);
      await p.screenshot({
        path: join(screenshotDir, `reports-cli-${which === 'report' ? 'public' : 'private'}.png`),
      });
      await p.context().close();
    }
  });
});
