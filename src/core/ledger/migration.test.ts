/**
 * Migration to the tight (ε, δ) → ρ conversion (issue 19) on a ledger written the way version 1
 * wrote it: schema 1, caps enforced with the loose ρ, spends whose ε is the loose ε of their ρ.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  epsilonFromRho,
  looseEpsilonFromRho,
  looseRhoFromEpsilon,
  rhoFromEpsilon,
} from '../privacy/accounting.ts';
import type { LedgerEvent } from './events.ts';
import { Ledger } from './ledger.ts';
import { SCHEMA_VERSION } from './migrations.ts';
import { fingerprintOf, requestFor, tempLedgerPath, writeOldLedger } from './testing/fixtures.ts';

const FP = fingerprintOf('adult.csv bytes');
const OTHER = fingerprintOf('loans.csv bytes');
const DELTA = 1 / 48842 ** 2;

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

/** Writes a schema-1 ledger file event by event, as the code before issue 19 did. */
function writeVersion1Ledger(file: string, events: LedgerEvent[]): void {
  expect(writeOldLedger(file, 1, events).ok).toBe(true);
}

/** A spend recorded by version 1: ρ from the loose conversion of the run's ε. */
function oldSpend(id: string, fingerprint: string, epsilon: number): LedgerEvent {
  const rho = looseRhoFromEpsilon(epsilon, DELTA);
  const req = requestFor(fingerprint, rho, DELTA);
  return {
    kind: 'release-reserved',
    payload: { ...req, id, epsilon: looseEpsilonFromRho(rho, DELTA) },
  };
}

function oldLedger(): string {
  const file = tempLedgerPath();
  mkdirSync(path.dirname(file), { recursive: true });
  writeVersion1Ledger(file, [
    { kind: 'dataset-registered', payload: { fingerprint: FP, name: 'adult.csv', rows: 48842 } },
    // A cap replaced once: only the cap in force is re-converted.
    {
      kind: 'cap-set',
      payload: { fingerprint: FP, epsilon: 1, delta: DELTA, rho: looseRhoFromEpsilon(1, DELTA) },
    },
    {
      kind: 'cap-set',
      payload: { fingerprint: FP, epsilon: 2, delta: DELTA, rho: looseRhoFromEpsilon(2, DELTA) },
    },
    oldSpend('r1', FP, 0.5),
    { kind: 'release-committed', payload: { id: 'r1', outputSha256: FP, outputPath: null } },
    oldSpend('r2', FP, 1),
    { kind: 'release-aborted', payload: { id: 'r2', reason: 'cancelled' } },
    { kind: 'dataset-registered', payload: { fingerprint: OTHER, name: 'loans.csv', rows: 0 } },
  ]);
  return file;
}

function openLedger(file: string): Ledger {
  const l = Ledger.open(file);
  open.push(l);
  return l;
}

function eventKinds(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT kind FROM events ORDER BY id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

describe('migration to the tight conversion', () => {
  it('raises the cap in force to the tight ρ of its (ε, δ); spends keep their ρ; verify holds', () => {
    const file = oldLedger();
    const before = eventKinds(file);
    const l = openLedger(file);
    expect(eventKinds(file)).toEqual([...before, 'cap-reconverted']);
    expect(l.verify().ok).toBe(true);

    const cap = l.dataset(FP)?.cap;
    expect(cap?.epsilon).toBe(2);
    expect(cap?.delta).toBe(DELTA);
    expect(cap?.rho).toBe(rhoFromEpsilon(2, DELTA));
    // When the curator set it (event 3, the cap in force), not the migration.
    expect(cap?.setAt).toBe(JSON.parse(l.export('json')).events[2].ts); // the second cap-set
    expect(l.dataset(OTHER)?.cap).toBeNull();

    // What was spent was spent: the engine's ρ, with the ε recorded at the time.
    const spends = l.releases().map((r) => [r.rho, r.epsilon]);
    expect(spends).toEqual([
      [looseRhoFromEpsilon(0.5, DELTA), looseEpsilonFromRho(looseRhoFromEpsilon(0.5, DELTA), DELTA)],
      [looseRhoFromEpsilon(1, DELTA), looseEpsilonFromRho(looseRhoFromEpsilon(1, DELTA), DELTA)],
    ]);

    // The remaining budget is the tight cap minus the ρ spent, stated as the tight ε.
    const spent = looseRhoFromEpsilon(0.5, DELTA) + looseRhoFromEpsilon(1, DELTA);
    const t = l.totals(FP);
    expect(t.capRho).toBe(rhoFromEpsilon(2, DELTA));
    expect(t.capEpsilon).toBeCloseTo(2, 12);
    expect(t.spentRho).toBe(spent);
    expect(t.remainingRho).toBe(rhoFromEpsilon(2, DELTA) - spent);
    expect(t.remainingEpsilon).toBe(epsilonFromRho(rhoFromEpsilon(2, DELTA) - spent, DELTA));
    // More remains than before the migration (loose cap, loose ε).
    expect(t.remainingRho as number).toBeGreaterThan(looseRhoFromEpsilon(2, DELTA) - spent);
  });

  it('runs once: reopening appends nothing, and the schema version says so', () => {
    const file = oldLedger();
    openLedger(file).close();
    open.pop();
    const after = eventKinds(file);
    const l = openLedger(file);
    expect(eventKinds(file)).toEqual(after);
    expect(l.verify().ok).toBe(true);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('leaves caps set with the tight conversion alone, and admits spends up to the tight cap', () => {
    const l = openLedger(':memory:');
    l.ensureDataset({ fingerprint: FP, name: 'adult.csv', rows: 48842 });
    l.setCap(FP, 1, DELTA);
    l.reserve(requestFor(FP, rhoFromEpsilon(1, DELTA), DELTA));
    expect(l.totals(FP).remainingRho).toBe(0);

    const file = oldLedger();
    const m = openLedger(file);
    const remaining = m.totals(FP).remainingRho as number;
    expect(() => m.reserve(requestFor(FP, remaining * (1 + 1e-9), DELTA))).toThrow(/Run refused/);
    m.reserve(requestFor(FP, remaining, DELTA));
    expect(m.totals(FP).remainingRho).toBe(0);
    expect(m.verify().ok).toBe(true);
  });

  it('verify reports a cap whose stored ρ is edited after the migration', () => {
    const file = oldLedger();
    openLedger(file).close();
    open.pop();
    const db = new Database(file);
    db.prepare('UPDATE datasets SET cap_rho = cap_rho * 2 WHERE fingerprint = ?').run(FP);
    db.close();
    const result = openLedger(file).verify();
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ firstBrokenTable: 'datasets' });
  });
});
