import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { LedgerAnchorError } from './errors.ts';
import { eventHash } from './events.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('adult.csv bytes');
const CAP_RHO = rhoFromEpsilon(2, 1e-6);
const SQLITE3 = '/usr/bin/sqlite3';

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

/** A closed ledger file holding: dataset, cap, 3 reservations (one committed, one aborted). */
function populatedLedger(): { file: string; ids: string[] } {
  const file = tempLedgerPath();
  const l = Ledger.open(file);
  l.ensureDataset({ fingerprint: FP, name: 'adult.csv', rows: 48842 });
  l.setCap(FP, 2, 1e-6);
  const ids = [0, 1, 2].map(() => l.reserve(requestFor(FP, CAP_RHO / 10)).id);
  l.commit(ids[0], { sha256: fingerprintOf('out') });
  l.abort(ids[1], 'cancelled');
  expect(l.verify().ok).toBe(true);
  l.close();
  return { file, ids };
}

/** Opened as `ledger verify` opens it: an anchor mismatch is reported, not refused. */
function verifyAt(file: string) {
  const l = Ledger.open(file, { anchorCheck: 'report' });
  open.push(l);
  return l.verify();
}

/** What someone with the sqlite3 shell could do: drop the guards, then edit. */
function rawTamper(file: string, sql: string): void {
  const db = new Database(file);
  db.pragma('foreign_keys = OFF'); // the sqlite3 shell's default
  for (const name of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all()) {
    db.exec(`DROP TRIGGER "${name}"`);
  }
  db.exec(sql);
  db.close();
}

describe('guard triggers', () => {
  it('refuse raw edits and deletes of spends and events', () => {
    const { file, ids } = populatedLedger();
    const db = new Database(file);
    const tries: [string, RegExp][] = [
      [`UPDATE releases SET rho = rho / 2 WHERE id = '${ids[2]}'`, /spend is immutable/],
      [`UPDATE releases SET epsilon = 0.001`, /spend is immutable/],
      [`DELETE FROM releases WHERE id = '${ids[1]}'`, /append-only/],
      [`UPDATE releases SET status = 'reserved' WHERE id = '${ids[0]}'`, /status moves only/],
      [`UPDATE releases SET status = 'aborted' WHERE id = '${ids[0]}'`, /status moves only/],
      [`UPDATE events SET payload = '{}' WHERE id = 1`, /immutable/],
      ['DELETE FROM events WHERE id = 5', /append-only/],
      [`UPDATE datasets SET name = 'x'`, /immutable/],
      ['DELETE FROM datasets', /append-only/],
    ];
    for (const [sql, message] of tries) expect(() => db.exec(sql), sql).toThrow(message);
    db.close();
    expect(verifyAt(file).ok).toBe(true);
  });
});

describe('verify', () => {
  it('detects a release whose rho was edited through a second connection with the triggers dropped', () => {
    const { file, ids } = populatedLedger();
    rawTamper(file, `UPDATE releases SET rho = rho / 100 WHERE id = '${ids[2]}'`);
    const result = verifyAt(file);
    expect(result).toMatchObject({ ok: false, firstBrokenTable: 'releases', firstBrokenId: ids[2] });
    expect(!result.ok && result.reason).toMatch(/column rho .* event log says/);
  });

  it.skipIf(!existsSync(SQLITE3))('detects a row edited with the real sqlite3 shell', () => {
    const { file, ids } = populatedLedger();
    execFileSync(SQLITE3, [
      file,
      `DROP TRIGGER releases_spend_immutable; UPDATE releases SET epsilon = 0.01 WHERE id = '${ids[0]}';`,
    ]);
    expect(verifyAt(file)).toMatchObject({ ok: false, firstBrokenTable: 'releases', firstBrokenId: ids[0] });
  });

  it('detects a deleted event row, naming the first broken link', () => {
    const { file } = populatedLedger();
    rawTamper(file, 'DELETE FROM events WHERE id = 3');
    const result = verifyAt(file);
    expect(result).toMatchObject({ ok: false, firstBrokenTable: 'events', firstBrokenId: '4' });
    expect(!result.ok && result.reason).toMatch(/event\(s\) 3\.\.3 were deleted/);
  });

  it('detects an edited event payload', () => {
    const { file } = populatedLedger();
    rawTamper(
      file,
      'UPDATE events SET payload = replace(payload, \'"rounds":10\', \'"rounds":11\') WHERE id = 4',
    );
    expect(verifyAt(file)).toMatchObject({ ok: false, firstBrokenTable: 'events', firstBrokenId: '4' });
  });

  it('detects a state edit even when the attacker re-hashes the whole chain to match', () => {
    const { file, ids } = populatedLedger();
    const db = new Database(file);
    db.pragma('foreign_keys = OFF');
    for (const name of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all()) {
      db.exec(`DROP TRIGGER "${name}"`);
    }
    // Halve the spend in the event log and rebuild every hash after it: the chain is now
    // self-consistent, but the releases table still holds the true ρ (or vice versa).
    const rows = db.prepare('SELECT * FROM events ORDER BY id').all() as {
      id: number;
      ts: string;
      kind: string;
      payload: string;
      prev_hash: string;
    }[];
    let prev = '0'.repeat(64);
    for (const r of rows) {
      const payload = r.id === 5 ? r.payload.replace(/"rho":[0-9.e-]+/, '"rho":1e-9') : r.payload;
      const hash = eventHash(prev, r.id, r.ts, r.kind, payload);
      db.prepare('UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE id = ?').run(
        payload,
        prev,
        hash,
        r.id,
      );
      prev = hash;
    }
    db.close();
    // The anchor outside the file holds the old head: the rewrite is refused at open.
    expect(() => Ledger.open(file)).toThrow(LedgerAnchorError);
    expect(() => Ledger.open(file)).toThrow(/history was rewritten.*anchor/);
    const result = verifyAt(file);
    expect(result).toMatchObject({ ok: false, firstBrokenTable: 'releases', firstBrokenId: ids[2] });
    expect(result.anchor?.status).toBe('rewritten');
    expect(!result.ok && result.reason).toMatch(/column rho is .* event log says 1e-9/);
  });

  it('detects a release row inserted by hand, and one deleted by hand', () => {
    const { file, ids } = populatedLedger();
    rawTamper(
      file,
      `INSERT INTO releases SELECT 'forged', dataset_fingerprint, 99, created_at, mechanism, epsilon, delta, rho,
         params, workload_hash, workload_json, schema_hash, schema_origin, seed_mode, backend, app_version, prev_hash,
         row_hash, status, status_changed_at, output_sha256, output_path, abort_reason, approx_delta FROM releases WHERE id = '${ids[0]}'`,
    );
    expect(verifyAt(file)).toMatchObject({
      ok: false,
      firstBrokenTable: 'releases',
      firstBrokenId: 'forged',
    });
    for (const l of open.splice(0)) l.close();
    const second = populatedLedger();
    rawTamper(second.file, `DELETE FROM releases WHERE id = '${second.ids[2]}'`);
    const result = verifyAt(second.file);
    expect(result).toMatchObject({ ok: false, firstBrokenTable: 'releases', firstBrokenId: second.ids[2] });
    expect(!result.ok && result.reason).toMatch(/missing/);
  });

  it('reports dropped guard triggers even when no data changed', () => {
    const { file } = populatedLedger();
    rawTamper(file, 'SELECT 1');
    expect(verifyAt(file)).toMatchObject({ ok: false, firstBrokenTable: 'sqlite_master' });
  });
});
