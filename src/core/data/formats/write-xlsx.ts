/**
 * The released table as an Excel workbook (.xlsx), converted from the release's own CSV (the
 * bytes the CSV release would hold) by `write-excel-file` (pure JavaScript, no install script;
 * its one dependency, fflate, is read-excel-file's too). One sheet, the header row first.
 *
 * Types: a column the Table Schema calls integer or number is written as number cells — but only
 * when every value of it reads back (through the .xlsx reader, formats/xlsx.ts: JavaScript's
 * shortest text of the number) as exactly the CSV's text; a column with one value that would not
 * ("7.0", "1,234.50", digits beyond a double) is written as text cells, so the workbook holds the
 * CSV's values exactly. Everything else (categories, dates, times) is text as in the CSV
 * (formula-escaped categories keep their apostrophe: text cells are never formulas, and the Table
 * Schema states the written values). An empty field (missing) is an empty cell.
 *
 * A workbook is built whole in memory, and a sheet holds at most 1,048,576 rows (Excel's limit):
 * a larger table is refused (write it as CSV or Parquet).
 */
import { writeFileNew } from '../atomic-write.ts';
import { numericColumns, readReleasedCsv } from './released-csv.ts';
import type { WrittenColumn } from './write-parquet.ts';

/** Excel's rows per sheet, the header row included. */
export const XLSX_MAX_ROWS = 1_048_576;

/** `csv` (the release's CSV, header first) written as a new .xlsx file at `dest`, flushed. */
export async function writeXlsxFromCsv(
  csv: string,
  dest: string,
  columns: readonly WrittenColumn[],
): Promise<void> {
  const { header, rows } = await readReleasedCsv(csv);
  if (rows.length + 1 > XLSX_MAX_ROWS) {
    throw new RangeError(
      `${rows.length} rows do not fit one Excel sheet (at most ${XLSX_MAX_ROWS - 1} rows below the header); ` +
        'release to .csv or .parquet instead',
    );
  }
  const numeric = numericColumns(
    columns.map((c) => c.type),
    rows,
  );
  const sheet = [
    header.map((h) => ({ value: h, type: String })),
    ...rows.map((r) =>
      r.map((v, j) =>
        v === '' ? null : numeric[j] ? { value: Number(v), type: Number } : { value: v, type: String },
      ),
    ),
  ];
  const { default: writeXlsxFile } = await import('write-excel-file/node');
  const bytes = await writeXlsxFile(sheet).toBuffer();
  await writeFileNew(dest, bytes);
}
