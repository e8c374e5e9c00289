/**
 * The app's private working folder (uploads of private CSVs in web mode, exports waiting for the
 * browser's download): a fresh `rap-studio-XXXXXX` folder under the system temp directory, mode
 * 0700, with an owner marker (pid, start time). It holds copies of private data, so:
 * - it is removed synchronously when the app stops (SIGINT, also twice, SIGTERM, SIGHUP, normal
 *   quit, an uncaught error: see `removeOnExit`); synchronous, so a second signal cannot cut the
 *   removal short;
 * - after a crash (SIGKILL, power cut) the next start removes every such folder of ours whose
 *   owner process is gone (`removeStaleWorkDirs`).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateFolder, removeStaleFolders } from '../core/private-folder.ts';

export { OWNER_MARKER } from '../core/private-folder.ts';

export const WORK_DIR_PREFIX = 'rap-studio-';

/** A new private working folder (0700) marked as this process's (core/private-folder.ts). */
export function createWorkDir(base = tmpdir()): string {
  return createPrivateFolder(base, WORK_DIR_PREFIX);
}

/**
 * Removes the working folders under `base` left by RAP Studio processes that are gone: our
 * prefix, our user, a marker whose pid is not running. Returns what was removed. Folders
 * without a marker, of another user, or of a live process are left alone.
 */
export function removeStaleWorkDirs(base = tmpdir(), alive?: (pid: number) => boolean): string[] {
  return removeStaleFolders(base, WORK_DIR_PREFIX, alive);
}

/**
 * What the app removes when it stops: the whole folder when it made it, else (a folder given for
 * tests) the private upload copies in it. Synchronous and idempotent.
 */
export function privateFilesRemover(workDir: string, owned: boolean): () => void {
  return () => {
    rmSync(owned ? workDir : join(workDir, 'uploads'), { recursive: true, force: true });
  };
}

/**
 * Stops the app on SIGINT, SIGTERM and SIGHUP after removing the private files first
 * (synchronously), however many signals arrive: the first one starts the stop, later ones are
 * ignored (a terminal's Ctrl-C reaches `npm start` and the host alike). Also removes them on any
 * exit. `stop` closes what is open; the process exits when it resolves (or after `graceMs`).
 */
export function removeOnExit(
  remove: () => void,
  stop: () => Promise<void>,
  opts: { graceMs?: number; exit?: (code: number) => void } = {},
): { stopping: () => boolean } {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    try {
      remove();
    } finally {
      setTimeout(() => exit(0), opts.graceMs ?? 3000).unref();
      stop().finally(() => exit(0));
    }
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
  process.on('exit', () => {
    try {
      remove();
    } catch {
      // exiting anyway
    }
  });
  return { stopping: () => stopping };
}
