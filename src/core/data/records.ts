/**
 * What every table reader shares (the streaming CSV reader, csv.ts, and the other formats,
 * formats/): the read options, the result, the record callback, the file-size check. Its own
 * module so the format readers need not import the CSV reader that dispatches to them.
 */
import { stat } from 'node:fs/promises';
import type { InputError } from '../errors.ts';
import { cannotRead } from '../input/files.ts';
import type { Delimiter } from './csv-source.ts';

export interface CsvProgress {
  readonly bytes: number;
  readonly totalBytes: number;
  /** Non-blank records read so far. */
  readonly rows: number;
}

export interface CsvReadOptions {
  /** The delimiter; detected among `,` `;` and tab from the first rows when absent. */
  readonly delimiter?: Delimiter;
  /** Strip whitespace around every value (UCI files put a space after each comma). Default true. */
  readonly trim?: boolean;
  /**
   * Longest record, in characters, before reading stops with an error: a 50 MB file without a
   * newline, or a quote never closed, fails after this much text instead of hanging.
   */
  readonly maxRecordChars?: number;
  /** Bytes per read. */
  readonly chunkBytes?: number;
  readonly signal?: AbortSignal;
  /** Called once per chunk read. */
  readonly onProgress?: (p: CsvProgress) => void;
}

export interface CsvReadResult {
  readonly file: string;
  readonly delimiter: Delimiter;
  readonly totalBytes: number;
  /** Records handed to the callback (blank lines excluded). */
  readonly records: number;
  /** Lines with nothing on them, skipped (a trailing newline at the end of the file is not one). */
  readonly blankLines: number;
  /** SHA-256 hex of the file bytes, computed in the same pass. */
  readonly fingerprint: string;
}

/** Receives each non-blank record; may throw (an InputError) to stop reading. */
export type RecordHandler = (fields: string[], line: number) => void;

export function unreadable(file: string, err: unknown): InputError {
  return cannotRead(file, 'file', err, { hint: 'check the path' });
}

export async function fileSize(file: string): Promise<number> {
  try {
    const s = await stat(file);
    if (s.isDirectory()) throw Object.assign(new Error('folder'), { code: 'EISDIR' });
    return s.size;
  } catch (err) {
    throw unreadable(file, err);
  }
}
