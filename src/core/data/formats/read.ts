/** Records from a non-CSV table file, by format (format.ts): one reader loop (records.ts), each format's chunks. */
import type { CsvReadOptions, CsvReadResult, RecordChunks, RecordHandler } from '../records.ts';
import { readChunkedRecords } from '../records.ts';
import { DTA } from './dta.ts';
import { tableFormat, unsupportedFormat } from './format.ts';
import { labelledChunks } from './labelled.ts';
import { parquetChunks } from './parquet.ts';
import { SAS7BDAT } from './sas7bdat.ts';
import { savChunks } from './sav.ts';
import { xlsxChunks } from './xlsx.ts';

/** A non-CSV file's records as an async stream of chunks (header record first), by format. */
export function formatChunks(file: string): RecordChunks {
  const format = tableFormat(file);
  switch (format) {
    case 'parquet':
      return parquetChunks;
    case 'xlsx':
      return xlsxChunks;
    case 'sav':
      return savChunks;
    case 'dta':
      return labelledChunks(DTA);
    case 'sas7bdat':
      return labelledChunks(SAS7BDAT);
    default:
      throw unsupportedFormat(file, format);
  }
}

export async function readFormatRecords(
  file: string,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  return readChunkedRecords(file, formatChunks(file), onRecord, opts);
}
