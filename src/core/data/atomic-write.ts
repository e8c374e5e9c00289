/**
 * Writing a file so that readers see either the old file or the complete new one, never a half
 * written one: write a temporary file in the same folder (same file system), flush it, rename.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Writes `chunks` (strings, in order) to `path` atomically. */
export async function writeFileAtomic(path: string, chunks: Iterable<string> | string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx');
  try {
    try {
      for (const chunk of typeof chunks === 'string' ? [chunks] : chunks) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
