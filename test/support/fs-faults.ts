/**
 * Real file-system faults for export tests, made the honest way (no mocks):
 *
 * - a read-only folder: `chmod 0555` stops a normal user, but the tests often run as root, which
 *   ignores permission bits; there the folder is made immutable (`chattr +i`), which stops root
 *   too. Either way a write fails with a real EACCES / EPERM.
 * - a full disk: a tiny tmpfs (`mount -t tmpfs -o size=8k`) mounted on the folder; writing a
 *   file larger than that fails with a real ENOSPC. Needs mount privileges (root with
 *   CAP_SYS_ADMIN, as in this container); without them the test is skipped with that reason.
 *
 * The probes run once when the test file loads, so skipIf can name the reason.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const isRoot = process.getuid?.() === 0;

function run(cmd: string, args: readonly string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

function probeDir(): string {
  return mkdtempSync(join(tmpdir(), 'rap-fs-probe-'));
}

/** Whether a read-only folder can be made here, and how. */
export const readOnlyMechanism: 'chmod' | 'chattr' | null = (() => {
  const dir = probeDir();
  try {
    if (!isRoot) return 'chmod';
    if (!run('chattr', ['+i', dir])) return null;
    let refused = false;
    try {
      writeFileSync(join(dir, 'x'), 'x');
    } catch {
      refused = true;
    }
    run('chattr', ['-i', dir]);
    return refused ? 'chattr' : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

export const readOnlyUnavailable =
  readOnlyMechanism === null ? 'running as root and `chattr +i` is not available on this file system' : null;

/** Makes `dir` refuse new entries; returns the undo. */
export function makeReadOnly(dir: string): () => void {
  if (readOnlyMechanism === 'chmod') {
    chmodSync(dir, 0o555);
    return () => chmodSync(dir, 0o700);
  }
  if (readOnlyMechanism === 'chattr' && run('chattr', ['+i', dir])) return () => run('chattr', ['-i', dir]);
  throw new Error(`cannot make ${dir} read-only: ${readOnlyUnavailable}`);
}

/** Whether a tiny tmpfs can be mounted here (root with mount privileges). */
export const tmpfsAvailable: boolean = (() => {
  if (!isRoot) return false;
  const dir = probeDir();
  try {
    if (!run('mount', ['-t', 'tmpfs', '-o', 'size=8k,mode=0700', 'tmpfs', dir])) return false;
    run('umount', [dir]);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

export const diskFullUnavailable = tmpfsAvailable
  ? null
  : 'mounting a tmpfs needs root with mount privileges (CAP_SYS_ADMIN), which this run lacks';

/** Mounts an 8 KiB tmpfs on `dir` (created if needed): a folder whose disk is nearly full. Returns the undo. */
export function mountTinyDisk(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  if (!run('mount', ['-t', 'tmpfs', '-o', 'size=8k,mode=0700', 'tmpfs', dir]))
    throw new Error(`cannot mount a tmpfs on ${dir}: ${diskFullUnavailable}`);
  // Lazy unmount: still succeeds if something has a file open there.
  return () => run('umount', ['-l', dir]);
}

/** Mounts a tmpfs of `size` (e.g. '512k') on `dir` (created if needed). Returns the undo. */
export function mountDisk(dir: string, size: string): () => void {
  mkdirSync(dir, { recursive: true });
  if (!run('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]))
    throw new Error(`cannot mount a tmpfs on ${dir}: ${diskFullUnavailable}`);
  return () => run('umount', ['-l', dir]);
}
