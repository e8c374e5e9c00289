/**
 * An Excel workbook (.xlsx) as records: its first sheet, first row the column names, then each
 * row's cells as text (numbers as JavaScript prints them, 7 not 7.0; dates as ISO dates; empty
 * cells as the empty field), through `read-excel-file` (maintained, pure JavaScript, no install
 * script). A workbook is read whole into memory (Excel caps a sheet at 1,048,576 rows); for more,
 * use CSV or Parquet. A corrupt file is refused with a message naming it.
 */
import { InputError } from '../../errors.ts';
import { fingerprintFile } from '../fingerprint.ts';
import type { CsvReadOptions, CsvReadResult, RecordHandler } from '../records.ts';
import { fileSize } from '../records.ts';

/** The text of a cell as a CSV export of the sheet would hold it. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return String(v);
}

export async function readXlsxRecords(
  file: string,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  opts.signal?.throwIfAborted();
  const totalBytes = await fileSize(file);
  const fingerprint = await fingerprintFile(file);
  const { readSheet } = await import('read-excel-file/node');
  let rows: unknown[][];
  try {
    rows = (await readSheet(file, 1)) as unknown[][];
  } catch {
    throw new InputError(
      `${file}: not a readable Excel workbook (.xlsx); the file is damaged or of another kind. Open and save it ` +
        'again in Excel, or export the sheet as CSV.',
      { file },
    );
  }
  const trim = opts.trim ?? true;
  let records = 0;
  for (const [i, row] of rows.entries()) {
    const fields = row.map((v) => (trim ? cellText(v).trim() : cellText(v)));
    if (fields.every((f) => f === '')) continue; // a blank row, as a blank CSV line
    records++;
    onRecord(fields, i + 1);
  }
  opts.onProgress?.({ bytes: totalBytes, totalBytes, rows: records });
  return { file, delimiter: ',', totalBytes, records, blankLines: rows.length - records, fingerprint };
}
