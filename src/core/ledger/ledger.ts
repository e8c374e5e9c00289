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
 *   table and id. It also reports a dropped guard trigger. Truncating the newest events together
 *   with their state rows cannot be detected from inside the file: the anchor (anchor.ts), a file
 *   in another folder updated after every write, catches that, a deleted ledger and an older copy.
 * - SQLite triggers RAISE(ABORT) on any DELETE, on any UPDATE of events/aliases, on UPDATE of a
 *   release's spend columns (ρ, ε, δ, params, workload, …), and on any status change other than
 *   reserved → committed | aborted. Nothing ever deletes or edits a spend.
 * - Gate: reserve() runs in BEGIN IMMEDIATE (the write lock is taken before reading the spend),
 *   checks spent + requested ≤ cap (zCDP: ρ adds up; every status counts, since a crashed or
 *   cancelled run may already have drawn noise) and inserts the `reserved` row; it first checks
 *   the anchor. A 10 s busy timeout makes concurrent processes (app + CLI, or many CLIs) queue
 *   instead of fail; failures are typed (errors.ts: locked, read-only, full, corrupt, anchor).
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
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../errors.ts';
import { looseRhoFromEpsilon, rhoFromEpsilon } from '../privacy/accounting.ts';
import {
  type AnchorReport,
  anchorFor,
  anchorPathFor,
  checkAnchor,
  isRefused,
  type LedgerHead,
  readAnchor,
  writeAnchor,
} from './anchor.ts';
import { admits, computeTotals, describeDataset, noCapRefusal, overCapRefusal } from './budget.ts';
import { asLedgerError, LedgerAnchorError } from './errors.ts';
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

export interface LedgerIdentity {
  /** The hash of event 1 (null for an empty ledger). */
  readonly ledgerId: string | null;
  readonly events: number;
  readonly headHash: string | null;
}

export interface OpenOptions {
  /** The anchor file (anchor.ts); default anchorPathFor(file); null: no anchor (tests, :memory:). */
  readonly anchorFile?: string | null;
  /**
   * 'enforce' (default): a ledger missing, behind, rewritten or replaced relative to its anchor is
   * refused with LedgerAnchorError. 'report': opened anyway (`ledger verify` reports it); never
   * creates a missing file's anchor-less replacement — the caller checks `anchor` first.
   */
  readonly anchorCheck?: 'enforce' | 'report';
  /** Told when the anchor could not be brought up to date (the ledger write itself succeeded). */
  readonly onWarning?: (message: string) => void;
}

export class Ledger {
  private readonly state: SqlState;
  /** The anchor check made at open (updated after each write). */
  anchor: AnchorReport | null;
  /** The file's identity when opened: a file deleted or swapped under an open ledger is noticed. */
  private fileId: string | null = null;

  private constructor(
    private readonly db: Database.Database,
    readonly file: string,
    private readonly anchorFile: string | null,
    private readonly walFallback: boolean,
    private readonly onWarning: (message: string) => void,
  ) {
    this.state = new SqlState(db);
    this.anchor = null;
  }

  /**
   * Opens (creating the file and its directory if needed) and migrates the ledger at `file`, then
   * checks it against its anchor. Failures are typed (errors.ts): LedgerAnchorError, LedgerError
   * for a locked, read-only, full or corrupt ledger; InputError for a file that is no ledger.
   */
  static open(file: string, opts: OpenOptions = {}): Ledger {
    const inMemory = file === ':memory:';
    const anchorFile = inMemory
      ? null
      : opts.anchorFile === undefined
        ? anchorPathFor(file)
        : opts.anchorFile;
    const enforce = (opts.anchorCheck ?? 'enforce') === 'enforce';
    const anchor = anchorFile ? readAnchor(anchorFile, file) : null;
    if (anchorFile && anchor && !existsSync(file)) {
      const report = checkAnchor(file, anchorFile, anchor, null);
      throw new LedgerAnchorError(file, anchorFile, report.message);
    }
    let db: Database.Database;
    let walFallback: boolean;
    try {
      if (!inMemory) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    } catch (err) {
      throw asLedgerError(err, file, BUSY_TIMEOUT_MS);
    }
    try {
      walFallback = configure(db);
      migrate(db, file);
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
      throw asLedgerError(err, file, BUSY_TIMEOUT_MS);
    }
    const ledger = new Ledger(db, file, anchorFile, walFallback, opts.onWarning ?? (() => {}));
    ledger.fileId = fileIdentity(file);
    // The anchor is checked before anything is appended (the cap migration below writes events).
    if (anchorFile) {
      const report = checkAnchor(file, anchorFile, anchor, ledger.head());
      ledger.anchor = report;
      if (isRefused(report) && enforce) {
        db.close();
        throw new LedgerAnchorError(file, anchorFile, report.message);
      }
      if (report.status === 'ahead' || (report.status === 'none' && ledger.head().events > 0))
        ledger.updateAnchor();
    }
    try {
      ledger.reconvertLooseCaps();
    } catch (err) {
      db.close();
      throw err;
    }
    return ledger;
  }

