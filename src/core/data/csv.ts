/**
 * Streaming CSV reading: file bytes → UTF-8 text (csv-source.ts) → papaparse (RFC 4180 quoting,
 * embedded newlines, CRLF) → one callback per record with the line it starts on. Only the chunk
 * being parsed is held in memory; callers store what they need (codes, statistics), not rows.
 */
import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import { InputError } from '../errors.ts';
import { CsvTextSource } from './csv-source.ts';
import { tableFormat } from './formats/format.ts';
import { readFormatRecords } from './formats/read.ts';
import {
  type CsvReadOptions,
  type CsvReadResult,
  fileSize,
  type RecordHandler,
  unreadable,
} from './records.ts';

export { type Delimiter, describeDelimiter, detectDelimiter } from './csv-source.ts';
export {
  type CsvProgress,
  type CsvReadOptions,
  type CsvReadResult,
  fileSize,
  type RecordHandler,
} from './records.ts';

export const DEFAULT_MAX_RECORD_CHARS = 1 << 20;
/**
 * Most fields a record may have. A 1 MiB record could otherwise hold ~500k one-character
 * columns, each of which becomes a schema column, a one-hot block and a workload feature; the
 * app's schema editor takes at most as many (src/services/dispatch.ts), and the engine's guards
 * refuse more (src/core/engine/limits.ts).
 */
export const MAX_CSV_COLUMNS = 10_000;
const DEFAULT_CHUNK_BYTES = 256 * 1024;

/**
 * Physical line numbers for papaparse records. A record spans one line unless it has quoted
 * fields with line breaks inside; papaparse's cursor tells the two apart cheaply (an unquoted
 * record spans exactly its field lengths plus delimiters plus the line break).
 */
class LineCounter {
  /** Character offset of the end of the last record. */
  cursor = 0;
  /** Line on which the next record starts. */
  next = 1;

  advance(fields: readonly string[], end: number, linebreak: string): number {
    const line = this.next;
    let plain = fields.length - 1;
    for (const f of fields) plain += f.length;
    const span = end - this.cursor;
    let lines = 1;
    if (span !== plain && span !== plain + linebreak.length) lines += embeddedBreaks(fields, linebreak);
    this.next += lines;
    this.cursor = end;
    return line;
  }
}

function embeddedBreaks(fields: readonly string[], linebreak: string): number {
  const mark = linebreak === '\r' ? '\r' : '\n';
  let n = 0;
  for (const f of fields) for (let i = f.indexOf(mark); i !== -1; i = f.indexOf(mark, i + 1)) n++;
  return n;
}

function isBlank(fields: readonly string[]): boolean {
  return fields.length === 1 && fields[0].trim() === '';
}

/** Reads `file` record by record; resolves once every record went through `onRecord`. */
export async function readCsvRecords(
  file: string,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  opts.signal?.throwIfAborted();
  // Other table formats hand the same records to the same code (data/formats/).
  if (tableFormat(file) !== 'csv') return readFormatRecords(file, onRecord, opts);
  const totalBytes = await fileSize(file);
  const trim = opts.trim ?? true;
  const maxRecord = opts.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS;
  const source = new CsvTextSource(file, opts.delimiter, opts.signal);
  const input = createReadStream(file, { highWaterMark: opts.chunkBytes ?? DEFAULT_CHUNK_BYTES });
  const lines = new LineCounter();
  let records = 0;
  let blankLines = 0;
  let fed = 0;

  return new Promise<CsvReadResult>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      input.destroy();
      source.destroy();
      reject(err);
    };
    input.on('error', (err) => fail(unreadable(file, err)));
    // Registered before papaparse's own listener, so this runs before each chunk is parsed.
    source.on('data', (text: string) => {
      if (fed - lines.cursor > maxRecord) fail(tooLong(file, lines.next, maxRecord));
      fed += text.length;
      if (!settled) opts.onProgress?.({ bytes: source.bytesRead, totalBytes, rows: records });
    });
    input.pipe(source);
    Papa.parse<string[]>(source, {
      delimiter: () => source.delimiter ?? ',',
      step(results, parser) {
        if (settled) return;
        try {
          const fields = results.data;
          const line = lines.advance(fields, results.meta.cursor, results.meta.linebreak);
          if (results.errors.some((e) => e.code === 'MissingQuotes')) throw unclosedQuote(file, line);
          if (isBlank(fields)) {
            blankLines++;
            return;
          }
          if (fields.length > MAX_CSV_COLUMNS) throw tooWide(file, line, fields.length);
          if (trim) for (let i = 0; i < fields.length; i++) fields[i] = fields[i].trim();
          records++;
          onRecord(fields, line);
        } catch (err) {
          fail(err);
          parser.abort();
        }
      },
      complete() {
        if (settled) return;
        settled = true;
        opts.onProgress?.({ bytes: source.bytesRead, totalBytes, rows: records });
        resolve({
          file,
          delimiter: source.delimiter ?? ',',
          totalBytes,
          records,
          blankLines,
          fingerprint: source.fingerprint(),
        });
      },
      error: (err) => fail(err),
    });
  });
}

function unclosedQuote(file: string, line: number): InputError {
  return new InputError(
    `${file}, line ${line}: a quote (") opened on this line is never closed, so the rest of the file ` +
      'would be one field; close the quote, or remove it (a quote inside a field is written "").',
    { file, line },
  );
}

function tooWide(file: string, line: number, fields: number): InputError {
  return new InputError(
    `${file}, line ${line}: ${fields} fields; RAP Studio reads at most ${MAX_CSV_COLUMNS} columns. ` +
      'Keep only the columns the release needs, or check the delimiter.',
    { file, line },
  );
}

function tooLong(file: string, line: number, max: number): InputError {
  return new InputError(
    `${file}, line ${line}: a record is longer than ${max} characters; ` +
      'this is not a CSV table, or a quote (") opened on this line is never closed.',
    { file, line },
  );
}
