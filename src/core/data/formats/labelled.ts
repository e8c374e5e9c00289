/**
 * What the Stata and SAS readers (dta.ts, sas7bdat.ts) hand on: the column names, each column's
 * value labels (public metadata: they become the column's declared categories, as SPSS's do),
 * and the rows as text, one string per field, missing as the empty field. Both formats are read
 * from the whole file in memory (the rows decoded one at a time); `readLabelledRecords` feeds
 * the rows to the same table, load and discovery code as a CSV's, and turns any fault in the
 * bytes into an InputError naming the file.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { InputError } from '../../errors.ts';
import type { CsvReadOptions, RecordChunk, RecordChunks } from '../records.ts';
import { CHUNK_RECORDS, unreadable } from '../records.ts';
import type { CategoricalColumn } from '../schema.ts';
import { type ByteFile, Bytes, readFileAt } from './binary.ts';

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
  /**
   * Reads the header and labels (the rows when `rows()` walks them); throws on bytes that do not
   * follow the format.
   */
  readonly parse: (bytes: Bytes) => LabelledTable;
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

/** The file read by position (a bounded window: binary.ts), for `parse` (and the SPSS cases: sav-cases.ts); closed by the caller. */
export function openBytes(file: string): { readonly bytes: Bytes; close(): void } {
  let fd: number | undefined;
  let length: number;
  try {
    fd = openSync(file, 'r');
    length = fstatSync(fd).size;
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    throw unreadable(file, err);
  }
  const opened = fd;
  const source: ByteFile = {
    length,
    read: (offset, want) => readFileAt(opened, offset, want),
  };
  return { bytes: new Bytes(source, true), close: () => closeSync(opened) };
}

/** The parsed header and labels, every fault in the bytes an InputError naming the file. */
function parseLabelled(file: string, format: LabelledFormat, bytes: Bytes): LabelledTable {
  try {
    return format.parse(bytes);
  } catch (err) {
    throw damaged(file, format, err);
  }
}

/** `job` on the parsed header and labels; the file is closed when it settles. */
async function withLabelled<T>(
  file: string,
  format: LabelledFormat,
  job: (table: LabelledTable) => Promise<T>,
): Promise<T> {
  const handle = openBytes(file);
  try {
    return await job(parseLabelled(file, format, handle.bytes));
  } finally {
    handle.close();
  }
}

/**
 * The column names, then the rows as the parser decodes them, labels applied, in chunks; the
 * file is read through a bounded window (never whole) and closed however the reading ends.
 */
export function labelledChunks(format: LabelledFormat): RecordChunks {
  return async function* (file: string, opts: CsvReadOptions): AsyncGenerator<RecordChunk> {
    const handle = openBytes(file);
    try {
      const table = parseLabelled(file, format, handle.bytes);
      const trim = opts.trim ?? true;
      yield { records: [[...table.names]] };
      // A fault met deep in the data is the file's (an InputError naming it).
      const rows = table.rows()[Symbol.iterator]();
      for (let done = false; !done; ) {
        const records: string[][] = [];
        while (records.length < CHUNK_RECORDS) {
          let next: IteratorResult<string[]>;
          try {
            next = rows.next();
          } catch (err) {
            throw damaged(file, format, err);
          }
          if (next.done) {
            done = true;
            break;
          }
          records.push(
            next.value.map((text, j) => {
              const t = table.labels[j]?.get(text) ?? text;
              return trim ? t.trim() : t;
            }),
          );
        }
        if (records.length > 0) yield { records };
      }
    } finally {
      handle.close();
    }
  };
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
  // The header and labels only: the rows are not read here.
  return withLabelled(file, format, async (table) => {
    const out: CategoricalColumn[] = [];
    table.names.forEach((name, j) => {
      const categories = [...new Set([...(table.labels[j]?.values() ?? [])].map((l) => l.trim()))];
      if (categories.length < 2) return;
      out.push({ name, kind: 'categorical', categories, missing: true, provenance: { source: 'declared' } });
    });
    return out;
  });
}

/**
 * The file's value labels with their codes (public metadata, as `labelledDeclaredColumns`): for
 * each column whose labelled values are plain integers (not dates), its (value, label) pairs in
 * value order, labels trimmed.
 */
export async function labelledValueLabels(
  file: string,
  format: LabelledFormat,
): Promise<{ column: string; labels: { value: number; label: string }[] }[]> {
  return withLabelled(file, format, async (table) => {
    const out: { column: string; labels: { value: number; label: string }[] }[] = [];
    table.names.forEach((column, j) => {
      const set = table.labels[j];
      if (!set || set.size === 0) return;
      const labels = [...set].map(([text, label]) => ({ value: Number(text), label: label.trim(), text }));
      if (!labels.every((l) => Number.isSafeInteger(l.value) && String(l.value) === l.text)) return;
      out.push({
        column,
        labels: labels.sort((a, b) => a.value - b.value).map(({ value, label }) => ({ value, label })),
      });
    });
    return out;
  });
}
