/**
 * An embedded DuckDB for one job over private data, and nothing left behind: an in-memory
 * database whose spill folder is a fresh private folder (0700, under the OS temp folder),
 * removed on every way out (return, throw, abort; after a SIGKILL, by the next process's first
 * session: sweepOnce), with DuckDB's logging off, no extension auto-install (no network), and
 * the configuration locked so no query can change that.
 * `openDuckDb` keeps such a session open across calls (a parsed source table, in memory, spilled
 * to the private folder past its memory limit); its owner closes it, which removes the folder.
 *
 * DuckDB's error messages may quote a value of the file (a conversion error): callers treat
 * them as the curator's, never as public text.
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { createPrivateFolder, removeStaleFolders } from '../private-folder.ts';
import { relationSql } from './counting.ts';
import { interruptibly } from './interruptible.ts';

export interface DuckDbOptions {
  /** Worker threads (default 2: the app shares the machine with the engine). */
  readonly threads?: number;
  /** DuckDB's memory limit before it spills to the private folder (default '1GB'). */
  readonly memoryLimit?: string;
  /** Parent of the private spill folder (default: the OS temp folder). */
  readonly tempParent?: string;
}

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/**
 * DuckDB's memory limit for a source table loaded in memory from a `fileBytes` CSV: room for the
 * whole table where the machine has it, a spill to the private folder past that.
 *
 * - 2 × the file: an in-memory table of raw texts took 1.9 GB for adult.data × 300 (1.19 GB of
 *   CSV; uncompressed VARCHARs), and loaded in 12.8 CPU s with room (7.2 s wall on 2 threads),
 *   15.5 CPU s with a 1 GB limit (spilling), 32 CPU s into a database file (compressed on disk).
 * - at most 2 GiB, a quarter of the machine's memory and half of what is free now: the engine
 *   starts after the table is gone, but the app and other programs share the machine, and a file
 *   far beyond memory (adult × 3,000, 12 GB) must spill rather than grow.
 * - at least 512 MiB where that cap allows it (256 MiB at the least): the grouping sets need room
 *   beyond the table. adult.data × 30 with no repeated record (121 MB, 1.5M distinct fnlwgt texts)
 *   ran out of 256 MiB and its release fell back to the streaming reader (34.1 CPU s, 694 MB
 *   peak); with 512 MiB DuckDB counted it (28.1 CPU s, 916 MB peak), the same CSV.
 */
export function sourceMemoryLimit(
  fileBytes: number,
  machine: { readonly totalBytes: number; readonly availableBytes: number } = {
    totalBytes: totalmem(),
    availableBytes: Math.min(
      (process as { availableMemory?: () => number }).availableMemory?.() || freemem(),
      totalmem(),
    ),
  },
): string {
  const cap = Math.min(2 * GiB, machine.totalBytes / 4, machine.availableBytes / 2);
  const floor = Math.min(512 * MiB, Math.max(256 * MiB, cap));
  const bytes = Math.max(floor, Math.min(2 * fileBytes, cap));
  return `${Math.ceil(bytes / MiB)}MB`;
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

const SESSION_PREFIX = 'rap-duckdb-';

/**
 * Folders of sessions whose process is gone (a SIGKILL, a power cut: no exit hook ran) hold the
 * private table and its spill: the first session a process opens under a parent removes them
 * (core/private-folder.ts; a folder without our marker, or of a live process, is left alone).
 */
const swept = new Set<string>();
function sweepOnce(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  removeStaleFolders(parent, SESSION_PREFIX);
}

/**
 * Opens a private in-memory DuckDB, kept open for a table that outlives one query
 * (counting/source-table.ts); past its memory limit DuckDB spills to the private folder.
 * `unordered`: tables are never read in order (DuckDB may load in parallel without buffering).
 */
export async function openDuckDb(
  opts: DuckDbOptions & { readonly unordered?: boolean } = {},
): Promise<DuckDbSession> {
  const parent = opts.tempParent ?? tmpdir();
  sweepOnce(parent);
  // mkdtemp creates the folder with mode 0700: only this user can read what DuckDB spills.
  const spill = createPrivateFolder(parent, SESSION_PREFIX);
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
    // In memory, not a database file: the file's compressed on-disk write cost 32 CPU s for
    // adult.data × 300 against 12.8 in memory (sourceMemoryLimit).
    instance = await DuckDBInstance.create(':memory:', {
      temp_directory: join(spill, 'spill'),
      threads: String(opts.threads ?? 2),
      memory_limit: opts.memoryLimit ?? '1GB',
      // Logging is off by default (enable_logging = 0) and the lock below keeps it off.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      // A table loaded for counting is never read in order: DuckDB may load it in parallel
      // without buffering to keep the file's order (less memory on a large CSV).
      ...(opts.unordered ? { preserve_insertion_order: 'false' } : {}),
      lock_configuration: 'true',
    });
    connection = await instance.connect();
    return { connection, spill, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs `job` on a session's connection; a cancel interrupts its running query (interruptible.ts). */
export function onSession<T>(
  session: DuckDbSession,
  signal: AbortSignal | undefined,
  job: (c: DuckDBConnection) => Promise<T>,
): Promise<T> {
  return interruptibly(
    signal,
    () => session.connection.interrupt(),
    () => job(session.connection),
  );
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

/**
 * A query's rows a chunk at a time (DuckDB's vectors, ≤ 2,048 rows each), read as they are
 * produced: a grouped result of millions of rows (a column with millions of distinct texts:
 * adult.data × 300 with no repeated record held 23 GB as one array of rows) is never held whole.
 */
export async function* resultChunks(connection: DuckDBConnection, sql: string): AsyncGenerator<unknown[][]> {
  const result = await connection.stream(sql);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    yield chunk.getRows();
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
