/**
 * Versioned schema migrations, tracked in PRAGMA user_version. Each migration runs once, inside
 * the same BEGIN IMMEDIATE transaction that reads the version, so processes opening a fresh file
 * at the same moment cannot both apply it.
 */
import type Database from 'better-sqlite3';
import { InputError } from '../errors.ts';

const APPEND_ONLY = (table: string, what: string) => `
CREATE TRIGGER ${table}_no_delete BEFORE DELETE ON ${table}
BEGIN SELECT RAISE(ABORT, 'ledger: ${what} are append-only and can never be deleted'); END;`;

/**
 * The releases table, its index and its guard triggers, allowing these schema origins. One text for
 * migration 1 and migration 3 (which only widens the origin CHECK), so the guards cannot drift apart.
 */
function releasesTable(origins: readonly string[]): string {
  return `CREATE TABLE releases (
  id TEXT PRIMARY KEY,
  dataset_fingerprint TEXT NOT NULL REFERENCES datasets(fingerprint),
  reserve_event_id INTEGER NOT NULL UNIQUE REFERENCES events(id),
  created_at TEXT NOT NULL,
  mechanism TEXT NOT NULL,
  epsilon REAL NOT NULL CHECK (epsilon > 0),
  delta REAL NOT NULL CHECK (delta > 0 AND delta < 1),
  rho REAL NOT NULL CHECK (rho > 0),
  params TEXT NOT NULL,
  workload_hash TEXT NOT NULL,
  workload_json TEXT NOT NULL,
  schema_hash TEXT NOT NULL,
  schema_origin TEXT NOT NULL CHECK (schema_origin IN (${origins.map((o) => `'${o}'`).join(', ')})),
  seed_mode TEXT NOT NULL CHECK (seed_mode IN ('secure', 'insecure-seed')),
  backend TEXT NOT NULL,
  app_version TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  row_hash TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('reserved', 'committed', 'aborted')),
  status_changed_at TEXT NOT NULL,
  output_sha256 TEXT,
  output_path TEXT,
  abort_reason TEXT
);
CREATE INDEX releases_by_dataset ON releases (dataset_fingerprint);
${APPEND_ONLY('releases', 'releases (spends)')}
CREATE TRIGGER releases_spend_immutable BEFORE UPDATE OF
  id, dataset_fingerprint, reserve_event_id, created_at, mechanism, epsilon, delta, rho, params,
  workload_hash, workload_json, schema_hash, schema_origin, seed_mode, backend, app_version,
  prev_hash, row_hash ON releases
BEGIN SELECT RAISE(ABORT, 'ledger: a spend is immutable; only its status may move from reserved'); END;
CREATE TRIGGER releases_status_transition BEFORE UPDATE OF
  status, status_changed_at, output_sha256, output_path, abort_reason ON releases
WHEN OLD.status <> 'reserved' OR NEW.status NOT IN ('committed', 'aborted')
BEGIN SELECT RAISE(ABORT, 'ledger: status moves only from reserved to committed or aborted'); END;
`;
}

/** Migration 1: the event chain, the state tables derived from it, and the guard triggers. */
const V1 = `
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE
);
${APPEND_ONLY('events', 'ledger events')}
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'ledger: events are immutable'); END;

CREATE TABLE datasets (
  fingerprint TEXT PRIMARY KEY CHECK (length(fingerprint) = 64),
  name TEXT NOT NULL,
  rows INTEGER NOT NULL CHECK (rows >= 0),
  created_at TEXT NOT NULL,
  cap_rho REAL CHECK (cap_rho > 0),
  cap_epsilon REAL CHECK (cap_epsilon > 0),
  cap_delta REAL CHECK (cap_delta > 0 AND cap_delta < 1),
  cap_set_at TEXT
);
${APPEND_ONLY('datasets', 'datasets')}
CREATE TRIGGER datasets_identity_immutable BEFORE UPDATE OF fingerprint, name, created_at ON datasets
BEGIN SELECT RAISE(ABORT, 'ledger: a dataset''s fingerprint, name and registration time are immutable'); END;
CREATE TRIGGER datasets_rows_once BEFORE UPDATE OF rows ON datasets
WHEN OLD.rows <> 0 AND NEW.rows <> OLD.rows
BEGIN SELECT RAISE(ABORT, 'ledger: a dataset''s row count is recorded once'); END;

CREATE TABLE dataset_aliases (
  fingerprint TEXT NOT NULL REFERENCES datasets(fingerprint),
  name TEXT NOT NULL,
  added_at TEXT NOT NULL,
  PRIMARY KEY (fingerprint, name)
);
${APPEND_ONLY('dataset_aliases', 'dataset aliases')}
CREATE TRIGGER dataset_aliases_no_update BEFORE UPDATE ON dataset_aliases
BEGIN SELECT RAISE(ABORT, 'ledger: dataset aliases are immutable'); END;

${releasesTable(['declared', 'inferred'])}`;

