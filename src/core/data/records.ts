/**
 * What every table reader shares (the streaming CSV reader, csv.ts, and the other formats,
 * formats/): the read options, the result, the record callback, the file-size check, and the
 * non-CSV readers' one loop (`readChunkedRecords`: their records as an async stream of chunks).
 * Its own module so the format readers need not import the CSV reader that dispatches to them.
 */
import { stat } from 'node:fs/promises';
import type { InputError } from '../errors.ts';
import { cannotRead } from '../input/files.ts';
import type { Delimiter } from './csv-source.ts';
import { fingerprintFile } from './fingerprint.ts';

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

/**
 * A run of records from a reader (header record first, in the first chunk): the fields of each,
 * as the table, load and discovery code receive them.
 */
export interface RecordChunk {
  readonly records: readonly string[][];
  /** The line (sheet row, case) each record starts on; absent: each the line after the last. */
  readonly lines?: readonly number[];
  /** Blank rows skipped since the last chunk (not records). */
  readonly blank?: number;
}

/**
 * A table file's records as an async stream of chunks, each reader's own (data/formats/read.ts):
 * it throws an InputError naming the file for bytes it cannot read; it holds what its library
 * forces (formats/README.md), never the records already handed on.
 */
export type RecordChunks = (file: string, opts: CsvReadOptions) => AsyncIterable<RecordChunk>;

/**
 * What every non-CSV reader does around its records: the abort check, the file's size and
 * fingerprint (its bytes' SHA-256, for the ledger), then each chunk's records to `onRecord` with
 * their lines, abort checks and progress between chunks; an error `onRecord` throws passes as is.
 */
export async function readChunkedRecords(
  file: string,
  chunks: RecordChunks,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  opts.signal?.throwIfAborted();
  const totalBytes = await fileSize(file);
  const fingerprint = await fingerprintFile(file);
  let records = 0;
  let blankLines = 0;
  let line = 0;
  for await (const chunk of chunks(file, opts)) {
    blankLines += chunk.blank ?? 0;
    chunk.records.forEach((fields, i) => {
      line = chunk.lines?.[i] ?? line + 1;
      records++;
      onRecord(fields, line);
    });
    await betweenChunks();
    opts.signal?.throwIfAborted();
    // The header is a record here (as in a CSV with a header row); progress counts data rows.
    opts.onProgress?.({ bytes: 0, totalBytes, rows: Math.max(records - 1, 0) });
  }
  opts.onProgress?.({ bytes: totalBytes, totalBytes, rows: Math.max(records - 1, 0) });
  return { file, delimiter: ',', totalBytes, records, blankLines, fingerprint };
}

/** Records per chunk a reader hands on (and between abort checks). */
export const CHUNK_RECORDS = 8192;

/**
 * Lets the event loop run between two chunks (a cancel, the app's messages): the Stata, SAS and
 * Excel readers decode synchronously, and an async generator's `yield` alone never gives way.
 */
export function betweenChunks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
