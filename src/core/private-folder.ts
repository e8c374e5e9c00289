/**
 * Private folders of this process (mode 0700) that outlive a crash only until the next start: each
 * holds an owner marker (pid, start time), and `removeStaleFolders` removes the folders of a prefix
 * whose owner process is gone. A process removes its own folders on every way out it can see
 * (close, exit, the signals its entry point handles); a SIGKILL or a power cut leaves them, and
 * they hold private data (the app's uploads, DuckDB's loaded table and spill), so the next start
 * of the app (services/work-dir.ts) or the next DuckDB session (sql/duckdb.ts) removes them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OWNER_MARKER = '.rap-studio-owner.json';

interface Owner {
  readonly app: 'rap-studio';
  readonly pid: number;
  readonly startedAt: string;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process we may not signal exists.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A new private folder (mkdtemp: mode 0700) `base/prefix…`, marked as this process's. */
export function createPrivateFolder(base: string, prefix: string): string {
  const dir = mkdtempSync(join(base, prefix));
  const owner: Owner = { app: 'rap-studio', pid: process.pid, startedAt: new Date().toISOString() };
  writeFileSync(join(dir, OWNER_MARKER), JSON.stringify(owner), { mode: 0o600 });
  return dir;
}

/**
 * Removes the folders `base/prefix…` left by RAP Studio processes that are gone: our prefix, our
 * user, a marker whose pid is not running. Returns what was removed. Folders without a marker, of
 * another user, or of a live process are left alone.
 */
export function removeStaleFolders(
  base: string,
  prefix: string,
  alive: (pid: number) => boolean = pidAlive,
): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(base, name);
    try {
      const st = statSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      const owner = JSON.parse(readFileSync(join(dir, OWNER_MARKER), 'utf8')) as Partial<Owner>;
      if (owner.app !== 'rap-studio' || !Number.isSafeInteger(owner.pid)) continue;
      if (owner.pid === process.pid || alive(owner.pid as number)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // no marker, unreadable, or already gone: not ours to touch
    }
  }
  return removed;
}
