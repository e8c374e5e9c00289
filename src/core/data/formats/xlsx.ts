/**
 * An Excel workbook (.xlsx) as records: its first sheet, first row the column names, then each
 * row's cells as text (numbers as JavaScript prints them, 7 not 7.0; dates as ISO dates; empty
 * cells as the empty field), through `read-excel-file` (maintained, pure JavaScript, no install
 * script). The library reads a workbook whole (it unzips the file and parses the sheet into one
 * array of rows: Excel caps a sheet at 1,048,576 rows); the rows are handed on in chunks, each
 * dropped from that array once converted. For more, use CSV or Parquet. A corrupt file is
 * refused with a message naming it.
 */
import { InputError } from '../../errors.ts';
import type { CsvReadOptions, RecordChunk } from '../records.ts';
import { CHUNK_RECORDS } from '../records.ts';

/** The text of a cell as a CSV export of the sheet would hold it. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return String(v);
}

/** The sheet's non-blank rows (a blank row is skipped, as a blank CSV line), `line` its sheet row. */
export async function* xlsxChunks(file: string, opts: CsvReadOptions): AsyncGenerator<RecordChunk> {
  const { readSheet } = await import('read-excel-file/node');
  let rows: (unknown[] | undefined)[];
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
  for (let start = 0; start < rows.length; start += CHUNK_RECORDS) {
    const records: string[][] = [];
    const lines: number[] = [];
    let blank = 0;
    for (let i = start; i < Math.min(rows.length, start + CHUNK_RECORDS); i++) {
      const fields = (rows[i] ?? []).map((v) => (trim ? cellText(v).trim() : cellText(v)));
      rows[i] = undefined; // converted: the library's copy of the row can go
      if (fields.every((f) => f === '')) {
        blank++;
        continue;
      }
      records.push(fields);
      lines.push(i + 1);
    }
    yield { records, lines, blank };
  }
}
