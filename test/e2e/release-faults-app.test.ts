/**
 * Release faults through the app (web mode, the API as the renderer calls it), each checked in
 * the ledger file afterwards and with the host still answering:
 * - the ledger replaced by a copy taken before the last release, or deleted: the next run is
 *   refused with a message naming the anchor; Verify reports it;
 * - n' = 10⁹, and a schema declaring 4·10⁹ cells: refused before reserving;
 * - a read-only ledger folder, a full disk under the ledger: the specific message, nothing reserved.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diskFullUnavailable, makeReadOnly, mountDisk, readOnlyUnavailable } from '../support/fs-faults.ts';
import { waitFor } from '../support/processes.ts';
import { peopleCsv } from './fixtures.ts';
import { callApi, ledgerCounts, type RunningHost, startHost, uploadFile } from './harness.ts';

const base = mkdtempSync(join(tmpdir(), 'rap-e2e-faults-'));
const hosts: RunningHost[] = [];
afterAll(async () => {
  for (const h of hosts) await h.stop();
  rmSync(base, { recursive: true, force: true });
});

async function host(ledgerPath: string): Promise<RunningHost> {
  const h = await startHost({ ledgerPath });
  hosts.push(h);
  return h;
}

/** people.csv opened, a 2-way workload, a cap of ε = 3 (when the ledger takes it); the dataset id. */
async function session(
  h: RunningHost,
  opts: { cap?: boolean; schemaText?: string; csv?: string; features?: string[] } = {},
) {
  const path = await uploadFile(h, 'people.csv', opts.csv ?? peopleCsv());
  const opened = await callApi(h, 'openDataset', {
    path,
    name: 'people.csv',
    header: 'yes',
    ...(opts.schemaText ? { schemaText: opts.schemaText } : {}),
  });
  if (!opened.ok) throw new Error(opened.error.message);
  const datasetId = opened.result.id;
  const wl = await callApi(h, 'setWorkload', {
    datasetId,
    role: 'main',
    thresholds: [{ features: opts.features ?? ['color', 'size'], r: 2, weight: 1 }],
  });
  if (!wl.ok) throw new Error(wl.error.message);
  if (opts.cap !== false) {
    const cap = await callApi(h, 'setCap', { datasetId, epsilon: '3' });
    if (!cap.ok) throw new Error(cap.error.message);
  }
  return datasetId;
}

const SETTINGS = { epsilon: '0.5', rows: '50', rounds: '1' };

async function finishedRun(h: RunningHost, datasetId: string) {
  const started = await callApi(h, 'startRun', { datasetId, settings: SETTINGS });
  if (!started.ok) throw new Error(started.error.message);
  return waitFor('the run to finish', async () => {
    const s = await callApi(h, 'runState', {});
    return s.ok && s.result && !['reserving', 'loading', 'running'].includes(s.result.status)
      ? s.result
      : undefined;
  });
}

