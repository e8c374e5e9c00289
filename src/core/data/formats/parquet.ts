/**
 * A Parquet file as records, for the same table / load / discovery code as a CSV: the column
 * names first (line 1), then each row's values as text (line = row + 1), read by an embedded
 * DuckDB in chunks (out of core) with the counting module's text of each column, so the
 * records and the SQL-counted tables (src/core/sql) see the same texts. A corrupt file is
 * refused with a message naming it (DuckDB's own message is not shown: it may quote a value).
 */
import { InputError } from '../../errors.ts';
import { relationSql, textOf } from '../../sql/counting.ts';
import { floatingColumns, withDuckDb } from '../../sql/duckdb.ts';
import { fingerprintFile } from '../fingerprint.ts';
import type { CsvReadOptions, CsvReadResult, RecordHandler } from '../records.ts';
import { fileSize } from '../records.ts';

export async function readParquetRecords(
  file: string,
  onRecord: RecordHandler,
  opts: CsvReadOptions = {},
): Promise<CsvReadResult> {
  opts.signal?.throwIfAborted();
  const totalBytes = await fileSize(file);
  const fingerprint = await fingerprintFile(file);
  let records = 0;
  await withDuckDb(async (c) => {
    const rel = { kind: 'parquet' as const, path: file };
    let names: string[];
    let floating: string[];
    try {
      floating = await floatingColumns(c, file);
      const described = await c.runAndReadAll(`DESCRIBE SELECT * FROM ${relationSql(rel, 'duckdb')}`);
      names = described.getRows().map((r) => String(r[0]));
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(
        `${file}: not a readable Parquet file (its footer or schema is damaged). Export it again, or release a CSV.`,
        { file },
      );
    }
    onRecord([...names], 1);
    records++;
    const select = names.map((n) => textOf(n, 'duckdb', floating.includes(n))).join(', ');
    const damaged = (): InputError =>
      new InputError(`${file}, row ${records}: the Parquet file is damaged and cannot be read to its end.`, {
        file,
        line: records,
      });
    // DuckDB's failures are the file's; the handler's (a misfit, a header read) go out as they are.
    const rows = await c.stream(`SELECT ${select} FROM ${relationSql(rel, 'duckdb')}`).then(
      (result) => result.yieldRows()[Symbol.asyncIterator](),
      () => {
        throw damaged();
      },
    );
    for (;;) {
      const next = await rows.next().catch(() => {
        throw damaged();
      });
      if (next.done) break;
      opts.signal?.throwIfAborted();
      for (const row of next.value) {
        records++;
        onRecord(
          row.map((v) => (v === null ? '' : String(v))),
          records,
        );
      }
      opts.onProgress?.({ bytes: 0, totalBytes, rows: records - 1 });
    }
  });
  opts.onProgress?.({ bytes: totalBytes, totalBytes, rows: records - 1 });
  return { file, delimiter: ',', totalBytes, records, blankLines: 0, fingerprint };
}

/** A Parquet file's row count, from its footer (no row is read); a damaged file is refused. */
export async function parquetRowCount(file: string): Promise<number> {
  return withDuckDb(async (c) => {
    try {
      const r = await c.runAndReadAll(
        `SELECT COUNT(*) FROM ${relationSql({ kind: 'parquet', path: file }, 'duckdb')}`,
      );
      return Number(r.getRows()[0][0]);
    } catch {
      throw new InputError(
        `${file}: not a readable Parquet file (its footer or schema is damaged). Export it again, or release a CSV.`,
        { file },
      );
    }
  });
}
