/**
 * The two facts about the private file that a run needs BEFORE the ledger reserves its budget:
 * its fingerprint (SHA-256 of the bytes, the dataset's identity in the ledger) and its number
 * of records n (for the default δ = 1/n² and the ledger's row count).
 *
 * n is treated as public, as in the papers (Aydore et al., Avent & Korolova): the DP guarantee
 * is for replacing one record, which leaves n unchanged. No value of the file is parsed here
 * except the first record, to tell a header row (the public column names) from data.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import { InputError } from '../errors.ts';
import { cannotRead } from '../input/files.ts';
import { detectDelimiter } from './csv.ts';
import { fingerprintFile } from './fingerprint.ts';
import { hasOwnHeader, tableFormat } from './formats/format.ts';
import { parquetRowCount } from './formats/parquet.ts';
import { readFormatRecords } from './formats/read.ts';
import { holdsNames } from './header.ts';

export interface FileFacts {
  /** SHA-256 (lower-case hex) of the file bytes. */
  readonly fingerprint: string;
  /** Data records: non-blank CSV records, less the header row when there is one. */
  readonly rows: number;
  readonly hasHeader: boolean;
  /**
   * Whether any byte of a CSV is a double quote (absent for other formats). Without one, no line
   * can hold a quote after spaces (sql/counting.ts spacedQuoteLinesSql), so DuckDB's load skips
   * that scan (1.5 CPU s on adult.data × 300); the search costs a memchr per chunk until a quote.
   */
  readonly quotes?: boolean;
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;
const FIRST_RECORD_LIMIT = 1 << 20;

/**
 * Counts RFC 4180 records: a newline inside a quoted field does not end a record; a record of
 * spaces, tabs and CRs only is blank (not counted). Past the first record it jumps from quote to
 * newline with Buffer.indexOf (native memchr) instead of testing every byte in JS: the count is
 * the byte loop's (file-facts.test.ts checks it against that loop on random bytes and chunkings),
 * at a fraction of the cost, so this pass runs at about the hash's speed.
 */
export class RecordCounter {
  records = 0;
  private inQuote = false;
  private content = false;
  private first: number[] | undefined = [];
  firstRecord = '';

  push(chunk: Buffer): void {
    let i = 0;
    // The first record byte by byte (its bytes are kept, to tell a header row).
    for (; i < chunk.length && this.first; i++) this.byte(chunk[i]);
    let quote = -2;
    let newline = -2;
    while (i < chunk.length) {
      if (quote !== -1 && quote < i) quote = chunk.indexOf(QUOTE, i);
      if (this.inQuote) {
        // A quoted field: only its closing quote matters (a newline in it ends nothing).
        if (quote === -1) return;
        this.inQuote = false;
        i = quote + 1;
        continue;
      }
      if (newline !== -1 && newline < i) newline = chunk.indexOf(NEWLINE, i);
      const stop = Math.min(quote === -1 ? chunk.length : quote, newline === -1 ? chunk.length : newline);
      if (!this.content) {
        for (let j = i; j < stop; j++) {
          const b = chunk[j];
          if (b !== 0x20 && b !== 0x09 && b !== 0x0d) {
            this.content = true;
            break;
          }
        }
      }
      if (stop === chunk.length) return;
      if (stop === newline) {
        this.endRecord();
      } else {
        this.inQuote = true;
        this.content = true;
      }
      i = stop + 1;
    }
  }

  private byte(b: number): void {
    if (b === QUOTE) {
      this.inQuote = !this.inQuote;
      this.content = true;
    } else if (b === NEWLINE && !this.inQuote) {
      this.endRecord();
      return;
    } else if (b !== 0x20 && b !== 0x09 && b !== 0x0d) {
      this.content = true;
    }
    if (this.first && this.content && this.first.length < FIRST_RECORD_LIMIT) this.first.push(b);
  }

  endRecord(): void {
    if (!this.content) return;
    this.records++;
    this.content = false;
    if (this.first) {
      this.firstRecord = Buffer.from(this.first)
        .toString('utf8')
        .replace(/^\uFEFF/, '');
      this.first = undefined;
    }
  }
}

/** Whether the first record holds every column name the (public) schema declares. */
function isHeader(firstRecord: string, names: readonly string[]): boolean {
  if (firstRecord === '') return false;
  const parsed = Papa.parse<string[]>(firstRecord, { delimiter: detectDelimiter(firstRecord) });
  const fields = (parsed.data[0] ?? []).map((f) => f.trim());
  return holdsNames(fields, names);
}

export async function fingerprintAndCountRows(file: string, names: readonly string[]): Promise<FileFacts> {
  if (tableFormat(file) !== 'csv') return formatFacts(file, names);
  const hash = createHash('sha256');
  const counter = new RecordCounter();
  let quotes = false;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      counter.push(chunk as Buffer);
      if (!quotes) quotes = (chunk as Buffer).includes(QUOTE);
    }
  } catch (err) {
    throw cannotRead(file, 'data file', err);
  }
  counter.endRecord();
  const hasHeader = isHeader(counter.firstRecord, names);
  const rows = counter.records - (hasHeader ? 1 : 0);
  if (rows < 1) throw new InputError(`${file}: the data file has no data rows.`, { file });
  return { fingerprint: hash.digest('hex'), rows, hasHeader, quotes };
}

/**
 * A file another reader reads: SHA-256 of its bytes, and its rows (the reader's count). A
 * self-describing file's first record is its column names; a sheet's first row is a header by
 * the CSV rule above (it holds every name the release reads).
 */
async function formatFacts(file: string, names: readonly string[]): Promise<FileFacts> {
  // Parquet: the footer's count (no row read); the others: the reader's record count.
  if (tableFormat(file) === 'parquet') {
    const [fingerprint, rows] = await Promise.all([fingerprintFile(file), parquetRowCount(file)]);
    if (rows < 1) throw new InputError(`${file}: the data file has no data rows.`, { file });
    return { fingerprint, rows, hasHeader: true };
  }
  let first: readonly string[] | undefined;
  const read = await readFormatRecords(file, (fields) => {
    first ??= fields;
  });
  const hasHeader = hasOwnHeader(file) || (first !== undefined && holdsNames(first, names));
  const rows = read.records - (hasHeader ? 1 : 0);
  if (rows < 1) throw new InputError(`${file}: the data file has no data rows.`, { file });
  return { fingerprint: read.fingerprint, rows, hasHeader };
}
