/**
 * A ledger damaged or replaced on disk gets a clear answer (issue 26, item 9; the audit's probes
 * L7, L9 and L20): a damaged page or header is a corrupt ledger (exit 1: restore from a backup),
 * never the raw "database disk image is malformed" nor "pass --ledger"; and Verify checks the file
 * on disk, not the one RAP Studio holds open.
 */
import { closeSync, copyFileSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor, InputError } from '../errors.ts';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { LedgerError } from './errors.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('damaged ledger');

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

function ledgerWithReleases(n: number): string {
  const file = tempLedgerPath();
  const l = Ledger.open(file);
  l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 100 });
  l.setCap(FP, 10, 1e-6);
  for (let i = 0; i < n; i++) l.reserve(requestFor(FP, rhoFromEpsilon(0.1, 1e-6)));
  l.close();
  return file;
}

function overwrite(file: string, at: number, length: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, at);
  closeSync(fd);
}

function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('a damaged ledger', () => {
  it('a damaged page: a typed corrupt-ledger error (exit 1), not the raw SQLite message', () => {
    const file = ledgerWithReleases(30);
    const db = new Database(file, { readonly: true });
    const page = db.pragma('page_size', { simple: true }) as number;
    const root = db
      .prepare("SELECT rootpage FROM sqlite_master WHERE name = 'events'")
      .pluck()
      .get() as number;
    db.close();
    overwrite(file, (root - 1) * page, page); // the events table's root page: read first by head()
    const err = failure(() => open.push(Ledger.open(file)));
    expect(err).toBeInstanceOf(LedgerError);
    expect((err as LedgerError).problem).toBe('corrupt');
    expect(err.message).toMatch(/is damaged .*restore it from a backup/);
    expect(err.message).not.toMatch(/^database disk image is malformed$/);
    expect(exitCodeFor(err)).toBe(1);
  });

  it('a damaged header (the SQLite magic): a damaged ledger, exit 1, not "pass --ledger"', () => {
    const file = ledgerWithReleases(2);
    overwrite(file, 0, 16);
    const err = failure(() => open.push(Ledger.open(file)));
    expect(err).toBeInstanceOf(LedgerError);
    expect(err.message).toMatch(
      /is damaged: its first page \(the SQLite header\) is unreadable, though its anchor/,
    );
    expect(err.message).not.toContain('Pass --ledger');
    expect(exitCodeFor(err)).toBe(1);
  });

  it('the same damage without an anchor is still recognised by its table definitions', () => {
    const file = ledgerWithReleases(1);
    overwrite(file, 0, 16);
    const err = failure(() => open.push(Ledger.open(file, { anchorFile: null })));
    expect(err).toBeInstanceOf(LedgerError);
    expect(exitCodeFor(err)).toBe(1);
  });

  it('a file that is no ledger at all (a CSV) is bad input (exit 2) naming the path to check', () => {
    const file = tempLedgerPath();
    Ledger.open(file).close();
    const csv = path.join(path.dirname(file), 'data.csv');
    const fd = openSync(csv, 'w');
    writeSync(fd, `a,b\n${'1,2\n'.repeat(300)}`);
    closeSync(fd);
    const err = failure(() => open.push(Ledger.open(csv)));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/is not an SQLite database.*--ledger or RAP_STUDIO_LEDGER/);
  });
});

describe('Verify checks the file on disk', () => {
  it('an older copy moved in while the ledger is open: Verify fails and says what is on disk (L20)', () => {
    const file = ledgerWithReleases(1);
    const older = path.join(path.dirname(file), 'older.sqlite');
    copyFileSync(file, older);
    const l = Ledger.open(file);
    open.push(l);
    l.reserve(requestFor(FP, rhoFromEpsilon(0.1, 1e-6)));
    expect(l.verify().ok).toBe(true);
    renameSync(older, file); // swapped under the open ledger
    const result = l.verify();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.firstBrokenTable).toBe('file');
    expect(result.reason).toMatch(/replaced by another file while RAP Studio had it open/);
    expect(result.reason).toMatch(/the file now on disk fails too: .*older copy or was rolled back/);
  });
});
