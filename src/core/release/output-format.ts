/**
 * The released file's format, by its name: `.csv`, `.parquet`, `.xlsx`, `.sav` or `.dta` (any
 * case). The release is always made as the CSV (output.ts); a Parquet, Excel, SPSS or Stata
 * release is that CSV converted (data/formats/write-parquet.ts, write-xlsx.ts, write-sav.ts,
 * write-dta.ts) inside the same write (publish.ts), so every format holds the same values and has
 * the same guarantees: written to a recorded temp file, flushed, linked into place, never over a
 * file, hashed into the manifest and the ledger. What a format cannot hold (an Excel sheet's rows,
 * an SPSS or Stata variable name) is checked before reserving (`checkOutput`).
 *
 * The app's export defaults to the input's format where a writer exists (Parquet, Excel, SPSS,
 * Stata); SAS's format is undocumented (our reader follows the reverse-engineered descriptions),
 * so a SAS input's release is CSV (`noWriterNote` says so).
 */
import { extname } from 'node:path';
import { dtaNameProblem, writeDtaFromCsv } from '../data/formats/write-dta.ts';
import { type WrittenColumn, writeParquetFromCsv } from '../data/formats/write-parquet.ts';
import { SAV_MAX_ROWS, savNameProblem, writeSavFromCsv } from '../data/formats/write-sav.ts';
import { writeXlsxFromCsv, XLSX_MAX_ROWS } from '../data/formats/write-xlsx.ts';
import { InputError } from '../errors.ts';
import { escapeFormula } from './output.ts';

export type OutputFormat = 'csv' | 'parquet' | 'xlsx' | 'sav' | 'dta';

/** The extensions a release may be written to, in the order messages name them. */
export const OUTPUT_EXTENSIONS: readonly string[] = ['.csv', '.parquet', '.xlsx', '.sav', '.dta'];

/**
 * The Data Package's `format` / `mediatype` of each (IANA: text/csv, application/vnd.apache.parquet,
 * OOXML; SPSS and Stata have no registered type: the `application/x-` types their tools and
 * shared-mime-info use).
 */
export const OUTPUT_MEDIA: Readonly<
  Record<OutputFormat, { readonly format: string; readonly mediatype: string }>
