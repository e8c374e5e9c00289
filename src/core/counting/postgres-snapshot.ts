/**
 * One snapshot of the database for a whole release: the checks before the reservation (the row
 * count, the columns, the declared columns' fit) and the counting after it read the same rows, so a
 * row written meanwhile by anyone else can neither fail a release after its budget was charged
 * ("the table had 416 rows and now has 417") nor make the counts disagree with the n the ledger holds.
 *
 * How: one connection opens a REPEATABLE READ, READ ONLY transaction and exports its snapshot
 * (pg_export_snapshot); it holds the transaction open, reading nothing, until the release is done.
 * Every other connection of the release begins its own REPEATABLE READ, READ ONLY transaction with
 * `SET TRANSACTION SNAPSHOT` (postgres.ts withSnapshot/withPostgres), so each keeps its own cancel
 * (pg_cancel_backend) and the holder is never busy. The holder's session turns off
 * idle_in_transaction_session_timeout for itself, so a server's setting does not end it mid-release.
 *
 * The holder is closed on every way out: release.ts disposeValidated (a refusal before reserving,
 * a failed or cancelled run, the end of the counting). An open transaction holds back VACUUM's
 * cleanup of rows deleted meanwhile for as long as the release reads; it takes no lock on any table.
 */
import type { Client } from 'pg';
import { connect, type PostgresSource, withSnapshot } from './postgres.ts';

/** The exported snapshot, held open until close(). */
export interface PostgresSnapshot {
  /** The source whose every connection reads this snapshot. */
  readonly source: PostgresSource;
  /** Ends the holding transaction and its connection (idempotent; never throws). */
  close(): Promise<void>;
}

/** Holders not yet closed in this process (tests check that none is left behind). */
const live = new Set<PostgresSnapshot>();

/** How many snapshots this process holds open now. */
export function liveSnapshots(): number {
  return live.size;
}

/** Opens the holding connection and exports its snapshot; refused (as connect) naming the source. */
export async function openSnapshot(src: PostgresSource): Promise<PostgresSnapshot> {
  const client: Client = await connect(src);
  // An error on the idle holder (the server gone) surfaces where the snapshot is used, not as an
  // uncaught 'error' event.
  client.on('error', () => {});
  let id: string;
  try {
    await client.query('SET idle_in_transaction_session_timeout = 0');
    await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const result = await client.query({ text: 'SELECT pg_export_snapshot()', rowMode: 'array' });
    id = String((result.rows as [[string]])[0][0]);
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
  let closed: Promise<void> | undefined;
  const snapshot: PostgresSnapshot = {
    source: withSnapshot(src, id),
    close() {
      live.delete(snapshot);
      closed ??= client.end().catch(() => {});
      return closed;
    },
  };
  live.add(snapshot);
  return snapshot;
}
