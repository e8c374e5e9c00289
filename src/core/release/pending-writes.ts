/**
 * The temporary files a release's outputs are written through, recorded so that a crash in the
 * middle of a write (killed process, power loss) leaves no hidden `.NAME.PID.RAND.tmp` behind in
 * the curator's folder: the next start of the CLI or the app (sweepPendingWrites) removes every
 * recorded temp file whose writer is gone.
 *
 * One small file per write in `<ledger folder>/pending-writes/` (0700), holding the writer's pid
 * and the temp file's path; the record is made before the temp file exists and removed after it
 * is linked or renamed into place (or removed). The paths are the curator's own output paths:
 * private to this machine, never published.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const PENDING_DIR = 'pending-writes';

export function pendingDirFor(ledgerFile: string): string {
  return path.join(path.dirname(path.resolve(ledgerFile)), PENDING_DIR);
}

interface Entry {
  readonly pid: number;
  /** This process's token: a pid reused after a restart is told apart from its writer. */
  readonly token: string;
  readonly temp: string;
}

const TOKEN = randomBytes(8).toString('hex');

/** A recorded write: `done()` once the temp file is gone (linked, renamed or removed). */
export interface PendingWrite {
  readonly temp: string;
  done(): Promise<void>;
}

export class PendingWrites {
  constructor(readonly dir: string) {}

  /** Records that `temp` is about to be written by this process. */
  async track(temp: string): Promise<PendingWrite> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const record = path.join(this.dir, `${process.pid}-${randomBytes(6).toString('hex')}.json`);
    const entry: Entry = { pid: process.pid, token: TOKEN, temp };
    await writeFile(record, JSON.stringify(entry), { mode: 0o600, flag: 'wx' });
    return {
      temp,
      done: async () => {
        await rm(temp, { force: true });
        await rm(record, { force: true });
      },
    };
  }

  /** Removes the temp files of writers that are gone; returns the paths removed. */
  async sweep(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of names) {
      const record = path.join(this.dir, name);
      let entry: Entry;
      try {
        entry = JSON.parse(await readFile(record, 'utf8')) as Entry;
      } catch {
        await rm(record, { force: true });
        continue;
      }
      if (entry.pid === process.pid ? entry.token === TOKEN : alive(entry.pid)) continue;
      // Only a temp file's name pattern is removed: a record can never make the sweep delete a
      // release or any other file.
      if (typeof entry.temp === 'string' && /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/.test(path.basename(entry.temp))) {
        await rm(entry.temp, { force: true });
        removed.push(entry.temp);
      }
      await rm(record, { force: true });
    }
    return removed;
  }
}

function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
