import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCsv } from '../../../src/core/data/csv-write.ts';
import { ResultStore } from '../../../src/services/finished-release-store.ts';
import type { RunView } from '../../../src/shared/api.ts';
import { diskFullUnavailable, mountDisk } from '../../support/fs-faults.ts';

const base = mkdtempSync(join(tmpdir(), 'rap-store-test-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const run = { runId: 'run-1', releaseId: 'rel-1', status: 'finished' } as unknown as RunView;
const entry = (releaseId: string) => ({
  releaseId,
  run: { ...run, releaseId },
  manifest: { mechanism: 'rap-table' },
  report: { presentError: 0.1 },
});
const rows = (n: number) => Array.from({ length: n }, (_, i) => [`v${i % 3}`, String(i)]);
const writer = (header: string[], n: number) => async (path: string) => {
  await writeCsv(path, header, rows(n), { mode: 0o600 });
  return { rows: n, header };
};

describe('the result store', () => {
  it('stores a finished release whole (0700 folder, 0600 files), lists it, marks it exported, discards it', async () => {
    const store = new ResultStore(join(base, 'a'));
    const rec = await store.save(entry('rel-1'), writer(['c', 'n'], 5));
    expect(rec.csv).toMatchObject({ rows: 5, header: ['c', 'n'] });
    expect(readFileSync(store.csvPath('rel-1'), 'utf8').split('\r\n')[1]).toBe('v0,0');
    expect(statSync(join(base, 'a', 'rel-1')).mode & 0o777).toBe(0o700);
    expect(statSync(store.csvPath('rel-1')).mode & 0o777).toBe(0o600);
    expect((await store.list()).map((r) => r.releaseId)).toEqual(['rel-1']);
    const view = {
      releaseId: 'rel-1',
      fileName: 'x.csv',
      path: '/x.csv',
      manifestPath: '/x.manifest.json',
      sha256: rec.csv.sha256,
      rows: 5,
      downloadUrl: null,
      manifestUrl: null,
    };
    expect((await store.markExported('rel-1', view)).exported).toEqual(view);
    expect((await store.get('rel-1'))?.exported?.path).toBe('/x.csv');
    await store.discard('rel-1');
    expect(await store.list()).toEqual([]);
  });

  it('refuses an id that could leave the folder', async () => {
    const store = new ResultStore(join(base, 'b'));
    await expect(store.save(entry('../x'), writer(['c'], 0))).rejects.toThrow(/bad release id/);
  });

  it.skipIf(diskFullUnavailable !== null)(
    'a full disk fails the save with nothing half-written left',
    async () => {
      const disk = join(base, 'full');
      const undo = mountDisk(disk, '64k');
      try {
        const store = new ResultStore(join(disk, 'results'));
        await expect(store.save(entry('rel-2'), writer(['c', 'n'], 50_000))).rejects.toMatchObject({
          code: 'ENOSPC',
        });
        expect(readdirSync(join(disk, 'results'))).toEqual([]);
        expect(await store.list()).toEqual([]);
      } finally {
        undo();
      }
    },
  );
});
