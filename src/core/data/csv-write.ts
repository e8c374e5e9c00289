/**
 * Writing a table as an RFC 4180 CSV (papaparse's unparse: CRLF line breaks, quotes only where
 * a value needs them), atomically (atomic-write.ts).
 */
import Papa from 'papaparse';
import { writeFileAtomic, writeFileNew } from './atomic-write.ts';

/**
 * Cells unparsed per write: bounds memory for large synthetic tables, wide ones included. A batch
 * of 10,000 rows was 1.6 GB of strings at 2,000 columns (peak RSS writing 15,000 × 2,000 cells,
 * the audit's wide-table probe); by cells, a batch holds at most 200,000 strings (tens of MB).
 */
const BATCH_CELLS = 200_000;
/** …and at most this many rows (narrow tables: ADULT's 15 columns write 10,000 rows at a time). */
const BATCH_ROWS = 10_000;

function* csvChunks(header: readonly string[], rows: Iterable<readonly string[]>): Generator<string> {
  const config = { newline: '\r\n', header: false };
  yield `${Papa.unparse([header as string[]], config)}\r\n`;
  const perBatch = Math.max(1, Math.min(BATCH_ROWS, Math.floor(BATCH_CELLS / Math.max(1, header.length))));
  let batch: string[][] = [];
  for (const row of rows) {
    batch.push(row as string[]);
    if (batch.length === perBatch) {
      yield `${Papa.unparse(batch, config)}\r\n`;
      batch = [];
    }
  }
  if (batch.length > 0) yield `${Papa.unparse(batch, config)}\r\n`;
}

/**
 * Writes header and rows to `path`; the file appears complete or not at all. With `fresh`, the
 * caller owns `path` as a temp file: it is created exclusively and written in place.
 */
export async function writeCsv(
  path: string,
  header: readonly string[],
  rows: Iterable<readonly string[]>,
  opts: { readonly mode?: number; readonly fresh?: boolean } = {},
): Promise<void> {
  const { fresh, ...rest } = opts;
  await (fresh ? writeFileNew : writeFileAtomic)(path, csvChunks(header, rows), rest);
}
