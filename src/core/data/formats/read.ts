/** Records from a non-CSV table file, by format (format.ts). */
import type { CsvReadOptions, CsvReadResult, RecordHandler } from '../records.ts';
import { DTA } from './dta.ts';
import { tableFormat, unsupportedFormat } from './format.ts';
import { readLabelledRecords } from './labelled.ts';
import { readParquetRecords } from './parquet.ts';
import { SAS7BDAT } from './sas7bdat.ts';
import { readSavRecords } from './sav.ts';
import { readXlsxRecords } from './xlsx.ts';

export async function readFormatRecords(
  file: string,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  const format = tableFormat(file);
  switch (format) {
    case 'parquet':
      return readParquetRecords(file, onRecord, opts);
    case 'xlsx':
      return readXlsxRecords(file, onRecord, opts);
    case 'sav':
      return readSavRecords(file, onRecord, opts);
    case 'dta':
      return readLabelledRecords(file, DTA, onRecord, opts);
    case 'sas7bdat':
      return readLabelledRecords(file, SAS7BDAT, onRecord, opts);
    default:
      throw unsupportedFormat(file, format);
  }
}
