/**
 * reserve() rests on the event log, checked from the anchored head, not on the state tables
 * (issue 26, item 8; the audit's probes L11 and L12): a state table edited behind the triggers'
 * back, or an edited event payload, is refused at the next reservation — whether the ledger is
 * opened afresh or was already open and had checked the log before (the incremental path).
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetRefusedError } from '../errors.ts';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { LedgerError, LedgerTamperedError } from './errors.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('adult.csv bytes, reserve verifies');
const CAP_RHO = rhoFromEpsilon(1.2, 1e-6);

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

/** A ledger with a cap that admits one run of 0.9 of it; that run reserved. */
function spentLedger(): { file: string; l: Ledger } {
  const file = tempLedgerPath();
  const l = Ledger.open(file);
  open.push(l);
  l.ensureDataset({ fingerprint: FP, name: 'adult.csv', rows: 48842 });
  l.setCap(FP, 1.2, 1e-6);
  l.reserve(requestFor(FP, 0.9 * CAP_RHO));
  expect(() => l.reserve(requestFor(FP, 0.9 * CAP_RHO))).toThrow(BudgetRefusedError);
  return { file, l };
}

/** The audit's edit: drop the guard triggers, change the table, create the triggers again. */
function editBehindTheTriggers(file: string, sql: string): void {
  const db = new Database(file);
  const triggers = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as {
    name: string;
    sql: string;
  }[];
  for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
  db.exec(sql);
  for (const t of triggers) db.exec(t.sql);
  db.close();
}

describe('reserve checks the event log and the state tables against it', () => {
  it('a releases.rho edited to 1e-9 (triggers recreated): refused when opened afresh', () => {
    const { file, l } = spentLedger();
    l.close();
    open.length = 0;
    editBehindTheTriggers(file, 'UPDATE releases SET rho = 1e-9');
    const again = Ledger.open(file);
    open.push(again);
    expect(again.totals(FP).spentRho).toBe(1e-9); // what the table now says
    expect(() => again.reserve(requestFor(FP, 0.9 * CAP_RHO))).toThrow(LedgerTamperedError);
    expect(() => again.reserve(requestFor(FP, 0.9 * CAP_RHO))).toThrow(
      /table releases, release .*: rho differs from what the event log says.*Nothing was reserved/,
    );
    expect(again.releases()).toHaveLength(1);
  });

  it('the same edit made while the ledger is open (after it checked the log): refused', () => {
    const { file, l } = spentLedger();
    editBehindTheTriggers(file, 'UPDATE releases SET rho = 1e-9');
    expect(() => l.reserve(requestFor(FP, 0.9 * CAP_RHO))).toThrow(LedgerTamperedError);
    expect(l.releases()).toHaveLength(1);
  });

  it('a cap edited in the datasets table: refused', () => {
    const { file, l } = spentLedger();
    editBehindTheTriggers(file, 'UPDATE datasets SET cap_rho = cap_rho * 100');
    expect(() => l.reserve(requestFor(FP, 0.9 * CAP_RHO))).toThrow(
      /table datasets, dataset .*: cap_rho differs/,
    );
  });

  it('a release row deleted by hand: refused', () => {
    const { file, l } = spentLedger();
    editBehindTheTriggers(file, 'DELETE FROM releases');
    expect(() => l.reserve(requestFor(FP, 0.9 * CAP_RHO))).toThrow(/holds 0 release\(s\).*the event log 1/);
  });

  it('one byte of an event payload edited ("epsilon":1 → 9): refused, opened afresh', () => {
    const { file, l } = spentLedger();
    l.close();
    open.length = 0;
    editBehindTheTriggers(
      file,
      'UPDATE events SET payload = replace(payload, \'"name":"adult.csv"\', \'"name":"adult.csx"\') WHERE id = 1',
    );
    const again = Ledger.open(file);
    open.push(again);
    expect(() => again.reserve(requestFor(FP, 0.01 * CAP_RHO))).toThrow(
      /event 1: hash does not match the event content/,
    );
  });

  it('an event checked before and rewritten while open (its hash too): refused', () => {
    const { file, l } = spentLedger();
    // Event 3 is the anchored head, so the anchor refuses it first; the replay would too.
    editBehindTheTriggers(file, "UPDATE events SET hash = 'f' || substr(hash, 2) WHERE id = 3");
    expect(() => l.reserve(requestFor(FP, 0.01 * CAP_RHO))).toThrow(LedgerError);
    expect(() => l.reserve(requestFor(FP, 0.01 * CAP_RHO))).toThrow(
      /Nothing was reserved|nothing was reserved/,
    );
  });

  it('events appended by another process meanwhile are checked incrementally and admitted', () => {
    const { file, l } = spentLedger();
    const other = Ledger.open(file);
    open.push(other);
    other.ensureDataset({ fingerprint: fingerprintOf('another file'), name: 'b.csv', rows: 10 });
    other.setCap(FP, 3, 1e-6);
    // The cap raised by the other process (an event, so a legitimate change) lets this one in.
    expect(l.reserve(requestFor(FP, 0.9 * CAP_RHO)).status).toBe('reserved');
    expect(l.verify().ok).toBe(true);
  });
});
