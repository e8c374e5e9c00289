/**
 * Web mode: an exported release can be downloaded again after a restart. The host's download
 * links and its work folder (where the export was written) are gone after a restart; exportRun
 * offers the same bytes again from the result store: the CSV whose hash the ledger holds, and
 * the manifest exactly as exported.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { finishedSampleRun, sampleCsv, webApp } from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rap-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One start of the web host's services: its own work folder and download table. */
const start = (n: number) => webApp(dir, n);

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('web mode: export, restart, download again', () => {
  it('offers the exported CSV and manifest again from the result store, byte for byte', async () => {
    const first = start(1);
    const upload = join(first.workDir, 'uploads', 'shop.csv');
    writeFileSync(upload, sampleCsv());
    const run = await finishedSampleRun(first, upload);
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