  /**
   * The ledger's id and head as plain data, for release manifests: an auditor holding the
   * manifest can check that the ledger (and its anchor) reached at least this head.
   */
  identity(): LedgerIdentity {
    const { ledgerId, events, headHash } = this.head();
    return { ledgerId, events, headHash };
  }

  /** The ledger's id (hash of event 1), event count and head hash; for manifests and the anchor. */
  head(): LedgerHead {
    const first = this.db.prepare('SELECT hash FROM events WHERE id = 1').pluck().get() as string | undefined;
    const last = this.db.prepare('SELECT id, hash FROM events ORDER BY id DESC LIMIT 1').get() as
      | { id: number; hash: string }
      | undefined;
    const at = this.db.prepare('SELECT hash FROM events WHERE id = ?').pluck();
    return {
      ledgerId: first ?? null,
      events: last?.id ?? 0,
      headHash: last?.hash ?? null,
      hashAt: (seq: number) => at.get(seq) as string | undefined,
    };
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

  /**
   * Sets (or replaces) the dataset's cap, stated as (ε, δ) and stored as ρ plus δ, at a unit of
   * privacy: `unit` names the column that identifies persons (the budget is per person), absent
   * means per row. The unit is fixed with the cap: a release at another unit is refused (reserve),
   * and once the dataset has releases a new cap cannot change it (the spent ρ is at the old unit).
   */
  setCap(fingerprint: string, epsilon: number, delta: number, unit?: string): DatasetRecord {
    assertFingerprint(fingerprint);
    assertBudget(epsilon, delta);
    if (unit !== undefined) assertText(unit, 'unit');
    return this.write(() => {
      if (!this.state.dataset(fingerprint)) {
        throw new InputError(
          `No dataset with sha256 ${fingerprint} in the ledger: register it first (ensureDataset).`,
        );
      }
      const previous = this.capUnit(fingerprint);
      if (previous !== undefined && previous !== (unit ?? null) && this.spends(fingerprint).length > 0) {
        throw new InputError(
          `the dataset's budget was spent ${unitWords(previous)}; a new cap cannot change its unit to ` +
            `${unitWords(unit ?? null)} (spend at one unit does not bound the other without group privacy)`,
          { field: 'unit-column' },
        );
      }
      const rho = rhoFromEpsilon(epsilon, delta);
      this.record({
        kind: 'cap-set',
        payload: { fingerprint, rho, epsilon, delta, ...(unit !== undefined ? { unit } : {}) },
      });
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
      this.assertAnchored();
      const dataset = this.dataset(payload.fingerprint);
      if (!dataset?.cap) throw noCapRefusal(payload.fingerprint, dataset);
      // The unit is fixed with the cap: a release at another unit is refused, not converted.
      const capUnit = this.capUnit(payload.fingerprint) ?? null;
      const asked = (payload.params as { unit?: { column?: string } }).unit?.column ?? null;
      if (capUnit !== asked) {
        throw new InputError(
          `the budget of ${dataset.name} is ${unitWords(capUnit)}, and this release is ${unitWords(asked)}: ` +
            (capUnit === null
              ? 'release at the row level (no unit column), or, while the dataset has no release, set the cap again ' +
                "with the unit (`ledger set-cap --unit-column`; in the app, answer the Data step's question first)"
              : `add --unit-column ${capUnit} (in the app: answer Yes to "Can one person appear in more than one row?" with column ${capUnit})`),
          { field: 'unit-column' },
        );
      }
      const totals = computeTotals(dataset, this.spends(payload.fingerprint));
      if (!admits(dataset.cap.rho, totals.spentRho, payload.rho))
        throw overCapRefusal(dataset, totals, payload);
      this.record({ kind: 'release-reserved', payload });
      return this.releaseOrThrow(payload.id);
    });
  }

  /**
   * The unit of the dataset's cap in force: the column identifying persons, null for per-row, or
   * undefined when no cap was ever set. Read from the last cap-set event (the datasets table
   * predates units).
   */
  capUnit(fingerprint: string): string | null | undefined {
    const row = this.db
      .prepare(
        "SELECT payload FROM events WHERE kind = 'cap-set' AND json_extract(payload, '$.fingerprint') = ? ORDER BY id DESC LIMIT 1",
      )
      .get(fingerprint) as { payload: string } | undefined;
    if (!row) return undefined;
    const unit = (JSON.parse(row.payload) as { unit?: string }).unit;
    return unit ?? null;
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

  /** The hash chain and state tables (verify.ts), then the anchor: a refused anchor fails too. */
  verify(): VerifyResult {
    const chain = this.db.transaction(() => verifyLedger(this.db, this.state)).deferred();
    if (!this.anchorFile) return chain;
    const anchor = checkAnchor(
      this.file,
      this.anchorFile,
      readAnchor(this.anchorFile, this.file),
      this.head(),
    );
    if (chain.ok && isRefused(anchor)) {
      return {
        ok: false,
        firstBrokenTable: 'anchor',
        firstBrokenId: anchor.file,
        reason: anchor.message,
        anchor,
      };
    }
    return { ...chain, anchor };
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

  /**
   * Runs `fn` in BEGIN IMMEDIATE (the write lock is held from the first read); then the main
   * database file alone holds the commit (journal_mode DELETE, or a checkpoint on a ledger still
   * in WAL) and the anchor is brought up to date. SQLite and file-system failures become typed
   * LedgerErrors; the transaction is rolled back whole, so nothing is half-recorded.
   */
  private write<T>(fn: () => T): T {
    let out: T;
    try {
      out = this.db.transaction(fn).immediate();
    } catch (err) {
      throw asLedgerError(err, this.file, BUSY_TIMEOUT_MS);
    }
    if (this.walFallback) this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.updateAnchor();
    return out;
  }

  /**
   * Writes the anchor for the current head, under the write lock so that processes sharing the
   * ledger write their anchors in head order. Never throws: the ledger write it follows has
   * committed; a stale anchor only weakens the rollback check until the next write.
   */
  private updateAnchor(): void {
    if (!this.anchorFile || this.db.memory) return;
    const anchorFile = this.anchorFile;
    try {
      this.db
        .transaction(() => {
          const head = this.head();
          const anchor = anchorFor(this.file, head);
          if (anchor) writeAnchor(anchorFile, anchor);
          this.anchor = checkAnchor(this.file, anchorFile, anchor, head);
        })
        .immediate();
    } catch (err) {
      this.onWarning(
        `could not update the ledger's anchor ${anchorFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the ledger write itself succeeded`,
      );
    }
  }

  /** Inside a write: the ledger as it is now must still hold what its anchor records. */
  private assertAnchored(): void {
    if (!this.anchorFile) return;
    if (this.fileId !== fileIdentity(this.file)) {
      throw new LedgerAnchorError(
        this.file,
        this.anchorFile,
        `The privacy budget ledger ${this.file} was deleted or replaced by another file while RAP Studio had it open (its anchor is ${this.anchorFile}). Nothing was reserved. Restart RAP Studio: the ledger is then checked against its anchor again.`,
      );
    }
    const report = checkAnchor(
      this.file,
      this.anchorFile,
      readAnchor(this.anchorFile, this.file),
      this.head(),
    );
    if (isRefused(report)) throw new LedgerAnchorError(this.file, this.anchorFile, report.message);
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

function fileIdentity(file: string): string | null {
  if (file === ':memory:') return null;
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return 'missing';
  }
}

/**
 * A rollback journal (journal_mode DELETE), enforced foreign keys, and durable commits.
 *
 * Not WAL: in WAL a commit lives in the `-wal` file until a checkpoint, so copying (or backing
 * up) the main file alone silently rolls recent spends back. With a rollback journal the main
 * file holds every committed transaction. Cost, measured on this (loaded) 2-core machine, 200
 * single-event commits with synchronous=FULL: WAL 1–2 ms, DELETE 4–6 ms, WAL + checkpoint
 * (TRUNCATE) 4–8 ms wall per commit (0.2 / 0.6 / 0.5–0.7 CPU ms) — nothing next to a release.
 * A ledger another process still holds in WAL mode cannot switch; it stays in WAL and is
 * checkpointed after every write instead (returns true then).
 */
function configure(db: Database.Database): boolean {
  db.pragma('foreign_keys = ON');
  let wal = false;
  if (!db.memory) {
    const mode = db.pragma('journal_mode = DELETE', { simple: true });
    if (mode === 'wal') wal = true;
    else if (mode !== 'delete')
      throw new Error(`Could not set the ledger ${db.name}'s journal mode (got ${String(mode)}).`);
  }
  // A reservation must survive a power cut before the engine reads private data.
  db.pragma('synchronous = FULL');
  return wal;
}

/**
 * Whether a stored cap ρ is the loose conversion of its (ε, δ) (to 1e-12 relative) and below
 * the tight one, i.e. was written before the tight conversion and can be raised.
 */
function isLooseCap(rho: number, epsilon: number, delta: number): boolean {
  const loose = looseRhoFromEpsilon(epsilon, delta);
  return Math.abs(rho - loose) <= 1e-12 * loose && rhoFromEpsilon(epsilon, delta) > rho;
}

/** A unit in words: per person (column X) or per row. */
function unitWords(unit: string | null): string {
  return unit === null ? 'per row' : `per person (identified by column ${unit})`;
}
