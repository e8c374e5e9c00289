import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetRefusedError, InputError } from '../errors.ts';
import { epsilonFromRho, rhoFromEpsilon } from '../privacy/accounting.ts';
import { Ledger } from './ledger.ts';
import { SCHEMA_VERSION } from './migrations.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('adult.csv bytes');
const DELTA = 1e-6;
const CAP_RHO = rhoFromEpsilon(1, DELTA);

const open: Ledger[] = [];
function ledgerAt(file = tempLedgerPath()): Ledger {
  const l = Ledger.open(file);
  open.push(l);
  return l;
}
function cappedLedger(file?: string): Ledger {
  const l = ledgerAt(file);
  l.ensureDataset({ fingerprint: FP, name: 'adult.csv', rows: 48842 });
  l.setCap(FP, 1, DELTA);
  return l;
}
function refusal(fn: () => unknown): BudgetRefusedError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BudgetRefusedError) return err;
    throw err;
  }
  throw new Error('expected BudgetRefusedError');
}

afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

describe('cap', () => {
  it('admits a run that spends exactly the cap', () => {
    const l = cappedLedger();
    expect(l.reserve(requestFor(FP, CAP_RHO)).status).toBe('reserved');
    expect(l.totals(FP).remainingRho).toBe(0);
  });

  it('admits a run just under the cap', () => {
    const l = cappedLedger();
    l.reserve(requestFor(FP, CAP_RHO * (1 - 1e-9)));
    expect((l.totals(FP).remainingRho as number) / (CAP_RHO * 1e-9)).toBeCloseTo(1, 5);
  });

  it('refuses a run just over the cap, naming the remaining budget as ε at δ and as ρ', () => {
    const l = cappedLedger();
    const err = refusal(() => l.reserve(requestFor(FP, CAP_RHO * (1 + 1e-9))));
    expect(err.remainingRho).toBe(CAP_RHO);
    expect(err.remainingEpsilon).toBeCloseTo(1, 12);
    expect(err.message).toContain('remaining budget ε=1 at δ=1e-6');
    // The tight ρ of (ε = 1, δ = 1e-6) (issue 19; the loose conversion gave 0.0174689).
    expect(err.message).toContain('(ρ=0.024356)');
    expect(err.message).toContain('rap-studio ledger set-cap');
    expect(l.releases()).toHaveLength(0);
  });

  it('admits exactly five runs of a fifth of the cap, then refuses with what remains', () => {
    const l = cappedLedger();
    for (let i = 0; i < 5; i++) l.reserve(requestFor(FP, CAP_RHO / 5));
    const err = refusal(() => l.reserve(requestFor(FP, CAP_RHO / 5)));
    expect(err.remainingRho).toBeLessThan(1e-15);
    expect(l.totals(FP).releases).toBe(5);
  });

  it('refuses any run on a dataset with no cap, saying how to set one', () => {
    const l = ledgerAt();
    l.ensureDataset({ fingerprint: FP, name: 'adult.csv', rows: 10 });
    const err = refusal(() => l.reserve(requestFor(FP, 1e-6)));
    expect(err.message).toContain('no privacy budget cap');
    expect(err.message).toContain('rap-studio ledger set-cap --dataset FILE --epsilon E --delta D');
    expect(err.remainingRho).toBe(0);
  });

  it('refuses a run on a dataset the ledger has never seen', () => {
    const l = ledgerAt();
    expect(refusal(() => l.reserve(requestFor(FP, 1e-6))).message).toContain('not in the ledger');
  });

  it('stores the cap as ρ plus δ and reports totals by zCDP composition at the cap δ', () => {
    const l = cappedLedger();
    const cap = l.dataset(FP)?.cap;
    expect(cap).toMatchObject({ rho: CAP_RHO, epsilon: 1, delta: DELTA });
    const a = l.reserve(requestFor(FP, CAP_RHO / 4));
    const b = l.reserve(requestFor(FP, CAP_RHO / 8, 1e-9)); // its own δ; spend counts in ρ
    l.commit(a.id, { sha256: fingerprintOf('out') });
    l.abort(b.id, 'cancelled by the curator');
    const t = l.totals(FP);
    const spent = CAP_RHO / 4 + CAP_RHO / 8;
    expect(t.spentRho).toBeCloseTo(spent, 15);
    expect(t.spentEpsilon).toBeCloseTo(epsilonFromRho(spent, DELTA), 12);
    expect(t.remainingRho).toBeCloseTo(CAP_RHO - spent, 15);
    expect(t.remainingEpsilon).toBeCloseTo(epsilonFromRho(CAP_RHO - spent, DELTA), 12);
    expect(t.remainingShare).toBeCloseTo(5 / 8, 12);
  });

  it('a cap set again replaces the old one; a lowered cap leaves remaining at 0, not negative', () => {
    const l = cappedLedger();
    l.reserve(requestFor(FP, CAP_RHO / 2));
    l.setCap(FP, 0.1, DELTA);
    expect(l.totals(FP)).toMatchObject({ remainingRho: 0, remainingEpsilon: 0, remainingShare: 0 });
    expect(() => l.reserve(requestFor(FP, 1e-9))).toThrow(BudgetRefusedError);
  });

  it('totals without a cap report the spend and null for cap-relative fields', () => {
    const l = ledgerAt();
    l.ensureDataset({ fingerprint: FP, name: 'x.csv', rows: 1 });
    expect(l.totals(FP)).toMatchObject({ spentRho: 0, capRho: null, remainingEpsilon: null, releases: 0 });
    expect(() => l.totals(fingerprintOf('other'))).toThrow(InputError);
  });
});

