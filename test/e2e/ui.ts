/**
 * What a person sees, read the way the e2e specs need it: stat tiles, chart point counts, the
 * error banner, and the steps a curator clicks through. Shared by the e2e specs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { type RunningHost, screenshotDir } from './harness.ts';

/** A number as the screen writes it ("32,561", "0.123", "4.19e−10" with a typographic minus). */
export const num = (text: string | null): number =>
  Number((text ?? '').replace(/−/g, '-').replace(/[^\d.e+-]/g, ''));

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Clicks the button `testid` and returns the text of the file it downloads. */
export async function downloadText(page: Page, testid: string): Promise<string> {
  const download = page.waitForEvent('download');
  await page.getByTestId(testid).click();
  return readFileSync(await (await download).path(), 'utf8');
}

/** The value of a stat tile. */
export async function stat(page: Page, testid: string): Promise<string> {
  return (await page.getByTestId(testid).locator('.stat-value').textContent())?.trim() ?? '';
}

/** How many data points a chart holds (ChartFigure's data-points). */
export async function chartPoints(page: Page, testid: string): Promise<number> {
  return Number(await page.getByTestId(testid).getAttribute('data-points'));
}

/** The error banner as shown, or null when none is shown. */
export async function banner(page: Page): Promise<{ kind: string | null; message: string } | null> {
  const b = page.getByTestId('error-banner');
  if ((await b.count()) === 0) return null;
  return {
    kind: await b.getAttribute('data-kind'),
    message: ((await page.getByTestId('error-message').textContent()) ?? '').trim(),
  };
}

/** Waits for the error banner to show exactly this message (and kind). */
export async function expectBanner(
  page: Page,
  kind: string,
  message: string,
  timeout = 60_000,
): Promise<void> {
  await expect.poll(() => banner(page), { timeout, interval: 100 }).toEqual({ kind, message });
}

export interface Viewport {
  readonly width: number;
  readonly height: number;
}

/** A page of its own (a fresh context that accepts downloads) with the app loaded on `host`. */
export async function openApp(
  browser: Browser,
  host: RunningHost,
  viewport: Viewport = { width: 1360, height: 900 },
): Promise<Page> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  await gotoApp(page, host);
  return page;
}

/** Loads the app from `host` in `page` and waits until it has started in web mode. */
export async function gotoApp(page: Page, host: RunningHost): Promise<void> {
  await page.goto(host.url);
  await page.getByTestId('app-meta').filter({ hasText: 'web mode' }).waitFor({ timeout: 30_000 });
}

/**
 * Opens a file on the Data step (optionally with a benchmark domain file chosen first), and
 * waits until loading is over: either the summary of the new file or an error banner.
 */
export async function openFile(page: Page, file: string, opts: { domain?: string } = {}): Promise<void> {
  await page.getByTestId('nav-Data').click();
  if (opts.domain) await page.getByTestId('data-domain-file').setInputFiles(opts.domain);
  const before = await textNow(page, 'data-file-name');
  await page.getByTestId('data-file-input').setInputFiles(file);
  await waitFor(
    'the file to load or be refused',
    async () => {
      if ((await page.getByTestId('load-progress').count()) > 0) return undefined;
      if ((await page.getByTestId('error-banner').count()) > 0) return true;
      const name = await textNow(page, 'data-file-name');
      return name !== null && name !== before ? true : undefined;
    },
    180_000,
    200,
  );
  // A header found by a guess is asked about; these files have one.
  if ((await page.getByTestId('data-header-ask').count()) > 0) {
    await page.getByTestId('data-header-yes').click();
    await page.getByTestId('data-header-ask').waitFor({ state: 'detached', timeout: 30_000 });
  }
}

/** The text of an element if it is on the page now (no auto-waiting), else null. */
export async function textNow(page: Page, testid: string): Promise<string | null> {
  const l = page.getByTestId(testid).first();
  if ((await l.count()) === 0) return null;
  // It may go between the two calls (Vue re-renders): gone is null, not a 30 s wait.
  return l.textContent({ timeout: 1000 }).catch(() => null);
}

/** Waits for the run to reach one of `statuses` (the badge's data-status). */
export async function waitForRunStatus(
  page: Page,
  statuses: readonly string[],
  timeout = 300_000,
): Promise<string> {
  let last: string | null = null;
  try {
    return await waitFor(
      `the run to be ${statuses.join(' or ')}`,
      async () => {
        const badge = page.getByTestId('run-status');
        last = (await badge.count()) > 0 ? await badge.getAttribute('data-status') : null;
        if (last !== null && statuses.includes(last)) return last;
        // A run that ended otherwise will not get there: say how it ended, now.
        if (last !== null && TERMINAL.includes(last)) {
          const why = (await textNow(page, 'run-error')) ?? (await banner(page))?.message ?? '';
          throw new Error(`the run ended ${last}, not ${statuses.join(' or ')}: ${why}`);
        }
        return undefined;
      },
      timeout,
      250,
    );
  } catch (err) {
    const shown = (await banner(page))?.message;
    throw new Error(`${(err as Error).message} (last status ${last}; banner: ${shown ?? 'none'})`);
  }
}

