/**
 * Release faults through the CLI, each checked in the ledger afterwards:
 * - the ledger deleted, or replaced by a copy taken before the last release: the next run is
 *   refused naming the anchor, and `ledger verify` reports it;
 * - n' = 10⁹ and a schema declaring 4·10⁹ cells: refused before reserving (exit 2);
 * - a read-only ledger folder and a full disk under the ledger: the specific message, exit 1,
 *   nothing reserved.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetedSynthArgs, CLI_TIMEOUT, makeFixture, releasesIn, runCli } from '../../support/cli.ts';
import {
  diskFullUnavailable,
  makeReadOnly,
  mountDisk,
  readOnlyUnavailable,
} from '../../support/fs-faults.ts';

const fx = makeFixture(200);
afterAll(() => fx.cleanup());

describe('release faults (CLI)', { timeout: CLI_TIMEOUT }, () => {
  it('a ledger replaced by an older copy, or deleted: refused naming the anchor; verify reports it', async () => {
    const ledger = fx.ledgerPath();
    expect((await runCli(budgetedSynthArgs(ledger), fx.dir)).code).toBe(0);
    const older = `${ledger}.before-last`;
    copyFileSync(ledger, older);
    expect((await runCli(budgetedSynthArgs(ledger), fx.dir)).code).toBe(0);
    copyFileSync(older, ledger);
    const refused = await runCli(budgetedSynthArgs(ledger), fx.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /holds only \d+ event\(s\): it is an older copy.*its anchor .*ledger-anchors|anchor .*\.json records/,
    );
    expect(refused.stderr).toMatch(/Recovery/);
    expect(releasesIn(ledger)).toHaveLength(1); // the older copy's one release, nothing new
    const verify = await runCli(['ledger', 'verify', '--ledger', ledger], fx.dir);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(/FAILED verification.*table anchor.*older copy/);

    rmSync(ledger);
    const missing = await runCli(budgetedSynthArgs(ledger), fx.dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/is missing, but its anchor \S+ records \d+ event\(s\)/);
    expect(existsSync(ledger)).toBe(false);
    const verifyMissing = await runCli(['ledger', 'verify', '--ledger', ledger], fx.dir);
    expect(verifyMissing.code).toBe(1);
    expect(verifyMissing.stderr).toMatch(/FAILED verification.*is missing/);
  });

  it("n' = 10⁹ is refused before reserving: exit 2, ledger untouched", async () => {
    const ledger = fx.ledgerPath();
    const args = budgetedSynthArgs(ledger).map((a, i, all) => (all[i - 1] === '--rows' ? '1000000000' : a));
    const r = await runCli(args, fx.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /synthetic rows n' is 1,000,000,000, more than RAP Studio can run.*Nothing was reserved/,
    );
    expect(releasesIn(ledger)).toEqual([]);
  });

  it('a schema declaring 4·10⁹ cells is refused before reserving: exit 2, ledger untouched', async () => {
    const dir = path.join(fx.dir, 'huge');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'data.csv'),
      `x,y\n${Array.from({ length: 50 }, (_, i) => `${i},${i * 7}`).join('\n')}\n`,
    );
    writeFileSync(path.join(dir, 'domain.json'), JSON.stringify({ x: 65_536, y: 65_536 }));
    writeFileSync(path.join(dir, 'w.json'), JSON.stringify({ thresholds: [{ features: ['x', 'y'], r: 2 }] }));
    const ledger = path.join(dir, 'ledger.sqlite');
    const r = await runCli(budgetedSynthArgs(ledger), dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/largest workload table \(x × y\) is 4,294,967,296/);
    expect(releasesIn(ledger)).toEqual([]);
  });

  it.skipIf(readOnlyUnavailable !== null)(
    'a read-only ledger folder: exit 1, "cannot be written", nothing reserved',
    async () => {
      const dir = path.join(fx.dir, 'ro');
      mkdirSync(dir);
      const ledger = path.join(dir, 'ledger.sqlite');
      expect((await runCli(budgetedSynthArgs(ledger), fx.dir)).code).toBe(0);
      const undo = makeReadOnly(dir);
      try {
        const r = await runCli(budgetedSynthArgs(ledger), fx.dir);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          /ledger .* cannot be written \(read-only.*Nothing was recorded and nothing was reserved/,
        );
      } finally {
        undo();
      }
      expect(releasesIn(ledger)).toHaveLength(1);
    },
  );

  it.skipIf(diskFullUnavailable !== null)(
    'a full disk under the ledger: exit 1, "is full", nothing reserved',
    async () => {
      const disk = path.join(fx.dir, 'disk');
      const undo = mountDisk(disk, '256k');
      try {
        const ledger = path.join(disk, 'ledger.sqlite');
        expect((await runCli(budgetedSynthArgs(ledger), fx.dir)).code).toBe(0);
        try {
          writeFileSync(path.join(disk, 'filler'), Buffer.alloc(1024 * 1024));
        } catch {
          // ENOSPC: the disk is now full
        }
        const r = await runCli(budgetedSynthArgs(ledger), fx.dir);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/disk holding the privacy budget ledger .* is full.*nothing was reserved/);
        rmSync(path.join(disk, 'filler'));
        expect(releasesIn(ledger)).toHaveLength(1);
      } finally {
        undo();
      }
    },
  );
});
