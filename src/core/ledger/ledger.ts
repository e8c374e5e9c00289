/**
 * The privacy budget ledger: the durable record of every mechanism run against every dataset,
 * and the gate that refuses a run the remaining budget cannot pay for.
 *
 * Design
 * - Source of truth: an append-only `events` table (id, ts, kind, payload, prev_hash, hash). Every
 *   change — dataset registered, alias seen, row count learned, cap set, release reserved,
 *   committed, aborted — is one event. hash = SHA-256(prev_hash \n id \n ts \n kind \n payload)
 *   with payload in canonical JSON (sorted keys) and prev_hash of event 1 = 64 zeros (events.ts).
 * - Current state lives in ordinary tables (datasets, dataset_aliases, releases), derived from
 *   each event by the pure reducer in state.ts inside the same transaction that appends it. A
 *   release row also carries its reservation event's prev_hash/hash (ReleaseRecord.prevHash/rowHash).
 * - verify() recomputes the chain, replays every event through the same reducer in memory and
 *   compares the result with the state tables column by column, so editing releases.rho with the
 *   sqlite3 shell, deleting an event, or inserting a row by hand is reported with the first broken
 *   table and id. It also reports a dropped guard trigger. (Truncating the newest events together
 *   with their state rows cannot be detected from inside the file; an auditor anchors the head hash
 *   that verify() and `ledger export` print.)
 * - SQLite triggers RAISE(ABORT) on any DELETE, on any UPDATE of events/aliases, on UPDATE of a
 *   release's spend columns (ρ, ε, δ, params, workload, …), and on any status change other than
 *   reserved → committed | aborted. Nothing ever deletes or edits a spend.
 * - Gate: reserve() runs in BEGIN IMMEDIATE (the write lock is taken before reading the spend),
 *   checks spent + requested ≤ cap (zCDP: ρ adds up; every status counts, since a crashed or
 *   cancelled run may already have drawn noise) and inserts the `reserved` row. WAL mode and a
 *   10 s busy timeout make concurrent processes (app + CLI, or many CLIs) queue instead of fail.
 * - Datasets are identified by the SHA-256 of the file. The first name is kept; later names for
 *   the same bytes are recorded as aliases. rows = 0 means "not known yet" (a cap set with
 *   `ledger set-cap` before any run); the first ensureDataset with a row count records it once.
 * - A cap is stated as (ε, δ) and enforced as ρ = rhoFromEpsilon(ε, δ), the tight conversion of
 *   Canonne, Kamath & Steinke 2020; totals are shown as ε at the cap's δ by the same conversion.
 *   Setting a cap again replaces it (the old one stays in the event log).
 * - Ledgers written before the tight conversion (schema version 1) enforced caps with the loose
 *   ρ = (√(ε + ln 1/δ) − √(ln 1/δ))². Opening one appends a `cap-reconverted` event per such cap
 *   (same (ε, δ), tight ρ) — see reconvertLooseCaps. Recorded spends keep the ρ the engine used:
 *   what was spent was spent.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../errors.ts';
import { looseRhoFromEpsilon, rhoFromEpsilon } from '../privacy/accounting.ts';
import { admits, computeTotals, describeDataset, noCapRefusal, overCapRefusal } from './budget.ts';
import { chainEvent, type EventRow, type LedgerEvent } from './events.ts';
import { exportLedger } from './export.ts';
import { migrate } from './migrations.ts';
import { toDatasetRecord, toReleaseRecord } from './records.ts';
import { type AliasRow, type DatasetRow, type ReleaseRow, reduce } from './state.ts';
import { SqlState } from './store.ts';
import type { BudgetTotals, DatasetRecord, ReleaseRecord, ReserveRequest, VerifyResult } from './types.ts';
import {
  assertBudget,
  assertFingerprint,
  assertRows,
  assertSha256,
  assertText,
  reservePayload,
} from './validate.ts';
import { verifyLedger } from './verify.ts';

/** How long a process waits for another's write lock before giving up. */
export const BUSY_TIMEOUT_MS = 10_000;

export class Ledger {
  private readonly state: SqlState;

  private constructor(
    private readonly db: Database.Database,
    readonly file: string,
  ) {
    this.state = new SqlState(db);
  }