describe('datasets', () => {
  it('finds the same bytes under another name: one dataset, one spend, the new name kept as an alias', () => {
    const l = cappedLedger();
    l.reserve(requestFor(FP, CAP_RHO / 2));
    const again = l.ensureDataset({ fingerprint: FP, name: 'renamed-copy.csv', rows: 48842 });
    expect(again.name).toBe('adult.csv');
    expect(again.aliases).toEqual(['renamed-copy.csv']);
    expect(l.datasets()).toHaveLength(1);
    expect(l.totals(FP).spentRho).toBe(CAP_RHO / 2);
    l.ensureDataset({ fingerprint: FP, name: 'renamed-copy.csv', rows: 48842 });
    expect(l.dataset(FP)?.aliases).toEqual(['renamed-copy.csv']);
  });

  it('records a row count once, when first known', () => {
    const l = ledgerAt();
    expect(l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 0 }).rows).toBe(0);
    expect(l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 12 }).rows).toBe(12);
    expect(l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 13 }).rows).toBe(12);
  });

  it('rejects malformed dataset input with InputError', () => {
    const l = ledgerAt();
    expect(() => l.ensureDataset({ fingerprint: 'abc', name: 'a', rows: 1 })).toThrow(/64 lower-case hex/);
    expect(() => l.ensureDataset({ fingerprint: FP, name: ' ', rows: 1 })).toThrow(InputError);
    expect(() => l.ensureDataset({ fingerprint: FP, name: 'a', rows: -1 })).toThrow(InputError);
    expect(() => l.setCap(FP, 1, DELTA)).toThrow(/register it first/);
    l.ensureDataset({ fingerprint: FP, name: 'a', rows: 1 });
    expect(() => l.setCap(FP, 0, DELTA)).toThrow(InputError);
    expect(() => l.setCap(FP, 1, 1)).toThrow(InputError);
  });
});

