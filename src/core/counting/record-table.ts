/**
 * An Excel, SPSS, Stata or SAS file (formats DuckDB does not read) loaded into the same private
 * DuckDB table a CSV is parsed into (source-table.ts), so a release counts it as it counts a CSV:
 * the file is parsed ONCE, before the reservation, by its own reader (data/formats/), and the
 * reader's records are appended chunk by chunk (DuckDB's appender), never held as rows in
 * JavaScript. Every column is kept as the text the streaming path receives (labels applied,
 * trimmed as the reader trims), so a table counted here equals the streaming path's, by
 * construction (test/unit/release/counted-formats.test.ts checks it per format). The person level appends the same
 * records the same way, in file order (`appendRecords`; person-table.ts).
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
import { type DuckDbOptions, type DuckDbSession, openDuckDb, sourceMemoryLimit } from '../sql/duckdb.ts';
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
 * header, the column choice applied), only those kept. Throws (leaving nothing behind) where a
 * record has another width than the header, or the reader fails.
 */
export async function loadRecordTable(
  file: string,
  names: readonly string[],
  opts: Pick<TableOptions, 'header'> & LoadOptions = {},
): Promise<SourceTable> {
  opts.signal?.throwIfAborted();
  const given = await headerlessNames(file, opts.header);
  // In memory, spilled past the limit to the private folder, as a CSV's table (source-table.ts).
  // A compressed format's size (.xlsx, a compressed .sav) says nothing of its texts: the
  // machine's share (sourceMemoryLimit's cap), not the file's size, bounds the table.
  const memoryLimit = opts.duckdb?.memoryLimit ?? sourceMemoryLimit(Number.POSITIVE_INFINITY);
  const session = await openDuckDb({ ...opts.duckdb, memoryLimit, unordered: true });
  let source: (name: string) => string;
  try {
    source = await appendRecords(session.connection, file, names, TABLE, opts.signal, given);
  } catch (err) {
    await session.close();
    throw err;
  }
  return sessionTable(session, { kind: 'table', table: TABLE }, source);
}

/**
 * The columns' names where a file's first record is a record, not its names (an .xlsx sheet with
 * `--header no`, or guessed so: the CSV header rule, data/table.ts readTableHeader): column_1…;
 * undefined where the first record names the columns (always, for a format that names its
 * columns itself: format.ts hasOwnHeader).
 */
export async function headerlessNames(
  file: string,
  header?: TableOptions['header'],
): Promise<readonly string[] | undefined> {
  if (hasOwnHeader(file)) return undefined;
  const shape = await readTableHeader(file, header === undefined ? {} : { header });
  return shape.hasHeader ? undefined : shape.header;
}

/**
 * Appends a file's records (its own reader's, data/formats/) to a new table `table` of texts on
 * `c`, in file order (a session that keeps insertion order keeps it as rowid: the person level,
 * person-table.ts, numbers persons by it). Columns: `names` only; returns each name's column in
 * the table. Throws where a record has another width than the header, or the reader fails; the
 * caller closes the session then.
 */
export async function appendRecords(
  c: DuckDbSession['connection'],
  file: string,
  names: readonly string[],
  table: string,
  signal?: AbortSignal,
  /** The names where the first record is a record (headerlessNames); absent: it names the columns. */
  given?: readonly string[],
): Promise<(name: string) => string> {
  const chunks = formatChunks(file);
  let header: readonly string[] | undefined;
  let appender: Awaited<ReturnType<typeof c.createAppender>> | undefined;
  let kept: number[] = [];
  try {
    for await (const chunk of chunks(file, signal ? { signal } : {})) {
      for (const fields of chunk.records) {
        if (!header) {
          const columnNames = given ?? fields;
          header = columnNames;
          kept = names.map((name) => columnOf(file, columnNames, name));
          const columns = kept.map((i) => `${quoteIdent(csvColumnName(i))} VARCHAR`).join(', ');
          await c.run(`CREATE TABLE ${quoteIdent(table)} (${columns || 'one INTEGER'})`);
          appender = await c.createAppender(table);
          if (!given) continue;
        }
        if (fields.length !== header.length) throw new Error('a record of another width than the header');
        const a = appender as NonNullable<typeof appender>;
        if (kept.length === 0) a.appendInteger(1);
        for (const i of kept) a.appendVarchar(fields[i]);
        a.endRow();
      }
      await betweenChunks();
      signal?.throwIfAborted();
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
  const loaded = header;
  return (name) => csvColumnName(columnOf(file, loaded, name));
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
