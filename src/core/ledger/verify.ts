/**
 * Tamper evidence: recompute the hash chain, replay the events, and compare the replayed state
 * with the state tables. Reports the first broken link: the chain first (it is the root of
 * trust), then datasets, aliases and releases, then the guard triggers.
 */
import type Database from 'better-sqlite3';
import { type EventRow, eventHash, GENESIS_HASH, parseEventRow } from './events.ts';
import { GUARD_TRIGGERS } from './migrations.ts';
import { MemoryState, ReplayError, reduce, rowKey, type TableName } from './state.ts';
import type { SqlState } from './store.ts';
import type { VerifyResult } from './types.ts';

type Broken = Extract<VerifyResult, { ok: false }>;

const broken = (table: string, id: string | number, reason: string): Broken => ({
  ok: false,
  firstBrokenTable: table,
  firstBrokenId: String(id),
  reason,
});

export function verifyLedger(db: Database.Database, state: SqlState): VerifyResult {
  const memory = new MemoryState();
  let prev: EventRow | undefined;
  let count = 0;
  for (const row of db.prepare('SELECT * FROM events ORDER BY id').iterate() as Iterable<EventRow>) {
    const linkProblem = checkLink(prev, row);
    if (linkProblem) return broken('events', row.id, linkProblem);
    const parsed = parseEventRow(row);
    if (typeof parsed === 'string') return broken('events', row.id, parsed);
    try {
      memory.apply(reduce(memory, parsed));
    } catch (err) {
      if (err instanceof ReplayError) return broken('events', row.id, err.message);
      throw err;
    }
    prev = row;
    count++;
  }
  for (const table of ['datasets', 'dataset_aliases', 'dataset_files', 'releases'] as const) {
    const problem = compareTable(table, state, memory);
    if (problem) return problem;
  }
  const triggers = new Set(
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[],
  );
  const missing = GUARD_TRIGGERS.find((t) => !triggers.has(t));
  if (missing) {
    return broken(
      'sqlite_master',
      missing,
      'guard trigger dropped outside RAP Studio: spends are no longer write-protected',
    );
  }
  return { ok: true, rows: count, headHash: prev?.hash ?? GENESIS_HASH };
}

/** What is wrong with `row` as the event after `prev` (id sequence, link, own hash); undefined when nothing. */
export function checkLink(
  prev: Pick<EventRow, 'id' | 'hash'> | undefined,
  row: EventRow,
): string | undefined {
  const expectedId = (prev?.id ?? 0) + 1;
  if (row.id !== expectedId) {
    return row.id > expectedId
      ? `event ids jump from ${expectedId - 1} to ${row.id}: event(s) ${expectedId}..${row.id - 1} were deleted`
      : `event id ${row.id} out of sequence (expected ${expectedId})`;
  }
  const prevHash = prev?.hash ?? GENESIS_HASH;
  if (row.prev_hash !== prevHash)
    return `prev_hash does not match the hash of the event before it (${prevHash})`;
  if (row.hash !== eventHash(row.prev_hash, row.id, row.ts, row.kind, row.payload)) {
    return 'hash does not match the event content: the event was edited';
  }
  return undefined;
}

function compareTable(table: TableName, state: SqlState, memory: MemoryState): Broken | undefined {
  const expected = memory.rows(table) as Map<string, Record<string, unknown>>;
  const seen = new Set<string>();
  const display = (key: string) => key.replaceAll('\u0000', '/');
  for (const actual of state.all(table)) {
    const key = rowKey(table, actual);
    const want = expected.get(key);
    if (!want)
      return broken(table, display(key), 'row has no event that produced it: inserted outside RAP Studio');
    const column = differingColumn(want, actual);
    if (column !== undefined) {
      return broken(
        table,
        display(key),
        `column ${column} is ${JSON.stringify(actual[column])} but the event log says ${JSON.stringify(want[column])}: edited outside RAP Studio`,
      );
    }
    seen.add(key);
  }
  for (const key of expected.keys()) {
    if (!seen.has(key)) return broken(table, display(key), 'row is missing: deleted outside RAP Studio');
  }
  return undefined;
}

/** The first column in which two rows of a state table differ; undefined when they are equal. */
export function differingColumn(want: object, actual: object): string | undefined {
  const w = want as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  return [...new Set([...Object.keys(w), ...Object.keys(a)])].find((c) => w[c] !== a[c]);
}
