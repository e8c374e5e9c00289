/**
 * A CSV file as a table: header (given, read or guessed), a fixed width, and data rows of
 * exactly that width. Rows of another width (ragged rows) are rejected and counted, not fatal:
 * one bad line in a million should not block a release, and the summary reports it.
 */
import { InputError } from '../errors.ts';
import { type ColumnChoice, keptColumnIndices } from './column-choice.ts';
import { type CsvReadOptions, type CsvReadResult, readCsvRecords } from './csv.ts';
import { hasOwnHeader, tableFormat } from './formats/format.ts';
import {
  checkColumnNames,
  defaultColumnNames,
  type HeaderMode,
  holdsNames,
  looksLikeHeader,
} from './header.ts';
import { Rejections } from './rejections.ts';
import { DEFAULT_MISSING_MARKERS } from './values.ts';

export interface TableOptions extends CsvReadOptions {
  /** Whether the first row names the columns; 'auto' (default) guesses, see header.ts. */
  readonly header?: HeaderMode;
  /** Column names to use: for a file without a header, or to replace the header's names. */
  readonly columns?: readonly string[];
  readonly missingMarkers?: readonly string[];
  /** Names of a declared schema: with header 'auto', the first row is a header iff it holds them all. */
  readonly expectedNames?: readonly string[];
  /**
   * Keep a row of the wrong width as a row of missing values (the first missing marker in every
   * column) instead of rejecting it: n stays the number of records. It is still counted, under a
   * reason that says it was kept.
   */
  readonly raggedAsMissing?: boolean;
  /**
   * The columns to read (column-choice.ts): the others are dropped from every record as it is
   * parsed, so the sink never sees them; the shape's header is the kept columns'. A row's width is
   * still checked against the whole table.
   */
  readonly choice?: ColumnChoice;
}

export interface TableShape {
  /**
   * Column names: the header's, the `columns` option's, or column_1…column_N; with a `choice`,
   * the kept columns' only.
   */
  readonly header: readonly string[];
  readonly hasHeader: boolean;
  /** Line of the header row, or of the first data row when there is none. */
  readonly firstLine: number;
}

export interface TableResult extends CsvReadResult, TableShape {
  /** Data records read (the header excluded), ragged ones included. */
  readonly rowsRead: number;
}

/** Receives the table row by row; `values.length === shape.header.length` always. */
export interface TableSink {
  start(shape: TableShape): void;
  row(values: readonly string[], line: number): void;
}

/**
 * The one rule for a row of the wrong width in a release (CLI and app alike): kept as a record
 * with every value missing, so n stays the file's record count. Its reason ends with this text.
 */
export const KEPT_AS_MISSING = '(kept, every value missing)';

/** Whether a load summary's reason is a row kept as all-missing (not a rejected row). */
export function isKeptAsMissing(reason: string): boolean {
  return reason.endsWith(KEPT_AS_MISSING);
}

/** Records buffered to decide about the header and the width before any row goes out. */
const SAMPLE_RECORDS = 100;

interface Sampled {
  readonly fields: string[];
  readonly line: number;
}

export async function readTable(
  file: string,
  sink: TableSink,
  rejections: Rejections,
  opts: TableOptions = {},
): Promise<TableResult> {
  const missingText = (opts.missingMarkers ?? DEFAULT_MISSING_MARKERS)[0] ?? '';
  const sample: Sampled[] = [];
  let shape: TableShape | undefined;
  /** The whole table's width, and the kept columns' indices when a choice drops some. */
  let width = 0;
  let kept: readonly number[] | undefined;
  let rowsRead = 0;
  const accept = (fields: readonly string[], line: number): void => {
    rowsRead++;
    if (fields.length === width) sink.row(kept ? kept.map((c) => fields[c]) : fields, line);
    else if (opts.raggedAsMissing) {
      rejections.add(`row has ${fields.length} fields, expected ${width} ${KEPT_AS_MISSING}`, line);
      sink.row(new Array<string>(shape!.header.length).fill(missingText), line);
    } else rejections.add(`row has ${fields.length} fields, expected ${width}`, line);
  };
  const settle = (): void => {
    const whole = decideShape(file, sample, opts);
    width = whole.header.length;
    kept = opts.choice ? keptColumnIndices(file, whole.header, opts.choice) : undefined;
    shape = kept ? { ...whole, header: kept.map((c) => whole.header[c]) } : whole;
    sink.start(shape);
    for (const r of sample.slice(shape.hasHeader ? 1 : 0)) accept(r.fields, r.line);
    sample.length = 0;
  };

  const read = await readCsvRecords(
    file,
    (fields, line) => {
      if (shape) return accept(fields, line);
      sample.push({ fields, line });
      if (sample.length >= SAMPLE_RECORDS) settle();
    },
    opts,
  );
  if (!shape) {
    if (sample.length === 0) {
      throw new InputError(`${file}: the file is empty; expected a header row and data rows.`, { file });
    }
    settle();
  }
  const done = shape!;
  if (rowsRead === 0) {
    throw new InputError(
      `${file}, line ${done.firstLine}: the file has a header row but no data rows` +
        ' (if that row is data, say the file has no header).',
      { file, line: done.firstLine },
    );
  }
  return { ...read, ...done, rowsRead };
}

