/**
 * Stage 5 (publish.ts), which the CLI and the app's export both run: the ledger is asked before
 * any byte is written, files are created exclusively, and a refused commit leaves nothing of an
 * app export at the chosen name (the CLI keeps its only copy of the CSV).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LedgerIdentity } from '../ledger/ledger.ts';
import type { ReleaseRecord } from '../ledger/types.ts';
import { PendingWrites } from './pending-writes.ts';
import { type PublishLedger, publish } from './publish.ts';
import { exportOutputs } from './targets.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-publish-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pending = new PendingWrites(path.join(dir, 'pending'));
const HEAD: LedgerIdentity = { ledgerId: 'L', events: 3, headHash: 'H' };

function ledger(over: Partial<PublishLedger> = {}): PublishLedger & { commits: number } {
  const l = {
    commits: 0,
    identity: () => HEAD,
    commit: (id: string) => {
      l.commits++;
      return { id, status: 'committed' } as unknown as ReleaseRecord;
    },
    ...over,
  };
  return l;
}

const input = (voice: 'cli' | 'app') => ({
  releaseId: 'r1',
  voice,
  fillCsv: async (temp: string) => {
    await writeFile(temp, 'a,b\r\n1,2\r\n', { flag: 'wx' });
    return { rows: 1, header: ['a', 'b'] };
  },
  manifestFields: { format: 'rap-studio-release-manifest', releaseId: 'r1' },
  report: null,
});

const visible = (d: string) => readdirSync(d).filter((f) => f !== 'pending');

describe('publish (stage 5)', () => {
  it('writes the CSV and the manifest, then commits; the manifest carries the ledger head and the output', async () => {
    const d = mkdtempSync(path.join(dir, 'ok-'));
    const l = ledger();
    const out = await publish(l, input('app'), exportOutputs(path.join(d, 'x.csv')), pending);
    expect(l.commits).toBe(1);
    expect(readFileSync(path.join(d, 'x.csv'), 'utf8')).toBe('a,b\r\n1,2\r\n');
    const manifest = JSON.parse(readFileSync(path.join(d, 'x.manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      releaseId: 'r1',
      ledger: { id: 'L', events: 3, headHash: 'H' },
      output: { file: 'x.csv', sha256: out.csv.sha256, rows: 1, columns: ['a', 'b'] },
    });
    expect(visible(d).sort()).toEqual(['x.csv', 'x.manifest.json']);
  });

  it('a ledger that cannot answer: nothing is written', async () => {
    const d = mkdtempSync(path.join(dir, 'noledger-'));
    const l = ledger({
      identity: () => {
        throw new Error('database is locked');
      },
    });
    await expect(publish(l, input('app'), exportOutputs(path.join(d, 'x.csv')), pending)).rejects.toThrow(
      /locked/,
    );
    expect(visible(d)).toEqual([]);
  });

  it('a refused commit: the app leaves nothing at the chosen name; the CLI keeps the CSV only', async () => {
    const refuse = () => {
      throw new Error('the ledger is read-only');
    };
    const app = mkdtempSync(path.join(dir, 'app-'));
    await expect(
      publish(ledger({ commit: refuse }), input('app'), exportOutputs(path.join(app, 'x.csv')), pending),
    ).rejects.toThrow(/read-only/);
    expect(visible(app)).toEqual([]);
    // The default name is free again: the next export goes through.
    await publish(ledger(), input('app'), exportOutputs(path.join(app, 'x.csv')), pending);
    expect(existsSync(path.join(app, 'x.csv'))).toBe(true);

    const cli = mkdtempSync(path.join(dir, 'cli-'));
    await expect(
      publish(ledger({ commit: refuse }), input('cli'), exportOutputs(path.join(cli, 'x.csv')), pending),
    ).rejects.toThrow(/read-only/);
    expect(visible(cli)).toEqual(['x.csv']);
  });

  it('never replaces an existing file: the input, a manifest, another export', async () => {
    const d = mkdtempSync(path.join(dir, 'exists-'));
    writeFileSync(path.join(d, 'x.manifest.json'), 'someone else’s');
    const l = ledger();
    await expect(publish(l, input('app'), exportOutputs(path.join(d, 'x.csv')), pending)).rejects.toThrow(
      /x\.manifest\.json already exists: an export never replaces a file/,
    );
    expect(l.commits).toBe(0);
    expect(readFileSync(path.join(d, 'x.manifest.json'), 'utf8')).toBe('someone else’s');
    expect(visible(d)).toEqual(['x.manifest.json']);
    expect(readdirSync(path.join(dir, 'pending'))).toEqual([]);
  });
});
