/**
 * The table formats a private source may come in, by file name. CSV (and any other name) goes
 * through the streaming text reader; the others through a reader that hands the same records
 * (one string per field; a self-describing format's column names first) to the same table, load
 * and discovery code.
 */
import { InputError } from '../../errors.ts';

export type TableFormat = 'csv' | 'parquet' | 'xlsx' | 'sav' | 'dta' | 'sas7bdat';

const BY_EXTENSION: Readonly<Record<string, TableFormat>> = {
  parquet: 'parquet',
  xlsx: 'xlsx',
  sav: 'sav',
  dta: 'dta',
  sas7bdat: 'sas7bdat',
};

export function tableFormat(file: string): TableFormat {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
  return BY_EXTENSION[ext] ?? 'csv';
}

/**
 * Whether the format names its columns in its metadata (Parquet, SPSS, Stata, SAS: the reader's
 * first record is always those names). A CSV's or an Excel sheet's first row is only a row: a
 * record or the names, which the curator says (`--header yes|no`) or header.ts guesses, and a
 * release refuses a guessed header (release.ts releaseColumnNames): a sheet whose first row was a
 * record once published that record as the released column names.
 */
export function hasOwnHeader(file: string): boolean {
  const format = tableFormat(file);
  return format !== 'csv' && format !== 'xlsx';
}

/** A format `readFormatRecords` has no reader for (CSV goes through the streaming text reader). */
export function unsupportedFormat(file: string, format: TableFormat): InputError {
  return new InputError(
    `${file}: ${format} files are not read here. Export the table as CSV or Parquet and release that file.`,
    { file },
  );
}
