/** Test helpers: fingerprints, well-formed reservations and throwaway ledger paths. */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { epsilonFromRho } from '../../privacy/accounting.ts';
import { chainEvent, type LedgerEvent } from '../events.ts';
import { MIGRATIONS, migrate } from '../migrations.ts';
import { reduce } from '../state.ts';
import { SqlState } from '../store.ts';
import type { ReserveRequest, VerifyResult } from '../types.ts';
import { verifyLedger } from '../verify.ts';

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

/**
 * Writes a ledger file at an older schema version, event by event, as the code of that version
 * did (its migrations only, its user_version); returns its verification at that version.
 */
let oldLedgers = 0;

export function writeOldLedger(file: string, version: number, events: readonly LedgerEvent[]): VerifyResult {
  const db = new Database(file);
  for (const sql of MIGRATIONS.slice(0, version)) db.exec(sql);
  db.pragma(`user_version = ${version}`);
  const state = new SqlState(db);
  let head: { id: number; hash: string } | undefined;
  // Event i at second i after a start unique to this call (the clock in µs-ish steps and the
  // process): two files written alike still have different identities (the hash of event 1), as
  // two real ledgers do, so their anchors stay apart.
  const day = Date.UTC(2026, 0, 1) + ((Date.now() * 97 + process.pid * 7 + oldLedgers++) % 1e10);
  events.forEach((event, i) => {
    const row = chainEvent(head, new Date(day + i * 1000).toISOString(), event);
    db.prepare(
      'INSERT INTO events (id, ts, kind, payload, prev_hash, hash) VALUES (@id, @ts, @kind, @payload, @prev_hash, @hash)',
    ).run(row);
    // Before schema 4 there is no dataset_files table, a release row has no approx_delta and a
    // dataset row no columns (migration 4 adds them).
    const reader = version < 4 ? Object.assign(Object.create(state), { file: () => undefined }) : state;
    const change = reduce(reader, { id: row.id, ts: row.ts, prevHash: row.prev_hash, hash: row.hash, event });
    if (version < 4 && change.table === 'releases') {
      const { approx_delta: _, ...old } = change.row;
      state.apply({ table: 'releases', row: old as typeof change.row });
    } else if (version < 4 && change.table === 'datasets') {
      const { columns: _, ...old } = change.row;
      state.apply({ table: 'datasets', row: old as typeof change.row });
    } else state.apply(change);
    head = { id: row.id, hash: row.hash };
  });
  // The reducer writes today's rows; a file before schema 4 lacks approx_delta, so it is checked
  // as today's code reads it: a copy in memory, migrated (the file itself stays at `version`).
  let result: VerifyResult;
  if (version < 4) {
    const copy = new Database(db.serialize());
    migrate(copy, ':memory:');
    result = verifyLedger(copy, new SqlState(copy));
    copy.close();
  } else result = verifyLedger(db, state);
  db.close();
  return result;
}