  /** Opens (creating the file and its directory if needed) and migrates the ledger at `file`. */
  static open(file: string): Ledger {
    const inMemory = file === ':memory:';
    if (!inMemory) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    const ledger = new Ledger(db, file);
    try {
      configure(db);
      migrate(db, file);
      ledger.reconvertLooseCaps();
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code === 'SQLITE_NOTADB') {
        throw new InputError(
          `${file} is not a RAP Studio ledger (not an SQLite database). Pass --ledger PATH.`,
          {
            file,
          },
        );
      }
      throw err;
    }
    return ledger;
  }

  close(): void {
    this.db.close();
  }

  /** Finds the dataset by fingerprint, registering it (or a new name as an alias) if needed. */
  ensureDataset(d: { fingerprint: string; name: string; rows: number }): DatasetRecord {
    assertFingerprint(d.fingerprint);
    assertText(d.name, 'name');
    assertRows(d.rows, 'rows', 0);
    return this.write(() => {
      const existing = this.state.dataset(d.fingerprint);
      if (!existing) {
        this.record({
          kind: 'dataset-registered',
          payload: { fingerprint: d.fingerprint, name: d.name, rows: d.rows },
        });
      } else {
        if (d.name !== existing.name && !this.state.alias(d.fingerprint, d.name)) {
          this.record({ kind: 'dataset-alias', payload: { fingerprint: d.fingerprint, name: d.name } });
        }
        if (existing.rows === 0 && d.rows > 0) {
          this.record({ kind: 'dataset-rows', payload: { fingerprint: d.fingerprint, rows: d.rows } });
        }
      }
      return this.datasetOrThrow(d.fingerprint);
    });
  }

  dataset(fingerprint: string): DatasetRecord | undefined {
    const row = this.state.dataset(fingerprint);
    return row ? toDatasetRecord(row, this.aliasRows(fingerprint)) : undefined;
  }

  datasets(): DatasetRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM datasets ORDER BY created_at, fingerprint')
      .all() as DatasetRow[];
    return rows.map((r) => toDatasetRecord(r, this.aliasRows(r.fingerprint)));
  }

  /** Sets (or replaces) the dataset's cap, stated as (ε, δ) and stored as ρ plus δ. */
  setCap(fingerprint: string, epsilon: number, delta: number): DatasetRecord {
    assertFingerprint(fingerprint);
    assertBudget(epsilon, delta);
    return this.write(() => {
      if (!this.state.dataset(fingerprint)) {
        throw new InputError(
          `No dataset with sha256 ${fingerprint} in the ledger: register it first (ensureDataset).`,
        );
      }
      const rho = rhoFromEpsilon(epsilon, delta);
      this.record({ kind: 'cap-set', payload: { fingerprint, rho, epsilon, delta } });
      return this.datasetOrThrow(fingerprint);
    });
  }

  /**
   * Atomically checks the budget and records the run as `reserved`; call before the engine reads
   * a single private value. Throws BudgetRefusedError when the cap cannot pay (or is not set).
   */
  reserve(req: ReserveRequest): ReleaseRecord {
    const payload = reservePayload(randomUUID(), req);
    return this.write(() => {
      const dataset = this.dataset(payload.fingerprint);
      if (!dataset?.cap) throw noCapRefusal(payload.fingerprint, dataset);
      const totals = computeTotals(dataset, this.spends(payload.fingerprint));
      if (!admits(dataset.cap.rho, totals.spentRho, payload.rho))
        throw overCapRefusal(dataset, totals, payload);
      this.record({ kind: 'release-reserved', payload });
      return this.releaseOrThrow(payload.id);
    });
  }

  /** Marks a reserved run as released, with the SHA-256 of its output file. */
  commit(releaseId: string, output: { sha256: string; path?: string }): ReleaseRecord {
    assertSha256(output?.sha256, 'output.sha256');
    return this.write(() => {
      this.reservedOrThrow(releaseId);
      const payload = { id: releaseId, outputSha256: output.sha256, outputPath: output.path ?? null };
      this.record({ kind: 'release-committed', payload });
      return this.releaseOrThrow(releaseId);
    });
  }

  /** Marks a reserved run as aborted (cancelled or failed). Its spend stays counted. */
  abort(releaseId: string, reason: string): ReleaseRecord {
    assertText(reason, 'reason');
    return this.write(() => {
      this.reservedOrThrow(releaseId);
      this.record({ kind: 'release-aborted', payload: { id: releaseId, reason } });
      return this.releaseOrThrow(releaseId);
    });
  }

  /** Releases in the order they were reserved. */
  releases(filter: { fingerprint?: string } = {}): ReleaseRecord[] {
    const rows = (
      filter.fingerprint === undefined
        ? this.db.prepare('SELECT * FROM releases ORDER BY reserve_event_id').all()
        : this.db
            .prepare('SELECT * FROM releases WHERE dataset_fingerprint = ? ORDER BY reserve_event_id')
            .all(filter.fingerprint)
    ) as ReleaseRow[];
    return rows.map(toReleaseRecord);
  }

  release(id: string): ReleaseRecord | undefined {
    const row = this.state.release(id);
    return row ? toReleaseRecord(row) : undefined;
  }

  /** zCDP totals for one dataset; throws InputError for a dataset not in the ledger. */
  totals(fingerprint: string): BudgetTotals {
    const dataset = this.datasetOrThrow(fingerprint);
    return computeTotals(dataset, this.spends(fingerprint));
  }

  verify(): VerifyResult {
    return this.db.transaction(() => verifyLedger(this.db, this.state)).deferred();
  }

  export(format: 'csv' | 'json'): string {
    return this.db
      .transaction(() => {
        const datasets = this.datasets();
        const events = this.db.prepare('SELECT * FROM events ORDER BY id').all() as EventRow[];
        return exportLedger(format, {
          datasets: datasets.map((d) => ({ dataset: d, totals: this.totals(d.fingerprint) })),
          releases: this.releases(),
          events,
        });
      })
      .deferred();
  }

  // ── internals ──

  /**
   * Migration to the tight (ε, δ) → ρ conversion (issue 19): a cap whose ρ is the loose
   * conversion of its own (ε, δ) was set by a version before it, so it gets the tight ρ of the
   * same (ε, δ) — the guarantee the curator stated, which the tight ρ still implies. Appended as
   * events, so the chain and verify() hold; runs on every open and finds nothing the second time.
   */
  private reconvertLooseCaps(): void {
    const caps = this.db
      .prepare(
        'SELECT fingerprint, cap_rho, cap_epsilon, cap_delta FROM datasets WHERE cap_rho IS NOT NULL ORDER BY created_at, fingerprint',
      )
      .all() as { fingerprint: string; cap_rho: number; cap_epsilon: number; cap_delta: number }[];
    const stale = caps.filter((c) => isLooseCap(c.cap_rho, c.cap_epsilon, c.cap_delta));
    if (stale.length === 0) return;
    this.write(() => {
      for (const c of caps) {
        // Re-read inside the write lock: another process may have migrated it meanwhile.
        const d = this.state.dataset(c.fingerprint);
        if (!d || d.cap_rho === null || d.cap_epsilon === null || d.cap_delta === null) continue;
        if (!isLooseCap(d.cap_rho, d.cap_epsilon, d.cap_delta)) continue;
        this.record({
          kind: 'cap-reconverted',
          payload: {
            fingerprint: d.fingerprint,
            epsilon: d.cap_epsilon,
            delta: d.cap_delta,
            previousRho: d.cap_rho,
            rho: rhoFromEpsilon(d.cap_epsilon, d.cap_delta),
          },
        });
      }
    });
  }

  /** Runs `fn` in BEGIN IMMEDIATE: the write lock is held from the first read. */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Appends an event to the chain and applies it to the state tables (inside write()). */
  private record(event: LedgerEvent): void {
    const head = this.db.prepare('SELECT id, hash FROM events ORDER BY id DESC LIMIT 1').get() as
      | { id: number; hash: string }
      | undefined;
    const row = chainEvent(head, new Date().toISOString(), event);
    this.db
      .prepare(
        'INSERT INTO events (id, ts, kind, payload, prev_hash, hash) VALUES (@id, @ts, @kind, @payload, @prev_hash, @hash)',
      )
      .run(row);
    this.state.apply(
      reduce(this.state, { id: row.id, ts: row.ts, prevHash: row.prev_hash, hash: row.hash, event }),
    );
  }

  private spends(fingerprint: string): number[] {
    return this.db
      .prepare('SELECT rho FROM releases WHERE dataset_fingerprint = ? ORDER BY reserve_event_id')
      .pluck()
      .all(fingerprint) as number[];
  }

  private aliasRows(fingerprint: string): AliasRow[] {
    return this.db
      .prepare('SELECT * FROM dataset_aliases WHERE fingerprint = ? ORDER BY added_at, name')
      .all(fingerprint) as AliasRow[];
  }

  private datasetOrThrow(fingerprint: string): DatasetRecord {
    const d = this.dataset(fingerprint);
    if (!d) throw new InputError(`No dataset with sha256 ${fingerprint} in the ledger ${this.file}.`);
    return d;
  }

  private releaseOrThrow(id: string): ReleaseRecord {
    const r = this.release(id);
    if (!r) throw new InputError(`No release with id ${JSON.stringify(id)} in the ledger ${this.file}.`);
    return r;
  }

  private reservedOrThrow(id: string): ReleaseRecord {
    const r = this.releaseOrThrow(id);
    if (r.status !== 'reserved') {
      const d = this.dataset(r.datasetFingerprint);
      throw new InputError(
        `Release ${id}${d ? ` of ${describeDataset(d)}` : ''} is already ${r.status}; only a reserved run can be committed or aborted.`,
      );
    }
    return r;
  }
}

/**
 * Whether a stored cap ρ is the loose conversion of its (ε, δ) (to 1e-12 relative) and below
 * the tight one, i.e. was written before the tight conversion and can be raised.
 */
function isLooseCap(rho: number, epsilon: number, delta: number): boolean {
  const loose = looseRhoFromEpsilon(epsilon, delta);
  return Math.abs(rho - loose) <= 1e-12 * loose && rhoFromEpsilon(epsilon, delta) > rho;
}

/** WAL (readers never block the writer), enforced foreign keys, and durable commits. */
function configure(db: Database.Database): void {
  db.pragma('foreign_keys = ON');
  if (!db.memory) {
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal')
      throw new Error(`Could not put the ledger ${db.name} in WAL mode (got ${String(mode)}).`);
  }
  // A reservation must survive a power cut before the engine reads private data.
  db.pragma('synchronous = FULL');
}
