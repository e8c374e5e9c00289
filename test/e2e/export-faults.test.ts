/**
 * Exports that cannot be written, through the UI: a read-only export folder, then a full disk
 * (real faults, see test/support/fs-faults.ts), then the same export once the fault is gone.
 * Each failure must say the file was NOT written, leave no file (not even a partial one) and keep
 * the release `reserved` in the ledger, its spend counted; the retry commits it.
 *
 * The host runs with a chosen work folder (`--work-dir`), whose exports/ sub-folder is where web
 * mode writes before the browser downloads.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OVERSAMPLE } from '../../src/core/engine/defaults.ts';
import {
  diskFullUnavailable,
  makeReadOnly,
  mountTinyDisk,
  readOnlyUnavailable,
} from '../support/fs-faults.ts';
import { waitFor } from '../support/processes.ts';
import { peopleCsv } from './fixtures.ts';
import { callApi, chromiumAvailable, type LedgerCounts, ledgerCounts } from './harness.ts';
import { expectBanner, openFile, prepareRun, shot, startRun, textNow } from './ui.ts';
import { useApp } from './use-app.ts';

/** Every file under `dir`, relative paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe.skipIf(!chromiumAvailable())('exports that cannot be written', () => {
  const app = useApp({
    name: 'export',
    prepare: (dir) => {
      mkdirSync(join(dir, 'work', 'exports'), { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, 'people.csv'), peopleCsv());
    },
    host: (dir) => ({ workDir: join(dir, 'work') }),
  });
  let exportsDir: string;
  let runId: string;
  let releaseId: string;
  let spent: LedgerCounts;

  beforeAll(async () => {
    const { page, host, dir } = app;
    exportsDir = join(dir, 'work', 'exports');
    await openFile(page, join(dir, 'people.csv'));
    // n' = 400 (2,000 rows exported, about 20 KB): larger than the 8 KiB "disk".
    await prepareRun(page, {
      features: ['color', 'size'],
      k: 2,
      r: 2,
      epsilon: '1',
      rows: '400',
      rounds: '1',
      cap: '3',
    });
    await startRun(page, ['finished']);
    const state = await callApi(host, 'runState', {});
    if (!state.ok || !state.result?.releaseId) throw new Error('no finished run');
    runId = state.result.runId;
    releaseId = state.result.releaseId;
    spent = ledgerCounts(host.ledgerPath);
    expect(spent.byStatus).toEqual({ reserved: [releaseId] });
  });

  /** The message the services give when `what` could not be written (errno code as Node names it). */
  const notWritten = (code: string, what = 'synthetic data', file = 'people-synthetic.csv') =>
    `Could not write the ${what} to ${join(exportsDir, runId, file)} (${code}): ` +
    `the file was NOT written. Release ${releaseId} stays reserved and its privacy spend stays counted; ` +
    'choose another folder or free some space, then export again.';

  /** Presses Export and checks what a failed export must show (one of `messages`) and leave behind. */
  async function exportFails(messages: readonly string[], screenshot: string): Promise<void> {
    const { page, host } = app;
    await page.getByTestId('nav-Export').click();
    await page.getByTestId('export-button').click();
    await waitFor('the export to fail', async () =>
      (await page.getByTestId('export-failure').count()) > 0 ? true : undefined,
    );
    const shown = (await textNow(page, 'export-failure')) ?? '';
    expect(messages).toContain(shown);
    await expectBanner(page, 'output', shown);
    expect(await page.getByTestId('export-result').count()).toBe(0);
    expect(await page.getByTestId('export-button').isEnabled()).toBe(true); // the curator may retry
    expect(await textNow(page, 'export-release')).toContain('reserved in the ledger');
    await shot(page, screenshot);
    expect(ledgerCounts(host.ledgerPath)).toEqual(spent);
    expect(filesUnder(exportsDir)).toEqual([]);
  }

  it.skipIf(readOnlyUnavailable !== null)(
    'a read-only export folder: not written, release stays reserved',
    async () => {
      const writable = makeReadOnly(exportsDir);
      try {
        await exportFails([notWritten(process.getuid?.() === 0 ? 'EPERM' : 'EACCES')], 'export-1-read-only');
      } finally {
        writable();
      }
      // The ledger screen shows the spend as counted, not committed.
      const { page } = app;
      await page.getByTestId('nav-Ledger').click();
      const row = page.getByTestId('ledger-release-row');
      await waitFor('the ledger rows', async () => ((await row.count()) === 1 ? true : undefined));
      expect(await row.getAttribute('data-status')).toBe('reserved');
      expect(await row.getAttribute('data-release')).toBe(releaseId);
    },
  );

  it.skipIf(diskFullUnavailable !== null)(
    'a full disk: not written, no partial file left, release stays reserved',
    async () => {
      const unmount = mountTinyDisk(exportsDir);
      try {
        // The CSV write should fail with ENOSPC; today the loader's atomic write ignores a short
        // write (a core bug, reported), so the CSV "fits" truncated and the manifest write after it
        // fails instead. Either way nothing may be left behind and the release stays reserved.
        await exportFails(
          [notWritten('ENOSPC'), notWritten('ENOSPC', 'release manifest', 'people-synthetic.manifest.json')],
          'export-2-disk-full',
        );
      } finally {
        unmount();
      }
    },
  );

  it('once the folder is writable again, the same export goes through and commits', async () => {
    const { page, host } = app;
    await page.getByTestId('nav-Export').click();
    const download = page.waitForEvent('download', { timeout: 120_000 });
    await page.getByTestId('export-button').click();
    const file = await (await download).path();
    const text = readFileSync(file, 'utf8');
    expect(text.split('\r\n')[0]).toBe('color,size,age');
    expect(text.trim().split(/\r?\n/)).toHaveLength(1 + 400 * DEFAULT_OVERSAMPLE);
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    await waitFor('the export result', async () =>
      (await textNow(page, 'export-sha')) === sha ? true : undefined,
    );
    expect(await page.getByTestId('export-failure').count()).toBe(0);
    expect(ledgerCounts(host.ledgerPath).byStatus).toEqual({ committed: [releaseId] });
    expect(filesUnder(exportsDir).sort()).toEqual(
      [
        join(runId, 'people-synthetic.csv'),
        join(runId, 'people-synthetic.manifest.json'),
        // The release as a Frictionless Data Package (core/release/data-package.ts).
        join(runId, 'people-synthetic.datapackage.json'),
        // The release reports, written beside the CSV once the release is committed.
        join(runId, 'people-synthetic.report.html'),
        join(runId, 'people-synthetic.REPORT.private.html'),
      ].sort(),
    );
    await shot(page, 'export-3-retry');
  });
});

if (!chromiumAvailable()) {
  it.skip('exports that cannot be written: skipped because Chromium is not installed', () => {});
}