describe('releases', () => {
  it('records every parameter and moves reserved → committed with the output hash', () => {
    const l = cappedLedger();
    const req = requestFor(FP, CAP_RHO / 10);
    const r = l.reserve(req);
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r).toMatchObject({
      datasetFingerprint: FP,
      status: 'reserved',
      mechanism: req.mechanism,
      epsilon: req.epsilon,
      delta: req.delta,
      rho: req.rho,
      params: req.params,
      workload: req.workload,
      schema: req.schema,
      seedMode: 'secure',
      backend: 'cpu',
      appVersion: '0.1.0',
    });
    expect(r.rowHash).toMatch(/^[0-9a-f]{64}$/);
    const out = fingerprintOf('synthetic.csv');
    const c = l.commit(r.id, { sha256: out, path: '/tmp/synthetic.csv' });
    expect(c).toMatchObject({ status: 'committed', outputSha256: out, outputPath: '/tmp/synthetic.csv' });
    expect(c.rowHash).toBe(r.rowHash);
    expect(l.release(r.id)).toEqual(c);
  });

  it('allows only reserved → committed | aborted, and an aborted run stays counted', () => {
    const l = cappedLedger();
    const a = l.reserve(requestFor(FP, CAP_RHO / 10));
    expect(l.abort(a.id, 'engine crashed')).toMatchObject({
      status: 'aborted',
      abortReason: 'engine crashed',
    });
    expect(() => l.commit(a.id, { sha256: FP })).toThrow(/already aborted/);
    expect(() => l.abort(a.id, 'again')).toThrow(/already aborted/);
    const b = l.reserve(requestFor(FP, CAP_RHO / 10));
    l.commit(b.id, { sha256: FP });
    expect(() => l.abort(b.id, 'late')).toThrow(/already committed/);
    expect(() => l.commit('no-such-id', { sha256: FP })).toThrow(InputError);
    expect(() => l.commit(b.id, { sha256: 'not-a-hash' })).toThrow(InputError);
    expect(l.totals(FP).spentRho).toBeCloseTo(CAP_RHO / 5, 15);
  });

  it('lists releases in reservation order, filtered by dataset', () => {
    const l = cappedLedger();
    const other = fingerprintOf('loans.csv');
    l.ensureDataset({ fingerprint: other, name: 'loans.csv', rows: 5 });
    l.setCap(other, 1, DELTA);
    const ids = [
      l.reserve(requestFor(FP, 1e-4)).id,
      l.reserve(requestFor(other, 1e-4)).id,
      l.reserve(requestFor(FP, 1e-4)).id,
    ];
    expect(l.releases().map((r) => r.id)).toEqual(ids);
    expect(l.releases({ fingerprint: other }).map((r) => r.id)).toEqual([ids[1]]);
  });

  it('rejects a reservation whose ε, δ and ρ disagree, or with malformed parameters', () => {
    const l = cappedLedger();
    const req = requestFor(FP, 1e-4);
    expect(() => l.reserve({ ...req, epsilon: req.epsilon * 2 })).toThrow(/rhoFromEpsilon/);
    expect(() => l.reserve({ ...req, params: { ...req.params, rounds: 0 } })).toThrow(/params.rounds/);
    expect(() => l.reserve({ ...req, params: { ...req.params, extra: Number.NaN } })).toThrow(/finite/);
    expect(() => l.reserve({ ...req, seedMode: 'weak' as 'secure' })).toThrow(/seedMode/);
    expect(l.releases()).toHaveLength(0);
  });
});

describe('file lifecycle', () => {
  it('creates the directory, and a re-opened file keeps every record and its spend', () => {
    const file = tempLedgerPath();
    const l = cappedLedger(file);
    const r = l.reserve(requestFor(FP, CAP_RHO / 3));
    l.close();
    open.length = 0;
    const again = ledgerAt(file);
    expect(again.release(r.id)?.rho).toBe(CAP_RHO / 3);
    expect(again.totals(FP).spentRho).toBe(CAP_RHO / 3);
    expect(again.verify()).toMatchObject({ ok: true, rows: 3 });
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
  });

  it('migrates an empty (0-byte) file to the current schema', () => {
    const file = tempLedgerPath();
    ledgerAt(file).close();
    open.length = 0;
    writeFileSync(file, '');
    const l = ledgerAt(file);
    expect(l.verify()).toMatchObject({ ok: true, rows: 0, headHash: '0'.repeat(64) });
    l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 1 });
    expect(l.datasets()).toHaveLength(1);
  });

  it('refuses a ledger from a newer schema, and a file that is not a database', () => {
    const file = tempLedgerPath();
    ledgerAt(file).close();
    open.length = 0;
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => Ledger.open(file)).toThrow(/newer than this RAP Studio/);
    const junk = tempLedgerPath().replace('ledger.sqlite', 'junk.csv');
    Ledger.open(junk).close(); // creates the directory
    writeFileSync(junk, 'age,sex\n'.repeat(200));
    expect(() => Ledger.open(junk)).toThrow(/not a RAP Studio ledger/);
  });

  it('works in memory for callers that need no file', () => {
    const l = ledgerAt(':memory:');
    l.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 1 });
    expect(l.verify().ok).toBe(true);
  });
});
