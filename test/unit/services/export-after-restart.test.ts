/**
 * Web mode: an exported release can be downloaded again after a restart. The host's download
 * links and its work folder (where the export was written) are gone after a restart; exportRun
 * offers the same bytes again from the result store: the CSV whose hash the ledger holds, and
 * the manifest exactly as exported.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forkSpawner } from '../../../src/core/engine/process/client.ts';
import { dispatch } from '../../../src/services/dispatch.ts';
import { createServices } from '../../../src/services/services.ts';
import type { ApiArg, ApiMethod, ApiResult } from '../../../src/shared/api.ts';
import { isActiveStatus } from '../../../src/shared/constants.ts';
import { FAKE_CHILD, sampleCsv } from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rap-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One start of the web host's services: its own work folder and download table. */
function start(n: number) {
  const workDir = join(dir, `work-${n}`);
  mkdirSync(join(workDir, 'uploads'), { recursive: true });
  const offered = new Map<string, string>();
  const services = createServices({
    mode: 'web',
    ledgerPath: join(dir, 'ledger.sqlite'),
    workDir,
    emit: () => {},
    offerDownload: (path, name) => {
      const url = `/download/${n}-${offered.size}-${name}`;
      offered.set(url, path);
      return url;
    },
    spawner: forkSpawner(FAKE_CHILD, { ...process.env, FAKE_ENGINE_MODE: 'done' }),
    log: () => {},
  });
  const call = <M extends ApiMethod>(m: M, arg: ApiArg<M>) =>
    dispatch(services, m, arg) as Promise<ApiResult<M>>;
  return { workDir, offered, call };
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('web mode: export, restart, download again', () => {
  it('offers the exported CSV and manifest again from the result store, byte for byte', async () => {
    const first = start(1);
    const upload = join(first.workDir, 'uploads', 'shop.csv');
    writeFileSync(upload, sampleCsv());
    const ds = await first.call('openDataset', { path: upload, header: 'yes' });
    await first.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['color', 'size'], r: 2, weight: 1 }],
    });
    await first.call('setCap', { datasetId: ds.id, epsilon: '5' });
    await first.call('startRun', {
      datasetId: ds.id,
      settings: { epsilon: '1', rows: '10', rounds: '1', perRound: '5', mode: 'query' },
    });
    let run = await first.call('runState', {});
    for (let i = 0; run && isActiveStatus(run.status) && i < 400; i++) {
      await new Promise((r) => setTimeout(r, 50));
      run = await first.call('runState', {});
    }
    expect(run?.status).toBe('finished');
    const exported = await first.call('exportRun', { runId: run!.runId });
    if (!exported.written) throw new Error('not written');
    const csvBytes = readFileSync(exported.path);
    const manifestBytes = readFileSync(exported.manifestPath);

    // The restart: the work folder (exports, uploads) is removed, the download table is new.
    rmSync(first.workDir, { recursive: true, force: true });
    const second = start(2);
    const again = await second.call('exportRun', { runId: run!.runId });
    if (!again.written) throw new Error('not offered again');
    expect(again.sha256).toBe(exported.sha256);
    expect(again.downloadUrl).not.toBe(exported.downloadUrl);
    const csv = second.offered.get(again.downloadUrl!);
    const manifest = second.offered.get(again.manifestUrl!);
    if (!csv || !manifest) throw new Error('the files were not offered');
    expect(readFileSync(csv).equals(csvBytes)).toBe(true);
    expect(sha(csv)).toBe(exported.sha256);
    expect(readFileSync(manifest).equals(manifestBytes)).toBe(true);
  });
});
