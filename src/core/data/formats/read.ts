/** Records from a non-CSV table file, by format (format.ts). */
import type { CsvReadOptions, CsvReadResult, RecordHandler } from '../records.ts';
import { tableFormat, unsupportedFormat } from './format.ts';
import { readParquetRecords } from './parquet.ts';
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
    default:
      throw unsupportedFormat(file, format);
  }
}
