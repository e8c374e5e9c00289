/**
 * A read-only and a full ledger, made with real file-system faults (test/support/fs-faults.ts): the
 * failure is a typed LedgerError with the specific message, and nothing is reserved.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from '../../../src/core/ledger/errors.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { fingerprintOf, requestFor } from '../../../src/core/ledger/testing/fixtures.ts';
import { rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import {
  diskFullUnavailable,
  makeReadOnly,
  mountDisk,
  readOnlyUnavailable,
} from '../../support/fs-faults.ts';

const FP = fingerprintOf('faults.csv');
const RHO = rhoFromEpsilon(0.5, 1e-6);
const undo: (() => void)[] = [];
afterEach(() => {
  for (const u of undo.splice(0).reverse()) u();
});

function ledgerError(fn: () => unknown): LedgerError {
  try {
    fn();
  } catch (err) {
    if (err instanceof LedgerError) return err;
    throw err;
  }
  throw new Error('expected a LedgerError');
}

function capped(file: string, anchorFile: string): Ledger {
  const l = Ledger.open(file, { anchorFile });
  l.ensureDataset({ fingerprint: FP, name: 'faults.csv', rows: 100 });
  l.setCap(FP, 1, 1e-6);
  return l;
}

describe('ledger faults', () => {
  it.skipIf(readOnlyUnavailable !== null)(
    'a read-only ledger folder: "cannot be written", nothing reserved',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'rap-ledger-ro-'));
      const file = join(dir, 'ledger.sqlite');
      const l = capped(file, join(dir, '..', `${dir.split('/').pop()}-anchor.json`));
      undo.push(() => {
        l.close();
        rmSync(dir, { recursive: true, force: true });
      });
      undo.push(makeReadOnly(dir));
      const err = ledgerError(() => l.reserve(requestFor(FP, RHO)));
      expect(err.problem).toBe('read-only');
      expect(err.message).toMatch(/cannot be written.*Nothing was recorded and nothing was reserved/);
      expect(l.releases()).toHaveLength(0);
    },
  );

  it.skipIf(diskFullUnavailable !== null)(
    'a full disk under the ledger: "disk … is full", nothing reserved',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'rap-ledger-full-'));
      const disk = join(dir, 'disk');
      undo.push(() => rmSync(dir, { recursive: true, force: true }));
      undo.push(mountDisk(disk, '512k'));
      const file = join(disk, 'ledger.sqlite');
      const l = capped(file, join(dir, 'anchor.json'));
      undo.push(() => l.close());
      // Fill what is left of the disk.
      try {
        writeFileSync(join(disk, 'filler'), Buffer.alloc(1024 * 1024));
      } catch {
        // ENOSPC once the disk is full: that is the point
      }
      const err = ledgerError(() => l.reserve(requestFor(FP, RHO)));
      expect(err.problem).toBe('full');
      expect(err.message).toMatch(/disk holding the privacy budget ledger .* is full.*nothing was reserved/);
      rmSync(join(disk, 'filler'));
      expect(l.releases()).toHaveLength(0);
      expect(l.verify().ok).toBe(true);
    },
  );

  it('a corrupt ledger file: "damaged", with what to do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rap-ledger-bad-'));
    const file = join(dir, 'ledger.sqlite');
    const l = capped(file, join(dir, 'anchor', 'a.json'));
    l.close();
    undo.push(() => rmSync(dir, { recursive: true, force: true }));
    const bytes = readFileSync(file);
    bytes.fill(0xa5, 4096, bytes.length); // every page after the first overwritten
    writeFileSync(file, bytes);
    const err = ledgerError(() => {
      const again = Ledger.open(file, { anchorFile: null });
      try {
        again.ensureDataset({ fingerprint: fingerprintOf('y'), name: 'y', rows: 1 });
      } finally {
        again.close();
      }
    });
    expect(err.problem).toBe('corrupt');
    expect(err.message).toMatch(/is damaged.*restore it from a backup/);
  });
});
