/**
 * An embedded DuckDB for one job over private data, and nothing left behind: an in-memory
 * database whose spill folder is a fresh private folder (0700, under the OS temp folder),
 * removed on every way out (return, throw, abort), with DuckDB's logging off, no extension
 * auto-install (no network), and the configuration locked so no query can change that.
 *
 * DuckDB's error messages may quote a value of the file (a conversion error): callers treat
 * them as the curator's, never as public text.
 */
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

/** Runs `job` on a private DuckDB connection; the spill folder is gone when this settles. */
export async function withDuckDb<T>(
  job: (connection: DuckDBConnection, spill: string) => Promise<T>,
  opts: DuckDbOptions = {},
): Promise<T> {
  // mkdtemp creates the folder with mode 0700: only this user can read what DuckDB spills.
  const spill = await mkdtemp(join(opts.tempParent ?? tmpdir(), 'rap-duckdb-'));
  let instance: import('@duckdb/node-api').DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  try {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    instance = await DuckDBInstance.create(':memory:', {
      temp_directory: join(spill, 'spill'),
      threads: String(opts.threads ?? 2),
      memory_limit: opts.memoryLimit ?? '1GB',
      // Logging is off by default (enable_logging = 0) and the lock below keeps it off.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      lock_configuration: 'true',
    });
    connection = await instance.connect();
    return await job(connection, spill);
  } finally {
    connection?.closeSync();
    instance?.closeSync();
    await rm(spill, { recursive: true, force: true });
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