/**
 * Migration 2 (issue 19): no schema change. It marks ledgers whose caps may carry
 * `cap-reconverted` events (the tight (ε, δ) → ρ conversion; Ledger.reconvertLooseCaps appends
 * them), so a version that cannot read those events refuses the file instead of misreading it.
 */
const V2 = '-- tight (ε, δ) → ρ conversion: cap-reconverted events (no schema change)';

/**
 * Migration 3 (issue 17): a release's schema origin may be 'discovered' (some columns discovered
 * with differential privacy, none read off the data without it). SQLite cannot change a CHECK in
 * place, so the releases table is rebuilt in the migration's transaction: renamed aside, created
 * again, copied, the old one dropped. (Renaming the old table is safe here because no other table,
 * view or trigger refers to releases.) The rows are copied unchanged and the events are not touched: every
 * hash in the chain, and every row's match with the event that produced it, still verifies.
 * The old table's index and guard triggers follow it when it is renamed; they are dropped and created
 * again, with the same names, on the new table (DROP TABLE fires no DELETE trigger).
 */
const V3 = `
ALTER TABLE releases RENAME TO releases_v2;
DROP INDEX releases_by_dataset;
DROP TRIGGER releases_no_delete;
DROP TRIGGER releases_spend_immutable;
DROP TRIGGER releases_status_transition;
${releasesTable(['declared', 'inferred', 'discovered'])}
INSERT INTO releases SELECT * FROM releases_v2;
DROP TABLE releases_v2;
`;

/**
 * Migration 4 (issue 26): a release's δ of its approximate-zCDP part (partition selection) is
 * charged by the ledger, so each release row carries it: `approx_delta`, filled for the rows
 * written before from `params.discovery.delta` (what a discovery release recorded as partition
 * selection's δ; 0 for the others) — the rule the reducer applies to those events
 * (state.ts, approxDeltaOf). The guard on spend columns is created again to cover it.
 * Named datasets: a dataset's column names (`columns`, JSON, recorded once; NULL when not known)
 * and `dataset_files`, the other files (fingerprints) the curator chose to release against a
 * dataset's budget — a re-saved copy is never a fresh budget unless the curator says so.
 */
const V4 = `
ALTER TABLE releases ADD COLUMN approx_delta REAL NOT NULL DEFAULT 0 CHECK (approx_delta >= 0 AND approx_delta < 1);
UPDATE releases SET approx_delta = json_extract(params, '$.discovery.delta')
  WHERE json_type(params, '$.discovery.delta') IN ('real', 'integer');
ALTER TABLE datasets ADD COLUMN columns TEXT;
CREATE TRIGGER datasets_columns_once BEFORE UPDATE OF columns ON datasets
WHEN OLD.columns IS NOT NULL AND NEW.columns IS NOT OLD.columns
BEGIN SELECT RAISE(ABORT, 'ledger: a dataset''s column names are recorded once'); END;
CREATE TABLE dataset_files (
  fingerprint TEXT PRIMARY KEY CHECK (length(fingerprint) = 64),
  dataset_fingerprint TEXT NOT NULL REFERENCES datasets(fingerprint),
  name TEXT NOT NULL,
  rows INTEGER NOT NULL CHECK (rows >= 0),
  added_at TEXT NOT NULL
);
${APPEND_ONLY('dataset_files', 'files of a dataset')}
CREATE TRIGGER dataset_files_no_update BEFORE UPDATE ON dataset_files
BEGIN SELECT RAISE(ABORT, 'ledger: a file''s dataset is immutable'); END;
DROP TRIGGER releases_spend_immutable;
CREATE TRIGGER releases_spend_immutable BEFORE UPDATE OF
  id, dataset_fingerprint, reserve_event_id, created_at, mechanism, epsilon, delta, rho, approx_delta,
  params, workload_hash, workload_json, schema_hash, schema_origin, seed_mode, backend, app_version,
  prev_hash, row_hash ON releases
BEGIN SELECT RAISE(ABORT, 'ledger: a spend is immutable; only its status may move from reserved'); END;
`;

/** Index i holds the SQL that takes user_version i to i + 1. Append only; never edit one. */
export const MIGRATIONS: readonly string[] = [V1, V2, V3, V4];
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The triggers that keep spends immutable; verify() reports one that has gone missing. */
export const GUARD_TRIGGERS: readonly string[] = [
  'events_no_delete',
  'events_no_update',
  'datasets_no_delete',
  'datasets_identity_immutable',
  'datasets_rows_once',
  'dataset_aliases_no_delete',
  'dataset_aliases_no_update',
  'datasets_columns_once',
  'dataset_files_no_delete',
  'dataset_files_no_update',
  'releases_no_delete',
  'releases_spend_immutable',
  'releases_status_transition',
];

export function migrate(db: Database.Database, file: string): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new InputError(
        `The ledger ${file} has schema version ${version}, newer than this RAP Studio understands ` +
          `(${SCHEMA_VERSION}). Upgrade RAP Studio; never edit the ledger by hand.`,
        { file },
      );
    }
    for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
