/**
 * A Parquet file as records, for the same table / load / discovery code as a CSV: the column
 * names first (line 1), then each row's values as text (line = row + 1), read by an embedded
 * DuckDB in chunks (out of core) with the counting module's text of each column, so the
 * records and the SQL-counted tables (src/core/sql) see the same texts. A corrupt file is
 * refused with a message naming it (DuckDB's own message is not shown: it may quote a value).
 */
import { InputError } from '../../errors.ts';
import { relationSql, textOf } from '../../sql/counting.ts';
import { floatingColumns, openDuckDb, withDuckDb } from '../../sql/duckdb.ts';
import type { RecordChunk } from '../records.ts';

/** The column names, then the rows in DuckDB's chunks, from a private DuckDB closed however the reading ends. */
export async function* parquetChunks(file: string): AsyncGenerator<RecordChunk> {
  const session = await openDuckDb();
  try {
    const c = session.connection;
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
    yield { records: [[...names]] };
    let records = 1;
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
      const chunk = next.value.map((row) => row.map((v) => (v === null ? '' : String(v))));
      records += chunk.length;
      yield { records: chunk };
    }
  } finally {
    await session.close();
  }
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
