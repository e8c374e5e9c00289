/**
 * Exact contingency tables of the private data over schema codes, counted by a SQL engine with
 * the one counting query (counting.ts): the engine groups raw text; each distinct text goes
 * through the streaming path's own encoder (data/encode.ts), and its count is added to its
 * code's cell. A table here equals `contingencyTable` over the dataset `loadCsv` encodes
 * (src/core/workload/exact.ts), row-major over the listed features, by construction
 * (src/core/counting/tables.test.ts checks it on messy files).
 *
 * Exact statistics of the private data: never logged, never released (noise is drawn from them
 * in src/core/privacy).
 */
import { open } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { detectDelimiter } from '../data/csv.ts';
import { columnEncoder, type OutOfDomainRule } from '../data/encode.ts';
import { domainSize, type Schema } from '../data/schema.ts';
import { readTableHeader, type TableOptions } from '../data/table.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import { InputError } from '../errors.ts';
import {
  type CountingQuery,
  csvColumnName,
  type Dialect,
  groupingSetsQuery,
  isFloating,
  quoteIdent,
  type Relation,
  relationSql,
  spacedQuoteLinesSql,
  textOf,
} from '../sql/counting.ts';
import { type DuckDbOptions, floatingColumns, resultChunks, withDuckDb } from '../sql/duckdb.ts';
import { interruptibly } from '../sql/interruptible.ts';

export interface CountOptions {
  readonly missingMarkers?: readonly string[];
  /** Default 'reject': a value no code takes fails the count (a release's load keeps every record). */
  readonly outOfDomain?: OutOfDomainRule;
  /** Strip whitespace around every value, as the streaming reader does (default true). */
  readonly trim?: boolean;
  /** Schema columns whose grouped texts are already their codes (countCodedOnDuckDb). */
  readonly precoded?: ReadonlySet<number>;
  /**
   * Distinct raw texts of columns (by schema name) the caller already counted (discovery's
   * streamed histograms: discovery/histograms.ts): countCodedOnDuckDb takes them instead of
   * DuckDB's estimate (a scan of the table: 6 CPU s on adult.data × 300 with no repeated record).
   */
  readonly texts?: ReadonlyMap<string, number>;
}

export interface CountedTables {
  /** Records counted (the empty grouping set). */
  readonly n: number;
  /** One table per requested feature list (schema column indices), in request order. */
  readonly tables: readonly Float64Array[];
}

/** Rows of a counting query's result, as texts, flags and counts. */
export interface GroupedRows {
  /** rows[r] = [v0…vm−1 (string|null), g0…gm−1 (number), n (number)] */
  readonly rows: Iterable<readonly unknown[]>;
}

/** The relation column that feeds each schema column. */
export type ColumnSource = (schemaColumn: number) => string;

/**
 * Distinct texts a column's encoder remembers: enough for every categorical column and a binned
 * number's usual range; past it (a column with millions of distinct texts) each text is encoded
 * as it comes, instead of a memo as large as the column.
 */
const ENCODER_MEMO_LIMIT = 1 << 18;

/**
 * The tables, from the grouped rows of `query` (built over relation columns `source(f)`). Throws
 * when a grouped value has no code (it would have rejected the record in the streaming path).
 */
export function tablesFromGroups(
  schema: Schema,
  features: readonly (readonly number[])[],
  source: ColumnSource,
  query: CountingQuery,
  grouped: GroupedRows,
  opts: CountOptions = {},
): CountedTables {
  const tables = tableAccumulator(schema, features, source, query, opts);
  tables.add(grouped.rows);
  return tables.result();
}

/** tablesFromGroups over a result read a chunk at a time (sql/duckdb.ts resultChunks). */
export async function tablesFromChunks(
  schema: Schema,
  features: readonly (readonly number[])[],
  source: ColumnSource,
  query: CountingQuery,
  chunks: AsyncIterable<Iterable<readonly unknown[]>>,
  opts: CountOptions = {},
): Promise<CountedTables> {
  const tables = tableAccumulator(schema, features, source, query, opts);
  for await (const rows of chunks) tables.add(rows);
  return tables.result();
}

