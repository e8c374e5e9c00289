/** Test helpers: temporary files for CSV fixtures, and the shared datasets (may be absent). */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** Writes a file into the folder and returns its path. */
  file(name: string, content: string | Uint8Array): string;
  remove(): void;
}

export function tempDir(prefix = 'rap-data-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file(name, content) {
      const p = join(path, name);
      writeFileSync(p, content);
      return p;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** A shared dataset file, resolved from the repository root, or undefined when it is not there. */
export function sharedDataset(relative: string): string | undefined {
  const p = resolve(process.cwd(), '../shared/datasets', relative);
  return existsSync(p) ? p : undefined;
}
