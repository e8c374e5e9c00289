/**
 * Processes as the tests watch them (Linux /proc): whether one is alive, its children, the CPU
 * time it has used, and a poll that waits for a condition. Shared by the unit and e2e suites.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped) is gone for our purposes.
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Pids whose parent is `pid` and whose command line mentions `needle`. */
export function childrenOf(pid: number, needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux Node supports). */
const USER_HZ = 100;

/**
 * CPU seconds a process has used so far, all its threads (user + system, /proc/<pid>/stat), or
 * null once it is gone. A CPU-time bound holds on a loaded machine, where a wall-clock one fails.
 */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ; // utime (14), stime (15)
  } catch {
    return null;
  }
}

/** Polls `probe` until it returns a value (not undefined); throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 25,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
