/**
 * The anchor is keyed by the ledger's identity and its real path (issue 26, item 7; the audit's
 * probes L3 and L4): an older copy of a ledger opened at another path, or the rolled-back file
 * reached through a symbolically linked folder, is refused before anything is reserved.
 */
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { anchorPathFor } from './anchor.ts';
import { LedgerAnchorError } from './errors.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor } from './testing/fixtures.ts';

const FP = fingerprintOf('anchored by identity');
// The audit's numbers: cap ε = 1.5, releases of ε = 1 (ρ 0.0244 each at δ = 1e-6).
const CAP_EPSILON = 1.5;
const RUN_RHO = rhoFromEpsilon(1, 1e-6) / 2;

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

function openAt(file: string): Ledger {
  const l = Ledger.open(file);
  open.push(l);
  return l;
}

/** A ledger in its own folder with a cap and one release; returns the folder and the file. */
function ledgerWithOneRelease(): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rap-ledger-id-'));
  const file = path.join(dir, 'real', 'ledger.sqlite');
  const l = openAt(file);
  l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 1000 });
  l.setCap(FP, CAP_EPSILON, 1e-6);
  l.reserve(requestFor(FP, RUN_RHO));
  return { dir, file };
}

function closeAll(): void {
  for (const l of open.splice(0)) l.close();
}

describe('anchor keyed by the ledger identity', () => {
  it('an older copy opened at another path is refused (L3), naming where the newest copy is', () => {
    const { dir, file } = ledgerWithOneRelease();
    const copy = path.join(dir, 'elsewhere', 'old-copy.sqlite');
    mkdirSync(path.dirname(copy));
    copyFileSync(file, copy); // taken after 1 release
    open[0].reserve(requestFor(FP, RUN_RHO)); // the second release, at the real path
    closeAll();
    let err: unknown;
    try {
      openAt(copy);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LedgerAnchorError);
    expect((err as Error).message).toMatch(/holds only 3 event\(s\): it is an older copy or was rolled back/);
    expect((err as Error).message).toContain(`last written at ${file}`);
    // The newest copy still works.
    expect(openAt(file).totals(FP).releases).toBe(2);
  });

  it('a copy at the same head may move to a new path; the one left behind is then refused', () => {
    const { dir, file } = ledgerWithOneRelease();
    closeAll();
    const moved = path.join(dir, 'moved.sqlite');
    copyFileSync(file, moved);
    const l = openAt(moved);
    l.reserve(requestFor(FP, RUN_RHO));
    closeAll();
    expect(() => openAt(file)).toThrow(LedgerAnchorError);
  });
});

describe('anchor keyed by the real path', () => {
  it('a folder reached through a symbolic link has the same anchor as the folder itself', () => {
    const { dir, file } = ledgerWithOneRelease();
    const link = path.join(dir, 'link');
    symlinkSync(path.join(dir, 'real'), link);
    expect(anchorPathFor(path.join(link, 'ledger.sqlite'))).toBe(anchorPathFor(file));
    expect(anchorPathFor(path.join(link, 'not-yet.sqlite'))).toBe(
      anchorPathFor(path.join(dir, 'real', 'not-yet.sqlite')),
    );
  });

  it('the rolled-back file reached through a symlinked folder is refused (L4)', () => {
    const { dir, file } = ledgerWithOneRelease();
    const old = path.join(dir, 'backup.sqlite');
    copyFileSync(file, old);
    open[0].reserve(requestFor(FP, RUN_RHO));
    closeAll();
    copyFileSync(old, file); // rolled back in place
    const link = path.join(dir, 'link');
    symlinkSync(path.join(dir, 'real'), link);
    expect(() => openAt(path.join(link, 'ledger.sqlite'))).toThrow(/older copy or was rolled back/);
    expect(() => openAt(file)).toThrow(LedgerAnchorError);
  });
});
