/**
 * Writing a file so that readers see either the old file or the complete new one, never a half
 * written one: write a temporary file in the same folder (same file system), flush it, rename.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

type Chunk = string | Uint8Array;

/**
 * The mode of a file that holds private values or exact statistics of them (the private report,
 * exact answers, an inferred schema, the ledger and its key): the owner alone may read it.
 */
export const PRIVATE_FILE_MODE = 0o600;
/** The mode of a folder created for such files. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Writes every byte of `chunk`. A write may be short (a full disk can accept part of a buffer
 * before it fails); looping until all bytes are written, or the write throws, means a short
 * file is never renamed into place.
 */
async function writeAll(handle: FileHandle, chunk: Chunk): Promise<void> {
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    if (bytesWritten <= 0) throw new Error(`short write to ${handle.fd}: no progress`);
    offset += bytesWritten;
  }
}

/**
 * A fresh temporary name beside `path` (same folder, so the rename or link into place stays on
 * one file system); the pid and random suffix keep concurrent writers apart.
 */
export function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Writes `chunks` to a NEW file at `path` (exclusive create: fails if anything is there) and
 * flushes it, without a rename: for a caller that owns the temp file itself (release/publish.ts
 * links it into place). On failure the partial file is removed.
 */
export async function writeFileNew(
  path: string,
  chunks: Iterable<Chunk> | Chunk,
  opts: { readonly mode?: number } = {},
): Promise<void> {
  const handle = await open(path, 'wx', opts.mode ?? 0o666);
  try {
    try {
      for (const chunk of typeof chunks === 'string' || chunks instanceof Uint8Array ? [chunks] : chunks) {
        await writeAll(handle, chunk);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
}

/** Writes `chunks` (strings or bytes, in order) to `path` atomically; `mode` for a new file (default 0666 less umask). */
export async function writeFileAtomic(
  path: string,
  chunks: Iterable<Chunk> | Chunk,
  opts: { readonly mode?: number } = {},
): Promise<void> {
  const temp = tempPathBeside(path);
  await writeFileNew(temp, chunks, opts);
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
