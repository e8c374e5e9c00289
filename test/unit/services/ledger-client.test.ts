import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetRefusedError, InputError } from '../../../src/core/errors.ts';
import { asLedgerError, LedgerAnchorError, LedgerError } from '../../../src/core/ledger/errors.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from '../../../src/core/ledger/testing/fixtures.ts';
import { rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import { LedgerClient } from '../../../src/services/ledger-client.ts';

const FP = fingerprintOf('client.csv');
const CAP = rhoFromEpsilon(1, 1e-6);
const clients: LedgerClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

async function openClient(file = tempLedgerPath()): Promise<LedgerClient> {
  const c = await LedgerClient.open(file);
  clients.push(c);
  return c;
}

describe('the ledger in a worker thread', () => {
  it('answers like the Ledger, errors rebuilt as their classes', async () => {
    const c = await openClient();
    await c.ledger.ensureDataset({ fingerprint: FP, name: 'client.csv', rows: 100 });
    await c.ledger.setCap(FP, 1, 1e-6);
    const r = await c.ledger.reserve(requestFor(FP, CAP / 2));
    expect(r.status).toBe('reserved');
    await expect(c.ledger.reserve(requestFor(FP, CAP))).rejects.toBeInstanceOf(BudgetRefusedError);
    await expect(c.ledger.setCap(fingerprintOf('nope'), 1, 1e-6)).rejects.toBeInstanceOf(InputError);
    expect(await c.ledger.identity()).toMatchObject({ events: 3 });
    expect((await c.ledger.verify()).ok).toBe(true);
  });

  it('a ledger refused by its anchor is refused at open, as LedgerAnchorError', async () => {
    const file = tempLedgerPath();
    const c = await openClient(file);
    await c.ledger.ensureDataset({ fingerprint: FP, name: 'client.csv', rows: 100 });
    await c.close();
    rmSync(file);
    await expect(LedgerClient.open(file)).rejects.toBeInstanceOf(LedgerAnchorError);
  });

  it('a lock wait blocks the worker, not the event loop', async () => {
    const file = tempLedgerPath();
    const c = await openClient(file);
    await c.ledger.ensureDataset({ fingerprint: FP, name: 'client.csv', rows: 100 });
    await c.ledger.setCap(FP, 1, 1e-6);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE'); // another process holds the write lock
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const reserving = c.ledger.reserve(requestFor(FP, CAP / 4));
    await new Promise((r) => setTimeout(r, 600));
    const during = ticks;
    other.exec('COMMIT');
    other.close();
    const r = await reserving;
    clearInterval(timer);
    expect(r.status).toBe('reserved');
    expect(during).toBeGreaterThan(20); // ~60 ticks of 10 ms while the worker waited
  });

  it('SQLite failures map to the four problems', () => {
    const busy = asLedgerError(
      Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
      '/l',
      10_000,
    );
    expect(busy).toBeInstanceOf(LedgerError);
    expect((busy as LedgerError).message).toMatch(/locked by another RAP Studio process.*10 s/);
    const codes = {
      SQLITE_READONLY: 'read-only',
      SQLITE_FULL: 'full',
      SQLITE_CORRUPT: 'corrupt',
      ENOSPC: 'full',
      EROFS: 'read-only',
    };
    for (const [code, problem] of Object.entries(codes))
      expect((asLedgerError(Object.assign(new Error(code), { code }), '/l', 1) as LedgerError).problem).toBe(
        problem,
      );
    const other = new Error('x');
    expect(asLedgerError(other, '/l', 1)).toBe(other);
  });
});
