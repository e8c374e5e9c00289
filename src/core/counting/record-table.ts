/**
 * An Excel, SPSS, Stata or SAS file (formats DuckDB does not read) loaded into the same private
 * DuckDB table a CSV is parsed into (source-table.ts), so a release counts it as it counts a CSV:
 * the file is parsed ONCE, before the reservation, by its own reader (data/formats/), and the
 * reader's records are appended chunk by chunk (DuckDB's appender), never held as rows in
 * JavaScript. Every column is kept as the text the streaming path receives (labels applied,
 * trimmed as the reader trims), so a table counted here equals the streaming path's, by
 * construction (record-table.test.ts checks it per format).
 *
 * The table is a database file in the session's private folder (0700, removed by `dispose`, on
 * every way out: a failed load closes it before throwing). A record of another width than the
 * header fails the load: the streaming reader, which keeps such a row as missing values, counts.
 */
import { hasOwnHeader, tableFormat } from '../data/formats/format.ts';
import { formatChunks } from '../data/formats/read.ts';
import { betweenChunks } from '../data/records.ts';
import { readTableHeader, type TableOptions } from '../data/table.ts';
import { InputError } from '../errors.ts';
import { csvColumnName, quoteIdent } from '../sql/counting.ts';
import { type DuckDbOptions, openDuckDb, sourceMemoryLimit } from '../sql/duckdb.ts';
import { loadSourceTable, type SourceTable, sessionTable } from './source-table.ts';

/** The loaded table's name inside its private database. */
const TABLE = 'source';

export interface LoadOptions {
  readonly duckdb?: DuckDbOptions;
  readonly signal?: AbortSignal;
  /** A CSV holds no '"' (the fingerprint pass saw none): DuckDB's dialect scan is skipped. */
  readonly quotes?: boolean;
}

/**
 * A file's records appended to a private DuckDB table; columns named as `names` (the file's
 * header, the column choice applied, or column_1…column_N where a sheet's first row is a record:
 * `header` as the CSV rule reads it, data/table.ts), only those kept. Throws (leaving nothing
 * behind) where a record has another width than the first, or the reader fails.
 */
export async function loadRecordTable(
  file: string,
  names: readonly string[],
  opts: Pick<TableOptions, 'header'> & LoadOptions = {},
): Promise<SourceTable> {
  opts.signal?.throwIfAborted();
  const chunks = formatChunks(file);
  // A sheet's first row names the columns only where the CSV rule says so (a self-describing
  // format's first record always does); otherwise it is a record and the columns column_1….
  const shape = hasOwnHeader(file)
    ? undefined
    : await readTableHeader(file, opts.header === undefined ? {} : { header: opts.header });
  const given = shape && !shape.hasHeader ? shape.header : undefined;
  // In memory, spilled past the limit to the private folder, as a CSV's table (source-table.ts).
  // A compressed format's size (.xlsx, a compressed .sav) says nothing of its texts: the
  // machine's share (sourceMemoryLimit's cap), not the file's size, bounds the table.
  const memoryLimit = opts.duckdb?.memoryLimit ?? sourceMemoryLimit(Number.POSITIVE_INFINITY);
  const session = await openDuckDb({ ...opts.duckdb, memoryLimit, unordered: true });
  let header: readonly string[] | undefined;
  try {
    const c = session.connection;
    let appender: Awaited<ReturnType<typeof c.createAppender>> | undefined;
    let kept: number[] = [];
    try {
      for await (const chunk of chunks(file, opts.signal ? { signal: opts.signal } : {})) {
        for (const fields of chunk.records) {
          if (!header) {
            const columnNames = given ?? fields;
            header = columnNames;
            kept = names.map((name) => columnOf(file, columnNames, name));
            const columns = kept.map((i) => `${quoteIdent(csvColumnName(i))} VARCHAR`).join(', ');
            await c.run(`CREATE TABLE ${TABLE} (${columns || 'one INTEGER'})`);
            appender = await c.createAppender(TABLE);
            if (!given) continue;
          }
          if (fields.length !== header.length) throw new Error('a record of another width than the header');
          const a = appender as NonNullable<typeof appender>;
          if (kept.length === 0) a.appendInteger(1);
          for (const i of kept) a.appendVarchar(fields[i]);
          a.endRow();
        }
        await betweenChunks();
        opts.signal?.throwIfAborted();
      }
      appender?.flushSync();
      appender?.closeSync();
    } catch (err) {
      try {
        appender?.closeSync();
      } catch {
        // The load failed already; its own error is the one to report.
      }
      throw err;
    }
    if (!header) throw new InputError(`${file}: the file has no header row.`, { file });
  } catch (err) {
    await session.close();
    throw err;
  }
  const loaded = header;
  return sessionTable(session, { kind: 'table', table: TABLE }, (name) =>
    csvColumnName(columnOf(file, loaded, name)),
  );
}

function columnOf(file: string, header: readonly string[], name: string): number {
  const i = header.indexOf(name);
  if (i < 0) throw new InputError(`${file}: no column "${name}"`, { file, column: name });
  return i;
}

/**
 * The private table a row-level release counts, parsed once before the reservation: a CSV
 * loaded (or a Parquet file opened in place) by DuckDB itself, any other format appended from
 * its reader's records.
 */
export function loadCountingTable(
  file: string,
  names: readonly string[],
  opts: Pick<TableOptions, 'header' | 'delimiter'> & LoadOptions = {},
): Promise<SourceTable> {
  const format = tableFormat(file);
  if (format === 'csv' || format === 'parquet') return loadSourceTable(file, names, opts);
  return loadRecordTable(file, names, opts);
}
