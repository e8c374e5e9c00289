/**
 * Migration 3 (issue 17): a ledger written at schema 2, whose releases table allows the origins
 * 'declared' and 'inferred' only, opened by this version: the table is rebuilt so a release can be
 * recorded as 'discovered'; the old rows, the hash chain and the guard triggers survive unchanged.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import type { LedgerEvent } from './events.ts';
import { Ledger } from './ledger.ts';
import { GUARD_TRIGGERS, SCHEMA_VERSION } from './migrations.ts';
import { fingerprintOf, requestFor, tempLedgerPath, writeOldLedger } from './testing/fixtures.ts';
import type { SchemaOrigin } from './types.ts';

const FP = fingerprintOf('adult.data bytes');
const DELTA = 1e-9;

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

function reserved(id: string, origin: SchemaOrigin): LedgerEvent {
  const req = requestFor(FP, 0.01, DELTA);
  return { kind: 'release-reserved', payload: { ...req, id, schema: { ...req.schema, origin } } };
}

/** A schema-2 ledger: a dataset with a cap, a committed declared release and an aborted inferred one. */
function version2Ledger(): string {
  const file = tempLedgerPath();
  mkdirSync(path.dirname(file), { recursive: true });
  const result = writeOldLedger(file, 2, [
    { kind: 'dataset-registered', payload: { fingerprint: FP, name: 'adult.data', rows: 32561 } },
    {
      kind: 'cap-set',
      payload: { fingerprint: FP, epsilon: 4, delta: DELTA, rho: rhoFromEpsilon(4, DELTA) },
    },
    reserved('r1', 'declared'),
    { kind: 'release-committed', payload: { id: 'r1', outputSha256: FP, outputPath: null } },
    reserved('r2', 'inferred'),
    { kind: 'release-aborted', payload: { id: 'r2', reason: 'cancelled' } },
  ]);
  expect(result.ok).toBe(true);
  return file;
}

function inspect<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const releasesSql = (db: Database.Database) =>
  db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'releases'")
    .pluck()
    .get() as string;

describe('ledger migration 3: a release recorded as discovered', () => {
  it('a schema-2 file refuses "discovered" (the CHECK this migration widens)', () => {
    const file = version2Ledger();
    const db = new Database(file);
    expect(releasesSql(db)).toContain("CHECK (schema_origin IN ('declared', 'inferred'))");
    db.exec('DROP TRIGGER releases_spend_immutable');
    expect(() => db.exec("UPDATE releases SET schema_origin = 'discovered' WHERE id = 'r1'")).toThrow(
      /CHECK constraint failed/,
    );
    db.close();
  });

  it('migrates in place: rows, chain and triggers unchanged; verify holds; a discovered release is recorded', () => {
    const file = version2Ledger();
    const before = inspect(file, (db) => ({
      events: db.prepare('SELECT * FROM events ORDER BY id').all(),
      releases: db.prepare('SELECT * FROM releases ORDER BY id').all(),
    }));
    const l = Ledger.open(file);
    open.push(l);
    expect(l.verify().ok).toBe(true);
    inspect(file, (db) => {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
      expect(releasesSql(db)).toContain("CHECK (schema_origin IN ('declared', 'inferred', 'discovered'))");
      // Byte for byte the same rows and events: every stored hash still matches.
      expect(db.prepare('SELECT * FROM events ORDER BY id').all()).toEqual(before.events);
      // (migration 4 then adds approx_delta: 0 for these releases without discovery)
      expect(db.prepare('SELECT * FROM releases ORDER BY id').all()).toEqual(
        (before.releases as object[]).map((r) => ({ ...r, approx_delta: 0 })),
      );
      const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all();
      expect(new Set(triggers)).toEqual(new Set(GUARD_TRIGGERS));
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'releases_v2'").get()).toBeUndefined();
    });
    expect(l.releases().map((r) => [r.id, r.status, r.schema.origin])).toEqual([
      ['r1', 'committed', 'declared'],
      ['r2', 'aborted', 'inferred'],
    ]);

    const req = requestFor(FP, 0.01, DELTA);
    const r3 = l.reserve({ ...req, schema: { ...req.schema, origin: 'discovered' } });
    expect(l.release(r3.id)?.schema.origin).toBe('discovered');
    expect(l.verify().ok).toBe(true);
    const exported = JSON.parse(l.export('json'));
    expect(exported.releases.at(-1).schema.origin).toBe('discovered');
    expect(exported.schemaOrigins.discovered).toBe('domain discovered privately');
    expect(l.export('csv').trim().split('\n').at(-1)).toContain(',discovered,');
  });

  it('the rebuilt table keeps its guards: spends stay immutable and undeletable', () => {
    const file = version2Ledger();
    Ledger.open(file).close();
    const db = new Database(file);
    expect(() => db.exec("UPDATE releases SET rho = rho / 2 WHERE id = 'r1'")).toThrow(/spend is immutable/);
    expect(() => db.exec("UPDATE releases SET schema_origin = 'declared' WHERE id = 'r2'")).toThrow(
      /spend is immutable/,
    );
    expect(() => db.exec("DELETE FROM releases WHERE id = 'r2'")).toThrow(/append-only/);
    expect(() => db.exec("UPDATE releases SET status = 'reserved' WHERE id = 'r1'")).toThrow(
      /status moves only/,
    );
    db.close();
    const l = Ledger.open(file);
    open.push(l);
    expect(l.verify().ok).toBe(true);
  });

  it('the ledger refuses an origin outside the three, before writing anything', () => {
    const l = Ledger.open(':memory:');
    open.push(l);
    l.ensureDataset({ fingerprint: FP, name: 'adult.data', rows: 32561 });
    l.setCap(FP, 4, DELTA);
    const req = requestFor(FP, 0.01, DELTA);
    expect(() => l.reserve({ ...req, schema: { ...req.schema, origin: 'guessed' as SchemaOrigin } })).toThrow(
      /schema.origin must be one of 'declared', 'inferred', 'discovered', got "guessed"/,
    );
    expect(l.releases()).toHaveLength(0);
  });
});
