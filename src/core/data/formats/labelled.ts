/**
 * What the Stata and SAS readers (dta.ts, sas7bdat.ts) hand on: the column names, each column's
 * value labels (public metadata: they become the column's declared categories, as SPSS's do),
 * and the rows as text, one string per field, missing as the empty field. Both formats are read
 * from the whole file in memory (the rows decoded one at a time); `readLabelledRecords` feeds
 * the rows to the same table, load and discovery code as a CSV's, and turns any fault in the
 * bytes into an InputError naming the file.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../../errors.ts';
import { fingerprintFile } from '../fingerprint.ts';
import type { CsvReadOptions, CsvReadResult, RecordHandler } from '../records.ts';
import { fileSize, unreadable } from '../records.ts';
import type { CategoricalColumn } from '../schema.ts';

export interface LabelledTable {
  readonly names: readonly string[];
  /**
   * Per column, its value labels in value order (value text → label), or undefined. A value with
   * a label is written as its label.
   */
  readonly labels: readonly (ReadonlyMap<string, string> | undefined)[];
  /** The rows, each field as text (labels not yet applied); missing values are ''. */
  rows(): Iterable<string[]>;
}

export interface LabelledFormat {
  /** How the curator knows the format, for messages: "Stata data file (.dta)". */
  readonly title: string;
  /** What to do with a file this reader refuses. */
  readonly advice: string;
  /** Parses the whole file; throws on bytes that do not follow the format. */
  readonly parse: (bytes: Buffer) => LabelledTable;
}

function damaged(file: string, format: LabelledFormat, err: unknown): InputError {
  // A reader's own refusal (a format variant it does not read) says what it is; a fault in the
  // bytes is "damaged or of another kind".
  const detail = err instanceof UnsupportedVariant ? ` (${err.message})` : '';
  return new InputError(
    `${file}: not a readable ${format.title}${detail}; ${
      detail ? 'this version cannot read it' : 'the file is damaged, truncated or of another kind'
    }. ${format.advice}`,
    { file },
  );
}

/** A well-formed file in a variant of the format this reader does not read (e.g. Stata before release 114). */
export class UnsupportedVariant extends Error {
  override readonly name = 'UnsupportedVariant';
}

/** The parsed header and labels, every fault in the bytes an InputError naming the file. */
async function parseLabelled(file: string, format: LabelledFormat): Promise<LabelledTable> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw unreadable(file, err);
  }
  try {
    return format.parse(bytes);
  } catch (err) {
    throw damaged(file, format, err);
  }
}

/** Rows between abort checks and progress reports. */
const PROGRESS_ROWS = 8192;

export async function readLabelledRecords(
  file: string,
  format: LabelledFormat,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  opts.signal?.throwIfAborted();
  const totalBytes = await fileSize(file);
  const fingerprint = await fingerprintFile(file);
  const table = await parseLabelled(file, format);
  const trim = opts.trim ?? true;
  onRecord([...table.names], 1);
  let records = 1;
  // Rows are decoded one at a time (no second copy of the table); a fault met deep in the data is
  // the file's (an InputError naming it), while an error the record handler throws passes as is.
  const rows = table.rows()[Symbol.iterator]();
  for (;;) {
    let next: IteratorResult<string[]>;
    try {
      next = rows.next();
    } catch (err) {
      throw damaged(file, format, err);
    }
    if (next.done) break;
    records++;
    onRecord(
      next.value.map((text, j) => {
        const t = table.labels[j]?.get(text) ?? text;
        return trim ? t.trim() : t;
      }),
      records,
    );
    if (records % PROGRESS_ROWS === 0) {
      opts.signal?.throwIfAborted();
      opts.onProgress?.({ bytes: totalBytes, totalBytes, rows: records - 1 });
    }
  }
  opts.onProgress?.({ bytes: totalBytes, totalBytes, rows: records - 1 });
  return { file, delimiter: ',', totalBytes, records, blankLines: 0, fingerprint };
}

/**
 * The file's value labels as declared categorical columns (public metadata, not a function of
 * the rows): the labels in value order, and a missing category (a missing value is always
 * possible). A value without a label then does not fit: the release refuses it before reserving.
 */
export async function labelledDeclaredColumns(
  file: string,
  format: LabelledFormat,
): Promise<CategoricalColumn[]> {
  const table = await parseLabelled(file, format); // the labels only: the rows are not read here
  const out: CategoricalColumn[] = [];
  table.names.forEach((name, j) => {
    const categories = [...new Set([...(table.labels[j]?.values() ?? [])].map((l) => l.trim()))];
    if (categories.length < 2) return;
    out.push({ name, kind: 'categorical', categories, missing: true, provenance: { source: 'declared' } });
  });
  return out;
}