> = {
  csv: { format: 'csv', mediatype: 'text/csv' },
  parquet: { format: 'parquet', mediatype: 'application/vnd.apache.parquet' },
  xlsx: { format: 'xlsx', mediatype: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  sav: { format: 'sav', mediatype: 'application/x-spss-sav' },
  dta: { format: 'dta', mediatype: 'application/x-stata-dta' },
};

const BY_EXTENSION: Readonly<Record<string, OutputFormat>> = {
  '.csv': 'csv',
  '.parquet': 'parquet',
  '.xlsx': 'xlsx',
  '.sav': 'sav',
  '.dta': 'dta',
};

/** The format a file name asks for; null for any other extension (or none). */
export function outputFormatOf(file: string): OutputFormat | null {
  return BY_EXTENSION[extname(file).toLowerCase()] ?? null;
}

/** The format a release's output path asks for, or an InputError naming the path and the extensions. */
export function requireOutputFormat(file: string): OutputFormat {
  const format = outputFormatOf(file);
  if (format) return format;
  throw new InputError(
    `synthetic data ${file}: the released file's format follows its extension, and ` +
      `${extname(file) ? `"${extname(file)}"` : 'no extension'} is none RAP Studio writes; name it ` +
      `${OUTPUT_EXTENSIONS.join(', ')} (CSV, Parquet, Excel, SPSS or Stata). Nothing was reserved.`,
    { file },
  );
}

/**
 * A release of `rows` synthetic rows fits the format `file` names (checked before reserving):
 * an Excel sheet holds at most XLSX_MAX_ROWS rows, the header's included; an SPSS file 2^31 − 1.
 */
export function checkOutputRows(file: string, rows: number): void {
  const format = outputFormatOf(file);
  const [max, what] =
    format === 'xlsx'
      ? [XLSX_MAX_ROWS - 1, 'one Excel sheet']
      : format === 'sav'
        ? [SAV_MAX_ROWS, 'one SPSS file']
        : [Number.POSITIVE_INFINITY, ''];
  if (rows <= max) return;
  throw new InputError(
    `synthetic data ${file}: ${rows} synthetic rows (--rows × --oversample) do not fit ${what} ` +
      `(at most ${max} rows below the header); release to .csv or .parquet, or ask for fewer rows. ` +
      'Nothing was reserved.',
    { file },
  );
}

/**
 * The released columns' names (the public schema's) can be the variable names of the format
 * `file` names (checked before reserving): SPSS and Stata have rules for names (write-sav.ts
 * `savNameProblem`, write-dta.ts `dtaNameProblem`). A name that breaks them is refused, naming it
 * and the rule, rather than renamed: the released file's names stay the schema's.
 */
export function checkOutputColumns(file: string, names: readonly string[]): void {
  const problem = outputColumnsProblem(file, names);
  if (problem === null) return;
  throw new InputError(
    `synthetic data ${file}: ${problem}. The released columns keep their names; release to .csv, .parquet ` +
      'or .xlsx (which take any name), or rename the column in the input. Nothing was reserved.',
    { file },
  );
}

/** Why the format `file` names cannot hold these column names (null: it can). */
export function outputColumnsProblem(file: string, names: readonly string[]): string | null {
  const format = outputFormatOf(file);
  return format === 'sav' ? savNameProblem(names) : format === 'dta' ? dtaNameProblem(names) : null;
}

/** Both checks before reserving: the rows and the column names fit the format `file` names. */
export function checkOutput(file: string, rows: number, names: readonly string[]): void {
  checkOutputRows(file, rows);
  checkOutputColumns(file, names);
}

/** The release format that keeps an input's (by its name): Parquet, Excel, SPSS and Stata kept, others CSV. */
export function releaseFormatFor(inputFile: string): OutputFormat {
  const format = outputFormatOf(inputFile);
  return format ?? 'csv';
}

const NO_WRITER: Readonly<Record<string, string>> = {
  '.sas7bdat': 'SAS (.sas7bdat), a file format SAS does not document',
};

/** Why a release of this input is CSV although the input is not (null where it keeps its format). */
export function noWriterNote(inputFile: string): string | null {
  const kind = NO_WRITER[extname(inputFile).toLowerCase()];
  return kind
    ? `the input is ${kind}: RAP Studio reads it but does not write it, so the release is CSV`
    : null;
}

/**
 * The Table Schema fields' names and types, from the manifest's fields (absent: all text), and an
 * SPSS/Stata input's codes for declared categories (the manifest's `schema.valueLabels`), each
 * category's CSV text as the CSV writes it (formula-escaped).
 */
export function writtenColumns(
  manifestFields: Readonly<Record<string, unknown>>,
  header: readonly string[],
): WrittenColumn[] {
  const schema = manifestFields.schema as
    | {
        tableSchema?: {
          fields?: { name: string; type?: string; missingValues?: string[] }[];
          missingValues?: string[];
        };
        valueLabels?: { column: string; labels: { value: number; label: string }[] }[];
      }
    | undefined;
  const fields = schema?.tableSchema?.fields ?? [];
  const byName = new Map(fields.map((f) => [f.name, f]));
  const sets = new Map((schema?.valueLabels ?? []).map((s) => [s.column, s.labels]));
  return header.map((name) => {
    const field = byName.get(name);
    const labels = sets.get(name);
    const missing = field?.missingValues ?? schema?.tableSchema?.missingValues ?? [''];
    return {
      name,
      type: field?.type ?? 'string',
      missing,
      ...(labels ? { codes: labels.map((l) => ({ ...l, text: escapeFormula(l.label) })) } : {}),
    };
  });
}

const CONVERT: Readonly<
  Record<
    Exclude<OutputFormat, 'csv'>,
    (csv: string, dest: string, columns: readonly WrittenColumn[]) => Promise<void>
  >
> = {
  parquet: writeParquetFromCsv,
  xlsx: writeXlsxFromCsv,
  sav: writeSavFromCsv,
  dta: writeDtaFromCsv,
};

/** Converts the release's CSV at `csv` to a new file at `dest` in `format` (not CSV). */
export async function convertReleasedCsv(
  format: Exclude<OutputFormat, 'csv'>,
  csv: string,
  dest: string,
  columns: readonly WrittenColumn[],
): Promise<void> {
  await CONVERT[format](csv, dest, columns);
}
