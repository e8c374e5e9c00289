/**
 * Loading the curator's CSV into an EncodedDataset. With a declared schema this is one pass;
 * without one, a first pass infers the schema (infer.ts) and a second encodes, so the raw text
 * is never kept: only statistics, then codes. Both passes hash the file, and a file that
 * changes between them is an error rather than a silently inconsistent dataset.
 */
import { InputError } from '../errors.ts';
import type { Delimiter } from './csv.ts';
import { DatasetEncoder, type OutOfDomainRule, withOtherCategory } from './encode.ts';
import { type InferOptions, inferSchema, noUsableRows, type OverLimitColumn } from './infer.ts';
import { type RejectedRows, Rejections } from './rejections.ts';
import type { EncodedDataset, Schema, SchemaOrigin } from './schema.ts';
import { assertValidSchema } from './schema-file.ts';
import { readTable, type TableOptions, type TableShape } from './table.ts';
import { DEFAULT_MISSING_MARKERS } from './values.ts';

export interface LoadProgress {
  /** Bytes read, summed over both passes when the schema is inferred. */
  readonly bytes: number;
  /** File size, times two when the schema is inferred (two passes). */
  readonly totalBytes: number;
  /** Records read in the current pass. */
  readonly rows: number;
  readonly phase: 'infer' | 'encode';
}

export interface LoadOptions extends InferOptions {
  /** The declared schema; inferred from the data (and marked so) when absent. */
  readonly schema?: Schema;
  /** Default ['?', '', 'NA']; a value a categorical column lists as a category is never missing. */
  readonly missingMarkers?: readonly string[];
  /** Default 'reject'; one rule, or one per column (see encode.ts). */
  readonly outOfDomain?: OutOfDomainRule;
  readonly header?: TableOptions['header'];
  readonly columns?: readonly string[];
  /** The columns to read (column-choice.ts): the others are dropped as the file is parsed. */
  readonly choice?: TableOptions['choice'];
  readonly delimiter?: TableOptions['delimiter'];
  readonly trim?: boolean;
  readonly maxRecordChars?: number;
  /** Keep rows of the wrong width as all-missing rows (n = records); see table.ts. */
  readonly raggedAsMissing?: boolean;
  readonly onProgress?: (p: LoadProgress) => void;
  readonly signal?: AbortSignal;
}

export interface LoadSummary {
  readonly file: string;
  /** Data rows read (header and blank lines excluded). */
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  /** Every rejected row, counted by reason, in order of first occurrence. */
  readonly rejected: readonly RejectedRows[];
  readonly schemaOrigin: SchemaOrigin;
  readonly confirmedFromInferred: boolean;
  readonly hasHeader: boolean;
  readonly delimiter: Delimiter;
  readonly blankLines: number;
  /** Table columns the declared schema does not mention, left out of the dataset. */
  readonly ignoredColumns: readonly string[];
  /** Text columns an inferred schema set aside for their category limit (InferOptions.overLimit). */
  readonly overLimit: readonly OverLimitColumn[];
}

export interface LoadResult {
  readonly dataset: EncodedDataset;
  readonly summary: LoadSummary;
  /** SHA-256 hex of the file bytes. */
  readonly fingerprint: string;
  /** The table's column names (header, `columns` option, or column_1…column_N). */
  readonly header: readonly string[];
}

export async function loadCsv(file: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const missingMarkers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const size = { passes: opts.schema ? 1 : 2, done: 0 };
  const progress = (phase: LoadProgress['phase']): TableOptions['onProgress'] =>
    opts.onProgress &&
    ((p) =>
      opts.onProgress!({
        bytes: size.done + p.bytes,
        totalBytes: p.totalBytes * size.passes,
        rows: p.rows,
        phase,
      }));

  opts.signal?.throwIfAborted();
  if (opts.schema) assertValidSchema(opts.schema, 'the declared schema');
  let schema = opts.schema;
  let firstFingerprint: string | undefined;
  let overLimit: readonly OverLimitColumn[] = [];
  if (!schema) {
    const inferred = await inferSchema(file, { ...opts, missingMarkers, onProgress: progress('infer') });
    schema = inferred.schema;
    overLimit = inferred.overLimit;
    firstFingerprint = inferred.table.fingerprint;
    size.done = inferred.table.totalBytes;
    opts.signal?.throwIfAborted();
  } else if (opts.outOfDomain !== undefined && opts.outOfDomain !== 'reject') {
    schema = withOtherCategory(schema, opts.outOfDomain);
  }
  const declared = opts.schema !== undefined;
  const names = schema.columns.map((c) => c.name);

  const rejections = new Rejections();
  let encoder: DatasetEncoder | undefined;
  let ignoredColumns: string[] = [];
  const table = await readTable(
    file,
    {
      start(shape) {
        const sources = columnSources(file, names, shape);
        ignoredColumns = shape.header.filter((_, c) => !sources.includes(c));
        encoder = new DatasetEncoder(
          schema,
          sources,
          { missingMarkers, outOfDomain: opts.outOfDomain ?? 'reject' },
          rejections,
        );
      },
      row: (values, line) => encoder!.add(values, line),
    },
    rejections,
    {
      ...opts,
      missingMarkers,
      expectedNames: declared ? names : undefined,
      onProgress: progress('encode'),
    },
  );
  if (firstFingerprint !== undefined && firstFingerprint !== table.fingerprint) {
    throw new InputError(
      `${file}: the file changed while it was being read (its SHA-256 differs between the two passes); ` +
        'load it again once nothing is writing to it.',
      { file },
    );
  }
  const dataset = encoder!.finish();
  if (dataset.n === 0) throw noUsableRows(file, table.rowsRead, rejections);
  return {
    dataset,
    fingerprint: table.fingerprint,
    header: table.header,
    summary: {
      file,
      rowsRead: table.rowsRead,
      rowsAccepted: dataset.n,
      rejected: rejections.list(),
      schemaOrigin: schema.origin,
      confirmedFromInferred: schema.confirmedFromInferred === true,
      hasHeader: table.hasHeader,
      delimiter: table.delimiter,
      blankLines: table.blankLines,
      ignoredColumns,
      overLimit,
    },
  };
}

/**
 * Which table column feeds each schema column: by name when the table has every schema name;
 * by position for a headerless table as wide as the schema.
 */
export function columnSources(file: string, names: readonly string[], shape: TableShape): number[] {
  const index = new Map(shape.header.map((n, c) => [n, c]));
  const missing = names.filter((n) => !index.has(n));
  if (missing.length === 0) return names.map((n) => index.get(n)!);
  if (!shape.hasHeader && shape.header.length === names.length) return names.map((_, c) => c);
  const where = shape.hasHeader ? `${file}, line ${shape.firstLine}` : file;
  const has = shape.hasHeader
    ? `the header has: ${shape.header.join(', ')}`
    : `the file has no header and ${shape.header.length} columns`;
  throw new InputError(
    `${where}: the schema's column "${missing[0]}" is not in the table (${has}); ` +
      'rename the column or fix the schema.',
    { file, column: missing[0] },
  );
}
