/**
 * Files users name: the one "cannot read" message (which file, what it is, why) for every
 * reader in the CLI, the services and core.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.ts';

/** Why a file could not be read, in words: "no such file", "it is a folder", else the code. */
export function unreadableReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a folder';
  return String(code ?? (err as Error)?.message ?? err);
}

/** `FILE: cannot read the WHAT (why).` — `verb` is "open" for files only opened, `hint` a next step. */
export function cannotRead(
  file: string,
  what: string,
  err: unknown,
  opts: { readonly verb?: string; readonly hint?: string } = {},
): InputError {
  const why = `${unreadableReason(err)})${opts.hint ? `; ${opts.hint}.` : '.'}`;
  return new InputError(`${file}: cannot ${opts.verb ?? 'read'} the ${what} (${why}`, { file });
}

/** A text file the user named (schema, domain, workload…), or the one "cannot read" error. */
export async function readTextFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw cannotRead(file, what, err);
  }
}
