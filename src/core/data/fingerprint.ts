/**
 * The dataset fingerprint: SHA-256 of the file bytes, so the ledger recognizes the same data
 * under another name or path. Loading computes it in the same pass (csv-source.ts); this is for
 * files not being loaded.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { cannotRead } from '../input/files.ts';

export async function fingerprintFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (err) {
    throw cannotRead(path, 'file', err);
  }
  return hash.digest('hex');
}
