/**
 * Faults during a run, through the UI, with the real engine process: killed from outside, then
 * a cancel (engine gone within 2 s), then the host itself killed mid-run and started again on
 * the same ledger. After each: what the curator sees, whether the app still works, and that
 * the ledger counts every reserved spend (nothing lost, nothing double-counted, chain intact).
 *
 * The dataset is small (2,000 rows) but the run is long (T = 1,000 rounds of K = 1 over 120
 * thresholds: a minute or more even on an idle machine), so there is time to act while the
 * engine works; no test waits for such a run to finish.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eps } from '../../src/renderer/src/lib/format.ts';
import type { RunView } from '../../src/shared/api.ts';
import { cpuSecondsOf, isAlive, waitFor } from '../support/processes.ts';
import { WIDE_COLUMNS, wideCsv } from './fixtures.ts';
import { callApi, chromiumAvailable, ledgerCounts } from './harness.ts';
import {
  banner,
  chartPoints,
  expectBanner,
  openFile,
  prepareRun,
  shot,
  startRun,
  stat,
  textNow,
  waitForRunStatus,
} from './ui.ts';
import { useApp } from './use-app.ts';

const ABORTED_TAIL = 'was marked aborted; its privacy spend stays counted in the ledger.';

describe.skipIf(!chromiumAvailable())('faults during a run', () => {
  const app = useApp({
    name: 'faults',
    prepare: (dir) => writeFileSync(join(dir, 'wide.csv'), wideCsv()),
    host: (dir) => ({ ledgerPath: join(dir, 'ledger.sqlite'), workDir: join(dir, 'work-1') }),
  });
  const csv = () => join(app.dir, 'wide.csv');

  /** The run the host holds, once its engine process is up and has reported progress. */
  async function engineAtWork(): Promise<RunView & { enginePid: number; releaseId: string }> {
    const { page, host } = app;
    const run = await waitFor(
      'the engine process to report progress',
      async () => {
        const r = await callApi(host, 'runState', {});
        const view = r.ok ? r.result : null;
        return view?.status === 'running' && view.enginePid !== null && view.history.length > 0
          ? view
          : undefined;
      },
      180_000,
      100,
    );
    expect(isAlive(run.enginePid!)).toBe(true);
    await waitFor('the loss chart to show data', async () =>
      (await chartPoints(page, 'chart-loss')) > 0 ? true : undefined,
    );
    return run as RunView & { enginePid: number; releaseId: string };
  }

  beforeAll(async () => {
    const { page } = app;
    await openFile(page, csv());
    await prepareRun(page, {
      features: WIDE_COLUMNS,
      k: 3,
      r: 2,
      epsilon: '0.5',
      rows: '2000',
      rounds: '1000',
      perRound: '1',
      cap: '3',
    });
  });

  it('the engine killed from outside: the UI says so, the app keeps working, the release is aborted', async () => {
    const { page, host } = app;
    await startRun(page, ['running']);
    const run = await engineAtWork();
    process.kill(run.enginePid, 'SIGKILL');
    await waitForRunStatus(page, ['failed'], 60_000);
    expect(await textNow(page, 'run-error')).toBe(
      'The engine process ended unexpectedly (killed with SIGKILL: out of memory, or killed from outside). ' +
        `Release ${run.releaseId} ${ABORTED_TAIL}`,
    );
    expect(await page.getByTestId('run-cancel').count()).toBe(0);
    await shot(page, 'fault-1-engine-killed');
    // The app is still there and answers.
    expect(host.process.exitCode).toBeNull();
    expect((await callApi(host, 'appInfo', {})).ok).toBe(true);
    const l = ledgerCounts(host.ledgerPath);
    expect(l.byStatus).toEqual({ aborted: [run.releaseId] });
    expect(l.spentRho).toBeCloseTo(run.rho, 12);
    await page.getByTestId('nav-Ledger').click();
    await page.getByTestId('ledger-verify').click();
    await waitFor('the verify result', async () =>
      (await page.getByTestId('ledger-verify-result').getAttribute('data-ok')) === 'true' ? true : undefined,
    );
    const row = page.getByTestId('ledger-release-row');
    expect(await row.getAttribute('data-status')).toBe('aborted');
    expect(await row.textContent()).toContain('engine process ended unexpectedly (signal SIGKILL)');
  });

  it('cancel mid-run: the engine stops working at once and is gone, the spend counted, the UI back to a clean state', async () => {
    const { page, host } = app;
    // The next action after the crash: a new run from the same screen.
    await page.getByTestId('nav-Privacy').click();
    await waitFor('the Run button', async () =>
      (await page.getByTestId('run-button').isEnabled()) &&
      (await textNow(page, 'run-disabled-reason')) === null
        ? true
        : undefined,
    );
    await startRun(page, ['running']);
    const run = await engineAtWork();
    await shot(page, 'fault-2-running');
    const cancelled = page.waitForResponse((r) => r.url().endsWith('/api/cancelRun'));
    await page.getByTestId('run-cancel').click();
    await cancelled;
    // A CPU bound, not a wall-clock one: after the cancel is answered the engine stops at its next
    // step and exits, so it burns little more CPU (an engine that ignored the cancel would work on
    // every thread until the client's kill timer). Sampled every 10 ms until the process is gone.
    const atCancel = cpuSecondsOf(run.enginePid);
    let last = atCancel;
    await waitFor(
      'the engine process to end',
      () => {
        const now = cpuSecondsOf(run.enginePid);
        if (now !== null) last = now;
        return now === null || !isAlive(run.enginePid) ? true : undefined;
      },
      60_000,
      10,
    );
    expect(atCancel, `engine ${run.enginePid} gone before the cancel answer`).not.toBeNull();
    expect(last! - atCancel!, `CPU seconds engine ${run.enginePid} used after the cancel`).toBeLessThan(0.5);

    await waitForRunStatus(page, ['cancelled'], 30_000);
    expect(await textNow(page, 'run-error')).toBe(
      `The run was cancelled. Release ${run.releaseId} ${ABORTED_TAIL}`,
    );
    expect(await page.getByTestId('run-cancel').count()).toBe(0);
    expect(await page.getByTestId('topbar-run').count()).toBe(0);
    expect(await banner(page)).toBeNull();
    await shot(page, 'fault-2-cancelled');
    const l = ledgerCounts(host.ledgerPath);
    expect(l.byStatus.aborted).toEqual([expect.any(String), run.releaseId]);
    expect(l.releases).toBe(2);
    // Clean state: Run is offered again, the plan counts both spends.
    await page.getByTestId('nav-Privacy').click();
    await waitFor('the Run button', async () =>
      (await page.getByTestId('run-button').isEnabled()) &&
      (await textNow(page, 'run-disabled-reason')) === null
        ? true
        : undefined,
    );
    expect(await page.getByTestId('plan-panel').textContent()).toContain('2 releases');
  });

  it('the host killed mid-run and started again on the same ledger: the run is counted as spent', async () => {
    let { page, host } = app;
    await startRun(page, ['running']);
    const run = await engineAtWork();
    const before = ledgerCounts(host.ledgerPath);
    expect(before.byStatus.reserved).toEqual([run.releaseId]);

    const exited = new Promise((ok) => host.process.once('exit', ok));
    host.process.kill('SIGKILL');
    await exited;
    // The orphaned engine notices that its parent is gone and ends by itself.
    await waitFor(
      'the orphaned engine to exit',
      () => (isAlive(run.enginePid) ? undefined : true),
      30_000,
      50,
    );
    // The open page finds no host and says what to do.
    await page.getByTestId('nav-Ledger').click();
    await page.getByTestId('ledger-refresh').click();
    await expectBanner(
      page,
      'internal',
      'The local RAP Studio host does not answer: is it still running? Start it again, then reload this page.',
    );
    await shot(page, 'fault-3-host-gone');

    expect(ledgerCounts(host.ledgerPath)).toEqual(before);
    await app.restart({ ledgerPath: host.ledgerPath, workDir: join(app.dir, 'work-2') });
    ({ page, host } = app);
    await page.getByTestId('nav-Ledger').click();
    const rows = page.getByTestId('ledger-release-row');
    await waitFor('the ledger rows', async () => ((await rows.count()) === 3 ? true : undefined));
    const statuses = await Promise.all((await rows.all()).map((r) => r.getAttribute('data-status')));
    expect(statuses.sort()).toEqual(['aborted', 'aborted', 'reserved']);
    expect(await page.locator(`[data-release="${run.releaseId}"]`).getAttribute('data-status')).toBe(
      'reserved',
    );
    const overview = await callApi(host, 'ledgerOverview', {});
    if (!overview.ok) throw new Error(overview.error.message);
    const budget = overview.result.datasets[0].budget;
    expect(budget.releases).toBe(3);
    expect(budget.spentRho).toBeCloseTo(before.spentRho, 12);
    expect(await stat(page, 'ledger-spent')).toBe(eps(budget.spentEpsilon));
    expect(await stat(page, 'ledger-release-count')).toBe('3');
    await page.getByTestId('ledger-verify').click();
    await waitFor('the verify result', async () =>
      (await page.getByTestId('ledger-verify-result').getAttribute('data-ok')) === 'true' ? true : undefined,
    );
    await shot(page, 'fault-3-restarted-ledger');

    // Opening the file again shows the same spend before any new run.
    await openFile(page, csv());
    expect(await stat(page, 'data-budget-spent')).toBe(eps(budget.spentEpsilon));
    const releases = page
      .getByTestId('data-budget')
      .locator('.stat', { hasText: 'Releases' })
      .locator('.stat-value');
    expect(await releases.textContent()).toBe('3');
  });
});

if (!chromiumAvailable()) {
  it.skip('faults during a run: skipped because Chromium is not installed', () => {});
}