function decideShape(file: string, sample: readonly Sampled[], opts: TableOptions): TableShape {
  const first = sample[0];
  // A Parquet / statistics file names its columns itself (data/formats/); a CSV's or a sheet's
  // first row is the curator's to say, else guessed (a release refuses a guessed header).
  const hasHeader = hasOwnHeader(file) || hasHeaderRow(sample, opts);
  const width = hasHeader ? first.fields.length : modalWidth(sample);
  if (width < 2) {
    throw new InputError(
      `${file}, line ${first.line}: the table has only one column; RAP needs at least two. ` +
        (tableFormat(file) === 'csv'
          ? `Is the delimiter one of ',', ';' or tab?`
          : 'Release a file with two or more columns.'),
      { file, line: first.line },
    );
  }
  if (hasHeader) checkColumnNames(first.fields, (c) => `${file}, line ${first.line}, column ${c + 1}`);
  let header: readonly string[] = hasHeader ? first.fields : defaultColumnNames(width);
  if (opts.columns) {
    if (opts.columns.length !== width) {
      throw new InputError(
        `${file}: ${opts.columns.length} column names were given but the table has ${width} columns.`,
        { file },
      );
    }
    checkColumnNames(opts.columns, (c) => `column names given for ${file}, name ${c + 1}`);
    header = opts.columns;
  }
  return { header: [...header], hasHeader, firstLine: first.line };
}

function hasHeaderRow(sample: readonly Sampled[], opts: TableOptions): boolean {
  const mode = opts.header ?? 'auto';
  if (mode !== 'auto') return mode;
  const first = sample[0].fields;
  if (opts.expectedNames) return holdsNames(first, opts.expectedNames);
  const rest = sample.slice(1);
  // A lone-field first line above wider rows (adult.test opens with '|1x3 Cross validator') is a
  // title, not a header: it becomes a ragged data row, rejected and counted.
  if (first.length === 1 && rest.length > 0 && modalWidth(rest) > 1) return false;
  const missing = new Set(opts.missingMarkers ?? DEFAULT_MISSING_MARKERS);
  return looksLikeHeader(
    first,
    rest.map((s) => s.fields),
    missing,
  );
}

/** The most common field count in the sample (the first record's on a tie). */
function modalWidth(sample: readonly Sampled[]): number {
  const counts = new Map<number, number>();
  for (const s of sample) counts.set(s.fields.length, (counts.get(s.fields.length) ?? 0) + 1);
  let best = sample[0].fields.length;
  for (const [w, n] of counts) if (n > counts.get(best)!) best = w;
  return best;
}

/** Stops readTable once the shape is known. */
class HeaderRead extends Error {
  constructor(readonly shape: TableShape) {
    super('header read');
  }
}

/**
 * The table's column names only (the header, the `columns` option, or column_1…column_N): public facts
 * a workload can be drawn from before any domain is known. Reads at most the first 100 records
 * (to decide whether the first row is a header) and no further.
 */
export async function readTableHeader(file: string, opts: TableOptions = {}): Promise<TableShape> {
  try {
    const t = await readTable(
      file,
      {
        start(shape) {
          throw new HeaderRead(shape);
        },
        row() {},
      },
      new Rejections(),
      opts,
    );
    return { header: t.header, hasHeader: t.hasHeader, firstLine: t.firstLine };
  } catch (err) {
    if (err instanceof HeaderRead) return err.shape;
    throw err;
  }
}
