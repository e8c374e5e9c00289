/**
 * What a reservation paid for survives: a finished run outlives a SIGKILL of the host (result
 * store), two Run requests at the same instant make one reservation, and two exports at once
 * write one file whose hash the ledger holds. Driven through the API as the renderer calls it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { peopleCsv } from './fixtures.ts';
import {
  callApi,
  chromiumAvailable,
  launchBrowser,
  ledgerCounts,
  type RunningHost,
  startHost,
  uploadFile,
} from './harness.ts';
import { openApp, shot } from './ui.ts';

const base = mkdtempSync(join(tmpdir(), 'rap-e2e-survive-'));
const hosts: RunningHost[] = [];
afterAll(async () => {
  for (const h of hosts) await h.stop();
  rmSync(base, { recursive: true, force: true });
});

async function host(dir: string): Promise<RunningHost> {
  const h = await startHost({ ledgerPath: join(dir, 'ledger.sqlite'), workDir: join(dir, 'work') });
  hosts.push(h);
  return h;
}

async function session(h: RunningHost): Promise<string> {
  const path = await uploadFile(h, 'people.csv', peopleCsv());
  const opened = await callApi(h, 'openDataset', { path, name: 'people.csv', header: 'yes' });
  if (!opened.ok) throw new Error(opened.error.message);
  const datasetId = opened.result.id;
  await callApi(h, 'setWorkload', {
    datasetId,
    role: 'main',
    thresholds: [{ features: ['color', 'size'], r: 2, weight: 1 }],
  });
  await callApi(h, 'setCap', { datasetId, epsilon: '5' });
  return datasetId;
}

const SETTINGS = { epsilon: '0.5', rows: '50', rounds: '1' };

async function settled(h: RunningHost) {
  return waitFor('the run to settle', async () => {
    const s = await callApi(h, 'runState', {});
    return s.ok && s.result && !['starting', 'reserving', 'loading', 'running'].includes(s.result.status)
      ? s.result
      : undefined;
  });
}

function committed(ledgerPath: string): { id: string; output_sha256: string | null }[] {
  const db = new Database(ledgerPath, { readonly: true });
  try {
    return db.prepare("SELECT id, output_sha256 FROM releases WHERE status = 'committed'").all() as never;
  } finally {
    db.close();
  }
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a release survives', () => {
  it('run finishes → host SIGKILL → restart: the release is listed, exports, and the ledger commits its hash', async () => {
    const dir = join(base, 'restart');
    let h = await host(dir);
    const ds = await session(h);
    const started = await callApi(h, 'startRun', { datasetId: ds, settings: SETTINGS });
    expect(started.ok).toBe(true);
    const run = await settled(h);
    expect(run.status).toBe('finished');
    h.process.kill('SIGKILL');
    await new Promise((ok) => h.process.once('exit', ok));

    h = await host(dir);
    if (chromiumAvailable()) {
      // The curator sees it on the Export step.
      const browser = await launchBrowser();
      try {
        const page = await openApp(browser, h);
        await page.getByTestId('nav-Export').click();
        await page.getByTestId(`pending-${run.releaseId}`).waitFor({ timeout: 30_000 });
        await shot(page, 'export-pending-after-restart');
      } finally {
        await browser.close();
      }
    }
    const pending = await callApi(h, 'pendingReleases', {});
    expect(pending.ok && pending.result.map((r) => r.releaseId)).toEqual([run.releaseId]);
    const pendingRun = pending.ok ? pending.result[0] : undefined;
    const out = await callApi(h, 'exportRun', { runId: pendingRun!.runId });
    expect(out).toMatchObject({ ok: true, result: { written: true, releaseId: run.releaseId } });
    const path = out.ok && out.result.written ? out.result.path : '';
    expect(committed(h.ledgerPath)).toEqual([{ id: run.releaseId, output_sha256: sha256(path) }]);
    const after = await callApi(h, 'pendingReleases', {});
    expect(after.ok && after.result).toEqual([]);
  });

  it('two Run requests at the same instant: one reservation, one run', async () => {
    const dir = join(base, 'double-run');
    const h = await host(dir);
    const ds = await session(h);
    const [a, b] = await Promise.all([
      callApi(h, 'startRun', { datasetId: ds, settings: SETTINGS }),
      callApi(h, 'startRun', { datasetId: ds, settings: SETTINGS }),
    ]);
    expect([a.ok, b.ok].sort()).toEqual([false, true]);
    const refused = a.ok ? b : a;
    expect(!refused.ok && refused.error.message).toMatch(/A run is in progress/);
    await settled(h);
    expect(ledgerCounts(h.ledgerPath).releases).toBe(1);
  });

  it('two exports of one run at once: one file, whose hash the ledger holds', async () => {
    const dir = join(base, 'double-export');
    const h = await host(dir);
    const ds = await session(h);
    await callApi(h, 'startRun', { datasetId: ds, settings: SETTINGS });
    const run = await settled(h);
    const [a, b] = await Promise.all([
      callApi(h, 'exportRun', { runId: run.runId }),
      callApi(h, 'exportRun', { runId: run.runId }),
    ]);
    const written = [a, b].filter((r) => r.ok && r.result.written);
    expect(written.length).toBeGreaterThanOrEqual(1);
    const paths = new Set(written.map((r) => (r.ok && r.result.written ? r.result.path : '')));
    expect(paths.size).toBe(1);
    const [path] = [...paths];
    const csvs = readdirSync(join(dir, 'work', 'exports'), { recursive: true }).filter((f) =>
      String(f).endsWith('.csv'),
    );
    expect(csvs).toHaveLength(1);
    expect(committed(h.ledgerPath)).toEqual([{ id: run.releaseId, output_sha256: sha256(path) }]);
  });
});
