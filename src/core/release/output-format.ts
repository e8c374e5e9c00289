/**
 * The released file's format, by its name: `.csv`, `.parquet` or `.xlsx` (any case). The release
 * is always made as the CSV (output.ts); a Parquet or Excel release is that CSV converted
 * (data/formats/write-parquet.ts, write-xlsx.ts) inside the same write (publish.ts), so every
 * format holds the same values and has the same guarantees: written to a recorded temp file,
 * flushed, linked into place, never over a file, hashed into the manifest and the ledger.
 *
 * The app's export defaults to the input's format where a writer exists (Parquet, Excel); SPSS,
 * Stata and SAS files have no writer here, so their releases are CSV (`noWriterNote` says so).
 */
import { extname } from 'node:path';
import { type WrittenColumn, writeParquetFromCsv } from '../data/formats/write-parquet.ts';
import { writeXlsxFromCsv, XLSX_MAX_ROWS } from '../data/formats/write-xlsx.ts';
import { InputError } from '../errors.ts';

export type OutputFormat = 'csv' | 'parquet' | 'xlsx';

/** The extensions a release may be written to, in the order messages name them. */
export const OUTPUT_EXTENSIONS: readonly string[] = ['.csv', '.parquet', '.xlsx'];

/** The Data Package's `format` / `mediatype` of each (IANA: text/csv, application/vnd.apache.parquet, OOXML). */
export const OUTPUT_MEDIA: Readonly<
  Record<OutputFormat, { readonly format: string; readonly mediatype: string }>
> = {
  csv: { format: 'csv', mediatype: 'text/csv' },
  parquet: { format: 'parquet', mediatype: 'application/vnd.apache.parquet' },
  xlsx: { format: 'xlsx', mediatype: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
};

/** The format a file name asks for; null for any other extension (or none). */
export function outputFormatOf(file: string): OutputFormat | null {
  const ext = extname(file).toLowerCase();
  return ext === '.csv' ? 'csv' : ext === '.parquet' ? 'parquet' : ext === '.xlsx' ? 'xlsx' : null;
}

/** The format a release's output path asks for, or an InputError naming the path and the extensions. */
export function requireOutputFormat(file: string): OutputFormat {
  const format = outputFormatOf(file);
  if (format) return format;
  throw new InputError(
    `synthetic data ${file}: the released file's format follows its extension, and ` +
      `${extname(file) ? `"${extname(file)}"` : 'no extension'} is none RAP Studio writes; name it ` +
      `${OUTPUT_EXTENSIONS.join(', ')} (CSV, Parquet or Excel). Nothing was reserved.`,
    { file },
  );
}

/**
 * A release of `rows` synthetic rows fits the format `file` names (checked before reserving):
 * an Excel sheet holds at most XLSX_MAX_ROWS rows, the header's included.
 */
export function checkOutputRows(file: string, rows: number): void {
  if (outputFormatOf(file) !== 'xlsx' || rows < XLSX_MAX_ROWS) return;
  throw new InputError(
    `synthetic data ${file}: ${rows} synthetic rows (--rows × --oversample) do not fit one Excel sheet ` +
      `(at most ${XLSX_MAX_ROWS - 1} rows below the header); release to .csv or .parquet, or ask for fewer rows. ` +
      'Nothing was reserved.',
    { file },
  );
}

/** The release format that keeps an input's (by its name): Parquet and Excel kept, others CSV. */
export function releaseFormatFor(inputFile: string): OutputFormat {
  const format = outputFormatOf(inputFile);
  return format === 'parquet' || format === 'xlsx' ? format : 'csv';
}

const NO_WRITER: Readonly<Record<string, string>> = {
  '.sav': 'SPSS (.sav)',
  '.dta': 'Stata (.dta)',
  '.sas7bdat': 'SAS (.sas7bdat)',
};

/** Why a release of this input is CSV although the input is not (null where it keeps its format). */
export function noWriterNote(inputFile: string): string | null {
  const kind = NO_WRITER[extname(inputFile).toLowerCase()];
  return kind ? `the input is ${kind}, which RAP Studio reads but does not write: the release is CSV` : null;
}

/** The Table Schema fields' names and types, from the manifest's fields (absent: all text). */
export function writtenColumns(
  manifestFields: Readonly<Record<string, unknown>>,
  header: readonly string[],
): WrittenColumn[] {
  const fields =
    (manifestFields.schema as { tableSchema?: { fields?: { name: string; type?: string }[] } } | undefined)
      ?.tableSchema?.fields ?? [];
  const types = new Map(fields.map((f) => [f.name, f.type ?? 'string']));
  return header.map((name) => ({ name, type: types.get(name) ?? 'string' }));
}

/** Converts the release's CSV at `csv` to a new file at `dest` in `format` (not CSV). */
export async function convertReleasedCsv(
  format: Exclude<OutputFormat, 'csv'>,
  csv: string,
  dest: string,
  columns: readonly WrittenColumn[],
): Promise<void> {
  if (format === 'parquet') await writeParquetFromCsv(csv, dest, columns);
  else await writeXlsxFromCsv(csv, dest, columns);
}