describe('release faults (app)', () => {
  it('a ledger replaced by an older copy, then deleted: the next run is refused naming the anchor; Verify reports it', async () => {
    const dir = join(base, 'anchor');
    mkdirSync(dir);
    const ledger = join(dir, 'ledger.sqlite');
    let h = await host(ledger);
    const ds = await session(h);
    expect((await finishedRun(h, ds)).status).toBe('finished');
    await h.stop();
    const older = join(dir, 'older.sqlite');
    copyFileSync(ledger, older);
    h = await host(ledger);
    expect((await finishedRun(h, await session(h))).status).toBe('finished');
    await h.stop();
    copyFileSync(older, ledger);
    const before = ledgerCounts(ledger);

    h = await host(ledger);
    const ds3 = await session(h, { cap: false });
    const refused = await callApi(h, 'startRun', { datasetId: ds3, settings: SETTINGS });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'ledger' } });
    expect(!refused.ok && refused.error.message).toMatch(/older copy.*its anchor \S+\.json records/);
    const verify = await callApi(h, 'ledgerVerify', {});
    expect(verify.ok && verify.result).toMatchObject({
      ok: false,
      firstBrokenTable: 'anchor',
      reason: expect.stringMatching(/older copy/),
    });
    expect(ledgerCounts(ledger)).toEqual(before);
    await h.stop();

    rmSync(ledger);
    h = await host(ledger);
    const ds4 = await session(h, { cap: false });
    const missing = await callApi(h, 'startRun', { datasetId: ds4, settings: SETTINGS });
    expect(!missing.ok && missing.error).toMatchObject({
      kind: 'ledger',
      message: expect.stringMatching(/is missing, but its anchor/),
    });
    expect(h.process.exitCode).toBeNull();
  });

  it("n' = 10⁹ and a schema declaring 4·10⁹ cells: refused before reserving, ledger unchanged, host alive", async () => {
    const ledger = join(base, 'guards', 'ledger.sqlite');
    const h = await host(ledger);
    const ds = await session(h);
    const before = ledgerCounts(ledger);
    const big = await callApi(h, 'startRun', {
      datasetId: ds,
      settings: { ...SETTINGS, rows: '1000000000' },
    });
    expect(!big.ok && big.error).toMatchObject({
      kind: 'input',
      message: expect.stringMatching(/n' is 1,000,000,000.*Nothing was reserved/),
    });

    const edges = Array.from({ length: 65_537 }, (_, i) => i);
    const schemaText = JSON.stringify({
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'x', kind: 'numeric', edges, integer: true, missing: false },
        { name: 'y', kind: 'numeric', edges, integer: true, missing: false },
      ],
    });
    const csv = `x,y\n${Array.from({ length: 60 }, (_, i) => `${i},${i * 7}`).join('\n')}\n`;
    const huge = await session(h, { schemaText, csv, features: ['x', 'y'] });
    const refused = await callApi(h, 'startRun', { datasetId: huge, settings: SETTINGS });
    expect(!refused.ok && refused.error).toMatchObject({
      kind: 'input',
      message: expect.stringMatching(/largest workload table \(x × y\) is 4,294,967,296/),
    });
    const after = ledgerCounts(ledger);
    expect(after.releases).toBe(before.releases);
    expect(after.spentRho).toBe(before.spentRho);
    expect(h.process.exitCode).toBeNull();
    expect((await callApi(h, 'appInfo', {})).ok).toBe(true);
  });

  it.skipIf(readOnlyUnavailable !== null)(
    'a read-only ledger folder: "cannot be written", nothing reserved',
    async () => {
      const dir = join(base, 'ro');
      mkdirSync(dir);
      const ledger = join(dir, 'ledger.sqlite');
      const h = await host(ledger);
      const ds = await session(h);
      const before = ledgerCounts(ledger);
      const undo = makeReadOnly(dir);
      try {
        const r = await callApi(h, 'startRun', { datasetId: ds, settings: SETTINGS });
        expect(!r.ok && r.error).toMatchObject({
          kind: 'ledger',
          message: expect.stringMatching(/cannot be written.*nothing was reserved/),
        });
      } finally {
        undo();
      }
      expect(ledgerCounts(ledger)).toEqual(before);
    },
  );

  it.skipIf(diskFullUnavailable !== null)(
    'a full disk under the ledger: "is full", nothing reserved',
    async () => {
      const disk = join(base, 'disk');
      const undo = mountDisk(disk, '256k');
      try {
        const ledger = join(disk, 'ledger.sqlite');
        const h = await host(ledger);
        const ds = await session(h);
        const before = ledgerCounts(ledger);
        try {
          writeFileSync(join(disk, 'filler'), Buffer.alloc(1024 * 1024));
        } catch {
          // ENOSPC: full now
        }
        const r = await callApi(h, 'startRun', { datasetId: ds, settings: SETTINGS });
        expect(!r.ok && r.error).toMatchObject({
          kind: 'ledger',
          message: expect.stringMatching(/is full.*nothing was reserved/),
        });
        rmSync(join(disk, 'filler'));
        expect(ledgerCounts(ledger)).toEqual(before);
        await h.stop();
      } finally {
        undo();
      }
    },
  );
});