const TERMINAL = ['finished', 'failed', 'cancelled', 'exported'];

export interface RunSetup {
  /** Features ticked on the Workload step, and how thresholds are built from them. */
  readonly features: readonly string[];
  readonly k: number;
  readonly r: number;
  readonly epsilon: string;
  readonly rows: string;
  readonly rounds: string;
  readonly perRound?: string;
  /** Cap ε to set when the dataset has none. */
  readonly cap?: string;
}

/**
 * From an open dataset to an enabled Run button: every k-subset of the features as r-of-k
 * thresholds, the settings, and a cap when none is set.
 */
export async function prepareRun(page: Page, s: RunSetup): Promise<void> {
  await page.getByTestId('nav-Workload').click();
  for (const f of s.features) await page.getByTestId(`wl-feature-${f}`).check();
  await page.getByTestId('wl-k').fill(String(s.k));
  await page.getByTestId('wl-r').fill(String(s.r));
  await page.getByTestId('wl-add-subsets').click();
  await waitFor('the thresholds', async () => ((await stat(page, 'wl-count')) !== '0' ? true : undefined));
  await page.getByTestId('nav-Privacy').click();
  await page.getByTestId('privacy-epsilon').fill(s.epsilon);
  await page.getByTestId('privacy-rows').fill(s.rows);
  await page.getByTestId('privacy-rounds').fill(s.rounds);
  await page.getByTestId('privacy-per-round').fill(s.perRound ?? '');
  if (s.cap !== undefined) {
    await waitFor('the plan', async () =>
      (await page.getByTestId('plan-cap').count()) > 0 ? true : undefined,
    );
    await waitFor('the cap form', async () => {
      if ((await textNow(page, 'run-disabled-reason')) === null) return true;
      return (await page.getByTestId('cap-form').count()) > 0 ? true : undefined;
    });
    if ((await page.getByTestId('cap-form').count()) > 0) {
      await page.getByTestId('cap-epsilon').fill(s.cap);
      await page.getByTestId('cap-set').click();
    }
  }
  await waitForRunEnabled(page);
}

/**
 * Waits until the Privacy step's plan is current (asked for after the last edit: the step marks
 * it stale on every change, before its re-plan pause) and Run is enabled with no reason against it.
 */
export async function waitForRunEnabled(page: Page): Promise<void> {
  await waitFor('a current plan and the Run button enabled', async () =>
    (await page.getByTestId('plan-panel').getAttribute('data-plan')) === 'current' &&
    (await textNow(page, 'run-disabled-reason')) === null &&
    (await page.getByTestId('run-button').isEnabled())
      ? true
      : undefined,
  );
}

/**
 * Presses Run and waits until the run reaches one of `statuses`. A click can land in the moment
 * between the actionability check and the mouse event in which a late re-plan disables the button
 * (the step marks the plan stale on any change): such a click starts nothing, shows no banner and
 * leaves the button enabled again once the plan is current, so it is pressed again. A refusal
 * (the error banner) fails at once with its message.
 */
export async function startRun(page: Page, statuses: readonly string[] = ['running']): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    await waitForRunEnabled(page);
    const before = (await banner(page))?.message ?? null;
    await page.getByTestId('run-button').click();
    // A taken click shows "Reserving the budget…" (the button disabled), then the Run step.
    const outcome = await waitFor(
      'the run to start',
      async () => {
        if ((await page.getByTestId('run-status').count()) > 0) return 'started';
        const now = (await banner(page))?.message ?? null;
        if (now !== null && now !== before) throw new Error(`Run was refused: ${now}`);
        return undefined;
      },
      5_000,
      100,
    ).catch((err: Error) => {
      if (err.message.startsWith('Run was refused')) throw err;
      return 'not yet';
    });
    if (outcome === 'started' || attempt === 3) break;
    const lost =
      (await page.getByTestId('run-status').count()) === 0 &&
      (await page.getByTestId('run-button').count()) > 0 &&
      (await page.getByTestId('run-button').isEnabled());
    if (!lost) break;
  }
  await page.getByTestId('run-status').waitFor({ timeout: 60_000 });
  return waitForRunStatus(page, statuses);
}
