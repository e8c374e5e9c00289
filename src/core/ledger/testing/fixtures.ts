/** Test helpers: fingerprints, well-formed reservations and throwaway ledger paths. */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { epsilonFromRho } from '../../privacy/accounting.ts';
import type { ReserveRequest } from '../types.ts';

export function fingerprintOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function tempLedgerPath(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'rap-ledger-')), 'nested', 'ledger.sqlite');
}

/** A valid reservation spending `rho` at `delta` (ε derived through accounting.ts). */
export function requestFor(fingerprint: string, rho: number, delta = 1e-6): ReserveRequest {
  return {
    fingerprint,
    mechanism: 'rap-query',
    epsilon: epsilonFromRho(rho, delta),
    delta,
    rho,
    params: { rounds: 10, perRound: 4, rows: 1000, oversample: 5, learningRate: 0.003 },
    workload: { hash: fingerprintOf('workload'), json: '{"thresholds":[{"features":["age","sex"],"r":2}]}' },
    schema: { hash: fingerprintOf('schema'), origin: 'declared' },
    seedMode: 'secure',
    backend: 'cpu',
    appVersion: '0.1.0',
  };
}

/** Runs SQL on a ledger file behind the Ledger's back (tamper tests from outside core). */
export function rawSql(file: string, sql: string): void {
  const raw = new Database(file);
  raw.exec(sql);
  raw.close();
}
