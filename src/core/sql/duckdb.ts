/**
 * An embedded DuckDB for one job over private data, and nothing left behind: an in-memory
 * database whose spill folder is a fresh private folder (0700, under the OS temp folder),
 * removed on every way out (return, throw, abort), with DuckDB's logging off, no extension
 * auto-install (no network), and the configuration locked so no query can change that.
 * `openDuckDb` keeps such a session open across calls, optionally with a database file inside
 * the private folder (a parsed source table); its owner closes it, which removes the folder.
 *
 * DuckDB's error messages may quote a value of the file (a conversion error): callers treat
 * them as the curator's, never as public text.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { relationSql } from './counting.ts';

export interface DuckDbOptions {
  /** Worker threads (default 2: the app shares the machine with the engine). */
  readonly threads?: number;
  /** DuckDB's memory limit before it spills to the private folder (default '1GB'). */
  readonly memoryLimit?: string;
  /** Parent of the private spill folder (default: the OS temp folder). */
  readonly tempParent?: string;
}

/** A private DuckDB kept open across calls (a loaded source table); `close` removes its folder. */
export interface DuckDbSession {
  readonly connection: DuckDBConnection;
  /** The private folder (0700): DuckDB's spill and, where asked, its database file. */
  readonly spill: string;
  /** Closes DuckDB and removes the folder (idempotent). */
  close(): Promise<void>;
}

/**
 * Folders of sessions still open: removed synchronously when the process exits, so a crash
 * between a session's open and its close (an exception nobody awaited) leaves no private data.
 */
const openFolders = new Set<string>();
let exitHook = false;
function track(folder: string): void {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const f of openFolders) rmSync(f, { recursive: true, force: true });
    });
  }
  openFolders.add(folder);
}

/**
 * Opens a private DuckDB: in memory, or (with `database`) a database file of that name inside
 * the private folder, for a table that outlives one query (counting/source-table.ts).
 */
export async function openDuckDb(
  opts: DuckDbOptions & { readonly database?: string } = {},
): Promise<DuckDbSession> {
  // mkdtemp creates the folder with mode 0700: only this user can read what DuckDB spills.
  const spill = await mkdtemp(join(opts.tempParent ?? tmpdir(), 'rap-duckdb-'));
  track(spill);
  let instance: import('@duckdb/node-api').DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      try {
        connection?.closeSync();
        instance?.closeSync();
      } finally {
        await rm(spill, { recursive: true, force: true });
        openFolders.delete(spill);
      }
    })());
  try {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    instance = await DuckDBInstance.create(opts.database ? join(spill, opts.database) : ':memory:', {
      temp_directory: join(spill, 'spill'),
      threads: String(opts.threads ?? 2),
      memory_limit: opts.memoryLimit ?? '1GB',
      // Logging is off by default (enable_logging = 0) and the lock below keeps it off.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      // A table loaded for counting is never read in order: DuckDB may load it in parallel
      // without buffering to keep the file's order (less memory on a large CSV).
      ...(opts.database ? { preserve_insertion_order: 'false' } : {}),
      lock_configuration: 'true',
    });
    connection = await instance.connect();
    return { connection, spill, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs `job` on a private DuckDB connection; the spill folder is gone when this settles. */
export async function withDuckDb<T>(
  job: (connection: DuckDBConnection, spill: string) => Promise<T>,
  opts: DuckDbOptions = {},
): Promise<T> {
  const session = await openDuckDb(opts);
  try {
    return await job(session.connection, session.spill);
  } finally {
    await session.close();
  }
}

/** A Parquet file's FLOAT / DOUBLE columns (its public schema, read from the footer). */
export async function floatingColumns(connection: DuckDBConnection, path: string): Promise<string[]> {
  const described = await connection.runAndReadAll(
    `DESCRIBE SELECT * FROM ${relationSql({ kind: 'parquet', path }, 'duckdb')}`,
  );
  return described
    .getRows()
    .filter((r) => /^(FLOAT|DOUBLE|REAL)$/i.test(String(r[1])))
    .map((r) => String(r[0]));
}