function tableAccumulator(
  schema: Schema,
  features: readonly (readonly number[])[],
  source: ColumnSource,
  query: CountingQuery,
  opts: CountOptions,
) {
  const m = query.columns.length;
  // One encoder per schema column, shared by every table it is in.
  const encoders = new Map<number, (text: string) => number>();
  const encoderOf = (f: number): ((text: string) => number) => {
    const known = encoders.get(f);
    if (known) return known;
    const encoder = opts.precoded?.has(f) ? precodedEncoder(schema, f) : textEncoder(schema, f, opts);
    encoders.set(f, encoder);
    return encoder;
  };
  // For each requested table: its query set key, and per feature the query position.
  const plans = features.map((fs) => {
    const positions = fs.map((f) => query.columns.indexOf(source(f)));
    const key = [...new Set(positions)].sort((a, b) => a - b).join(',');
    const dims = fs.map((f) => domainSize(schema.columns[f]));
    const size = dims.reduce((a, b) => a * b, 1);
    return { positions, key, dims, encoders: fs.map(encoderOf), table: new Float64Array(size) };
  });
  const byKey = new Map<string, (typeof plans)[number][]>();
  for (const p of plans) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p]);
  let n = -1;
  return {
    add(rows: Iterable<readonly unknown[]>): void {
      for (const row of rows) {
        const flags = row.slice(m, 2 * m).map(Number);
        const count = Number(row[2 * m]);
        const key = flags.flatMap((g, i) => (g === 0 ? [i] : [])).join(',');
        if (key === '') n = count;
        for (const p of byKey.get(key) ?? []) {
          let cell = 0;
          p.positions.forEach((pos, j) => {
            cell = cell * p.dims[j] + p.encoders[j](String(row[pos] ?? ''));
          });
          p.table[cell] += count;
        }
      }
    },
    // An empty relation has no row for the empty set under some engines; n is then 0.
    result: (): CountedTables => ({ n: Math.max(n, 0), tables: plans.map((p) => p.table) }),
  };
}

/** A column coded in DuckDB (countCodedOnDuckDb): its texts are codes; none missing (a text left uncoded). */
function precodedEncoder(schema: Schema, f: number): (text: string) => number {
  const size = domainSize(schema.columns[f]);
  return (text: string): number => {
    const code = text === '' ? Number.NaN : Number(text);
    if (!(Number.isInteger(code) && code >= 0 && code < size)) {
      throw new Error(`internal: column "${schema.columns[f].name}" has a record with no code (${code})`);
    }
    return code;
  };
}

/**
 * A column's text → code, as the streaming path encodes it (trimmed, missing markers, the schema's
 * domain); throws where a text has no code (the streaming path would have rejected its record).
 * Memoised up to ENCODER_MEMO_LIMIT distinct texts.
 */
function textEncoder(schema: Schema, f: number, opts: CountOptions): (text: string) => number {
  const trim = opts.trim ?? true;
  const encode = columnEncoder(schema.columns[f], {
    missingMarkers: opts.missingMarkers ?? DEFAULT_MISSING_MARKERS,
    outOfDomain: opts.outOfDomain ?? ('reject' as const),
  });
  const memo = new Map<string, number>();
  return (text: string): number => {
    let code = memo.get(text);
    if (code === undefined) {
      const c = encode(trim ? text.trim() : text);
      if (typeof c === 'string') {
        throw new InputError(`a record does not fit the schema: ${c}`, { column: schema.columns[f].name });
      }
      code = c;
      if (memo.size < ENCODER_MEMO_LIMIT) memo.set(text, code);
    }
    return code;
  };
}

/**
 * Distinct texts (DuckDB's estimate) above which a column is coded in DuckDB before grouping.
 * Grouping raw texts sends every distinct text of a table's columns back to be encoded here: a
 * column with millions of them (adult.data × 300 with no repeated record: fnlwgt, 8.5M) sent
 * millions of groups for each table holding it (250 s for the release). Coded first, a table comes
 * back as its cells.
 */
