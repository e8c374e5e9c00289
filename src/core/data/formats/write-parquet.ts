/**
 * The released table as Parquet, converted from the release's own CSV (the bytes the CSV release
 * would hold) by an embedded DuckDB: `COPY … TO … (FORMAT parquet)`. The values are public (the
 * synthetic table), but the session is the same private one as for reading (sql/duckdb.ts: a
 * fresh 0700 spill folder, removed on every way out, logging and extensions off).
 *
 * Types: a column the Table Schema calls integer is written BIGINT, number DOUBLE — but only
 * when every value of it reads back (through the Parquet reader, formats/parquet.ts) as exactly
 * the CSV's text; a column with one value that would not (a formatted number such as "1,234.50",
 * digits beyond a DOUBLE) stays text, so the file holds the CSV's values exactly. Everything
 * else (categories, dates, times) is text as in the CSV. An empty field (missing) is NULL.
 */
import { open } from 'node:fs/promises';
import { fileLiteral, quoteIdent, quoteString, textOf } from '../../sql/counting.ts';
import { withDuckDb } from '../../sql/duckdb.ts';

/** A written column: its name (the CSV's header) and its Table Schema type. */
export interface WrittenColumn {
  readonly name: string;
  readonly type: string;
  /**
   * An SPSS/Stata input's codes for this (declared categorical) column: each category's code,
   * label and text in the CSV. Only the .sav and .dta writers use them.
   */
  readonly codes?: readonly { readonly value: number; readonly label: string; readonly text: string }[];
  /** The texts that mean missing in this column of the CSV (the Table Schema's missingValues). */
  readonly missing?: readonly string[];
}

/** `csv` (the release's CSV, header first) written as a new Parquet file at `dest`, flushed. */
export async function writeParquetFromCsv(
  csv: string,
  dest: string,
  columns: readonly WrittenColumn[],
): Promise<void> {
  await withDuckDb(async (c) => {
    const raw = columns.map((_, j) => `c${j}`);
    // Every field as text, exactly as our CSV writer (papaparse, RFC 4180) wrote it; an empty
    // unquoted field is NULL (missing).
    const read =
      `read_csv(${fileLiteral(csv)}, header = true, delim = ',', quote = '"', escape = '"', ` +
      `columns = {${raw.map((r) => `${quoteString(r)}: 'VARCHAR'`).join(', ')}}, auto_detect = false, ` +
      `parallel = false)`;
    await c.run(`CREATE TEMP TABLE released AS SELECT * FROM ${read}`);
    const typed = columns.map((col) =>
      col.type === 'integer' ? 'BIGINT' : col.type === 'number' ? 'DOUBLE' : 'VARCHAR',
    );
    // Which typed columns read back as their text (the reader's textOf); the others stay text.
    const checks = columns.map((_, j) => {
      if (typed[j] === 'VARCHAR') return 'TRUE';
      const cast = `TRY_CAST(${raw[j]} AS ${typed[j]})`;
      const back = textOf('v', 'duckdb', typed[j] === 'DOUBLE').replaceAll(quoteIdent('v'), `(${cast})`);
      return `COALESCE(BOOL_AND(${raw[j]} IS NULL OR ${back} = ${raw[j]}), TRUE)`;
    });
    const ok = (await c.runAndReadAll(`SELECT ${checks.join(', ')} FROM released`)).getRows()[0];
    const select = columns.map((col, j) => {
      const type = ok[j] === true ? typed[j] : 'VARCHAR';
      return `CAST(${raw[j]} AS ${type}) AS ${quoteIdent(col.name)}`;
    });
    await c.run(
      `COPY (SELECT ${select.join(', ')} FROM released) TO ${quoteString(dest)} (FORMAT parquet, COMPRESSION zstd)`,
    );
  });
  // DuckDB closed the file; flush it before it is linked into place.
  const handle = await open(dest, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
