/**
 * The table formats a private source may come in, by file name. CSV (and any other name) goes
 * through the streaming text reader; the others through a reader that hands the same records
 * (header row first, then one string per field) to the same table, load and discovery code.
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

/** Whether the format names its columns itself (its first record is always the header). */
export function hasOwnHeader(file: string): boolean {
  return tableFormat(file) !== 'csv';
}

/** A format `readFormatRecords` has no reader for (CSV goes through the streaming text reader). */
export function unsupportedFormat(file: string, format: TableFormat): InputError {
  return new InputError(
    `${file}: ${format} files are not read here. Export the table as CSV or Parquet and release that file.`,
    { file },
  );
}
