/**
 * Migration 4 (issue 26): partition selection's δ is charged. A schema-3 ledger, whose discovery
 * releases stated their partition-selection δ only in params.discovery.delta, is migrated: each
 * release row gets approx_delta by the rule the reducer applies to those events, verify holds, the
 * totals and the gate count that δ, and the column is guarded like every other spend column.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetRefusedError } from '../errors.ts';
import { epsilonFromRho, rhoFromEpsilon } from '../privacy/accounting.ts';
import type { LedgerEvent } from './events.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath, writeOldLedger } from './testing/fixtures.ts';

const FP = fingerprintOf('adult.data bytes, issue 26');
const CAP_DELTA = 1e-6;

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

/** A discovery release as schema 3 recorded it: reserved ρ(ε, δ), partition selection's δ/2 in params. */
function discoveryReserved(id: string, epsilon: number, delta: number): LedgerEvent {
  const req = requestFor(FP, rhoFromEpsilon(epsilon, delta), delta);
  return {
    kind: 'release-reserved',
    payload: {
      ...req,
      id,
      epsilon,
      mechanism: 'domain-discovery+rap-table',
      params: { ...req.params, discovery: { share: 0.2, delta: delta / 2, deltaTotal: delta } },
      schema: { ...req.schema, origin: 'discovered' },
    },
  };
}

function version3Ledger(): string {
  const file = tempLedgerPath();
  mkdirSync(path.dirname(file), { recursive: true });
  const result = writeOldLedger(file, 3, [
    { kind: 'dataset-registered', payload: { fingerprint: FP, name: 'adult.data', rows: 32561 } },
    {
      kind: 'cap-set',
      payload: { fingerprint: FP, epsilon: 4, delta: CAP_DELTA, rho: rhoFromEpsilon(4, CAP_DELTA) },
    },
    discoveryReserved('d1', 1, 4e-7),
    { kind: 'release-committed', payload: { id: 'd1', outputSha256: FP, outputPath: null } },
    { kind: 'release-reserved', payload: { ...requestFor(FP, 0.01, CAP_DELTA), id: 'p1' } },
  ]);
  expect(result.ok).toBe(true);
  return file;
}

describe('ledger migration 4: partition selection δ per release', () => {
  it('fills approx_delta from params.discovery.delta (0 for the others); verify holds; totals count it', () => {
    const file = version3Ledger();
    const l = Ledger.open(file);
    open.push(l);
    expect(l.verify().ok).toBe(true);
    expect(l.release('d1')?.approxDelta).toBe(2e-7);
    expect(l.release('p1')?.approxDelta).toBe(0);
    const t = l.totals(FP);
    expect(t.spentApproxDelta).toBe(2e-7);
    // The dataset's ε so far is stated at what the δ-spend leaves of the cap's δ.
    expect(t.spentEpsilon).toBeCloseTo(epsilonFromRho(t.spentRho, CAP_DELTA - 2e-7), 12);
    expect(t.remainingRho).toBeCloseTo(rhoFromEpsilon(4, CAP_DELTA - 2e-7) - t.spentRho, 15);
  });

  it('the gate counts the migrated δ: a discovery release that would exceed the cap δ is refused', () => {
    const l = Ledger.open(version3Ledger());
    open.push(l);
    // 2e-7 spent: a release spending 8e-7 of δ leaves nothing for the conversion.
    const big = { ...requestFor(FP, rhoFromEpsilon(0.1, 8e-7), 1.6e-6), epsilon: 0.1, approxDelta: 8e-7 };
    expect(() => l.reserve(big)).toThrow(BudgetRefusedError);
    const fits = { ...requestFor(FP, rhoFromEpsilon(0.1, 3e-7), 6e-7), epsilon: 0.1, approxDelta: 3e-7 };
    expect(l.reserve(fits).approxDelta).toBe(3e-7);
    expect(l.totals(FP).spentApproxDelta).toBeCloseTo(5e-7, 20);
    expect(l.verify().ok).toBe(true);
  });

  it('approx_delta is a guarded spend column', () => {
    const file = version3Ledger();
    Ledger.open(file).close();
    const db = new Database(file);
    expect(() => db.exec("UPDATE releases SET approx_delta = 0 WHERE id = 'd1'")).toThrow(
      /a spend is immutable/,
    );
    db.close();
  });
});
