/**
 * A dataset's identity: the SHA-256 of its file's bytes, hashed as a stream so a large file is
 * never held in memory. (Byte-identical to what the data module computes for the same file.)
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { InputError } from '../errors.ts';

export async function fingerprintFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      throw new InputError(`Cannot read dataset file ${file} (${code}): check the path.`, { file });
    }
    throw err;
  }
  return hash.digest('hex');
}