export const WIDE_COLUMN_TEXTS = 4096;

/** The coded table's count column (countCodedOnDuckDb); no source column is named so (c0…, or a file's). */
const CODED_WEIGHT = 'rap_records';

/**
 * countOnDuckDb on a loaded table or a Parquet file counted in place, with each wide column
 * (WIDE_COLUMN_TEXTS) replaced by its code first: its distinct texts are encoded once here
 * (textEncoder, the streaming path's rule) and joined back in DuckDB, so the same tables come back
 * (a text with no code throws, as there). A Parquet file's typed columns are read as their texts
 * first (sql/counting.ts textOf, as the uncoded count reads them). The private tables it makes
 * live in the session's private database and are dropped after.
 */
export async function countCodedOnDuckDb(
  connection: DuckDBConnection,
  rel: Extract<Relation, { kind: 'table' | 'parquet' }>,
  schema: Schema,
  features: readonly (readonly number[])[],
  source: ColumnSource,
  opts: CountOptions & {
    /**
     * A query of a relation column's distinct texts as one column `t`, NULL as '' (the session's
     * stored histograms: histogram-table.ts), instead of grouping the column again here.
     */
    readonly distinctTexts?: (column: string) => Promise<string>;
  } = {},
): Promise<CountedTables> {
  const used = [...new Set(features.flat())].sort((a, b) => a - b);
  const from = relationSql(rel, 'duckdb');
  const known = used.map((f) => opts.texts?.get(schema.columns[f].name));
  const estimates = known.every((t) => t !== undefined)
    ? known
    : used.length
      ? ((
          await connection.runAndReadAll(
            `SELECT ${used.map((f) => `approx_count_distinct(${quoteIdent(source(f))})`).join(', ')} FROM ${from}`,
          )
        ).getRows()[0] ?? [])
      : [];
  const wide = used.filter((_, i) => Number(estimates[i]) > WIDE_COLUMN_TEXTS);
  // Two schema columns read off one relation column (each its own encoder) are grouped as texts.
  const shared = new Set(used.map(source)).size < used.length || used.some((f) => source(f) === CODED_WEIGHT);
  if (wide.length === 0 || shared) return countOnDuckDb(connection, rel, schema, features, source, opts);
  const codes = (f: number) => quoteIdent(`rap_codes_${f}`);
  const coded = quoteIdent('rap_coded');
  // A Parquet file's columns as the texts its uncoded count groups (a loaded table holds texts).
  const texts =
    rel.kind === 'parquet'
      ? `(SELECT ${[...new Set(used.map(source))]
          .map((c) => `${textOf(c, 'duckdb', isFloating(rel, c))} AS ${quoteIdent(c)}`)
          .join(', ')} FROM ${from})`
      : from;
  const relWeight = rel.kind === 'table' ? rel.weight : undefined;
  try {
    for (const f of wide) {
      const distinct = await opts.distinctTexts?.(source(f));
      await codeColumn(
        connection,
        distinct ?? `SELECT DISTINCT ${quoteIdent(source(f))} AS t FROM ${texts} AS d`,
        f,
        textEncoder(schema, f, opts),
      );
    }
    const isWide = new Set(wide);
    const select = used.map((f) => {
      const col = quoteIdent(source(f));
      return isWide.has(f) ? `${codes(f)}.code AS ${col}` : `s.${col}`;
    });
    // Stored histograms' texts have NULL as '' (each encodes as '' does): joined on the coalesced text.
    const text = (f: number) =>
      opts.distinctTexts
        ? `COALESCE(s.${quoteIdent(source(f))}, '') = ${codes(f)}.t`
        : `s.${quoteIdent(source(f))} IS NOT DISTINCT FROM ${codes(f)}.t`;
    const joins = wide.map((f) => `LEFT JOIN ${codes(f)} ON ${text(f)}`).join(' ');
    // Distinct coded records with their counts: the wide column's millions of texts fall into its
    // few codes, so the grouping sets then run on far fewer rows (adult.data × 300 with no repeated
    // record: 9.77M records, about 10 CPU s for this GROUP BY against 24 for the sets on them all).
    const weight = relWeight === undefined ? 'COUNT(*)' : `SUM(s.${quoteIdent(relWeight)})`;
    await connection.run(
      `CREATE OR REPLACE TABLE ${coded} AS SELECT ${select.join(', ')}, CAST(${weight} AS BIGINT) AS ${quoteIdent(CODED_WEIGHT)} ` +
        `FROM ${texts} AS s ${joins} GROUP BY ALL`,
    );
    return await countOnDuckDb(
      connection,
      { kind: 'table', table: 'rap_coded', weight: CODED_WEIGHT },
      schema,
      features,
      source,
      { ...opts, precoded: isWide },
    );
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${coded}`);
    for (const f of wide) {
      await connection.run(`DROP TABLE IF EXISTS ${codes(f)}`);
      for (const t of [distinctTexts(f), textCodes(f)]) await connection.run(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}

/** A wide column's distinct texts, numbered by their rowid (codeColumn). */
const distinctTexts = (f: number) => quoteIdent(`rap_texts_${f}`);
/** The code of each of them, by that number (codeColumn). */
const textCodes = (f: number) => quoteIdent(`rap_text_codes_${f}`);

/**
 * Makes `rap_codes_<f>` (t, code): each distinct text of a column (the query `distinct`, whose one
 * column `t` holds them) with its code under `encode`. The texts are numbered in DuckDB and their codes kept in JS by that number
 * (4 bytes a text), then appended once the read has ENDED: an appender's flush on the connection
 * ends a streamed result still being read, silently (DuckDB 1.5: the read stopped at the first
 * flush, 204,800 texts), which left a column with more distinct texts partly uncoded (code 0), and
 * which of them depended on the order DuckDB's parallel DISTINCT returned them: adult.data × 300
 * with no repeated record released a different CSV under the same seed. Every text's code is
 * checked to have been read.
 */
async function codeColumn(
  connection: DuckDBConnection,
  distinct: string,
  f: number,
  encode: (text: string) => number,
): Promise<void> {
  await connection.run(`CREATE OR REPLACE TABLE ${distinctTexts(f)} AS ${distinct}`);
  const count = Number(
    (await connection.runAndReadAll(`SELECT count(*) FROM ${distinctTexts(f)}`)).getRows()[0]?.[0] ?? 0,
  );
  const codes = new Int32Array(count).fill(-1);
  // Read a column at a time (no array per row: a wide column has millions of texts).
  const result = await connection.stream(`SELECT CAST(rowid AS INTEGER) AS id, t FROM ${distinctTexts(f)}`);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const ids = chunk.getColumnValues(0);
    const texts = chunk.getColumnValues(1);
    for (let r = 0; r < ids.length; r++) codes[ids[r] as number] = encode(String(texts[r] ?? ''));
  }
  if (codes.includes(-1))
    throw new Error(`internal: a distinct text of column ${f} was not read to be coded`);
  await connection.run(`CREATE OR REPLACE TABLE ${textCodes(f)} (id INTEGER, code INTEGER)`);
  const appender = await connection.createAppender(`rap_text_codes_${f}`);
  try {
    for (let id = 0; id < count; id++) {
      appender.appendInteger(id);
      appender.appendInteger(codes[id]);
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  await connection.run(
    `CREATE OR REPLACE TABLE ${quoteIdent(`rap_codes_${f}`)} AS SELECT x.t AS t, c.code AS code ` +
      `FROM ${distinctTexts(f)} AS x JOIN ${textCodes(f)} AS c ON x.rowid = c.id`,
  );
}

/** Runs the counting query for `features` (plus the row count) on a DuckDB connection. */
export async function countOnDuckDb(
  connection: DuckDBConnection,
  rel: Relation,
  schema: Schema,
  features: readonly (readonly number[])[],
  source: ColumnSource,
  opts: CountOptions = {},
): Promise<CountedTables> {
  const query = groupingSetsQuery(
    rel,
    [...features.map((fs) => fs.map(source)), []],
    'duckdb' satisfies Dialect,
  );
  return tablesFromChunks(schema, features, source, query, resultChunks(connection, query.sql), opts);
}

/** The public facts DuckDB needs to read a CSV as the streaming reader does. */
export async function csvRelation(
  file: string,
  opts: Pick<TableOptions, 'header' | 'delimiter'> & { readonly expectedNames?: readonly string[] } = {},
): Promise<{ readonly relation: Relation; readonly header: readonly string[] }> {
  const shape = await readTableHeader(file, opts);
  const delimiter = opts.delimiter ?? detectDelimiter(await firstText(file));
  return {
    relation: { kind: 'csv', path: file, delimiter, header: shape.hasHeader, width: shape.header.length },
    header: shape.header,
  };
}

async function firstText(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return new TextDecoder().decode(buf.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** A CSV or Parquet file (by extension) as a relation, and the relation column of each named column. */
export async function fileRelation(
  file: string,
  names: readonly string[],
  opts: Pick<TableOptions, 'header' | 'delimiter'> = {},
): Promise<{ readonly relation: Relation; readonly source: (name: string) => string }> {
  if (/\.parquet$/i.test(file)) return { relation: { kind: 'parquet', path: file }, source: (name) => name };
  const csv = await csvRelation(file, { ...opts, expectedNames: names });
  const index = new Map(csv.header.map((h, i) => [h, i]));
  return {
    relation: csv.relation,
    source: (name) => {
      const i = index.get(name) ?? (csv.header.length === names.length ? names.indexOf(name) : undefined);
      if (i === undefined || i < 0)
        throw new InputError(`${file}: no column "${name}"`, { file, column: name });
      return csvColumnName(i);
    },
  };
}

/**
 * Runs `job` on a private DuckDB with the relation ready to count: a CSV's dialect checked
 * (NotForDuckDb), a Parquet file's floating columns read from its footer.
 */
export async function onFileRelation<T>(
  relation: Relation,
  job: (connection: DuckDBConnection, counted: Relation) => Promise<T>,
  opts: { readonly duckdb?: DuckDbOptions; readonly signal?: AbortSignal } = {},
): Promise<T> {
  opts.signal?.throwIfAborted();
  // A cancel interrupts the running query; the spill folder goes with withDuckDb's finally.
  return withDuckDb(
    (c) =>
      interruptibly(
        opts.signal,
        () => c.interrupt(),
        async () => {
          if (relation.kind === 'csv') await assertSameDialect(c, relation);
          const counted =
            relation.kind === 'parquet'
              ? { ...relation, floating: await floatingColumns(c, relation.path) }
              : relation;
          return job(c, counted);
        },
      ),
    opts.duckdb,
  );
}

/**
 * Exact tables of a CSV or Parquet file (by extension) over `schema`'s codes, counted by an
 * embedded DuckDB in one scan. Schema columns are matched to the file's columns by name.
 */
export async function countFileTables(
  file: string,
  schema: Schema,
  features: readonly (readonly number[])[],
  opts: CountOptions &
    Pick<TableOptions, 'header' | 'delimiter'> & {
      readonly duckdb?: DuckDbOptions;
      readonly signal?: AbortSignal;
    } = {},
): Promise<CountedTables> {
  const names = schema.columns.map((c) => c.name);
  const { relation, source } = await fileRelation(file, names, opts);
  return onFileRelation(
    relation,
    (c, counted) => countOnDuckDb(c, counted, schema, features, (f) => source(names[f]), opts),
    opts,
  );
}

/** Thrown where DuckDB would read a CSV otherwise than the streaming reader: count there instead. */
export class NotForDuckDb extends Error {}

export async function assertSameDialect(
  connection: DuckDBConnection,
  rel: Extract<Relation, { kind: 'csv' }>,
) {
  const found = await connection.runAndReadAll(spacedQuoteLinesSql(rel));
  if (Number(found.getRows()[0]?.[0] ?? 0) > 0) {
    throw new NotForDuckDb(
      `${rel.path}: a quote after spaces following a delimiter; the streaming reader counts it`,
    );
  }
}
