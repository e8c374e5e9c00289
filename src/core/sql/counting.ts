/**
 * THE counting SQL: every exact contingency table RAP needs from the private data (discovery's
 * one-way histograms and counts, the workload's exact k-way tables and one-way marginals) as one
 * `GROUP BY GROUPING SETS` query over a relation: one scan per stage, in whichever engine holds
 * the rows (DuckDB embedded, PostgreSQL pushed down, Spark SQL on a cluster; docs/scale-out.md).
 *
 * The SQL groups the RAW text of each column (NULL as ''), nothing else: trimming, missing
 * markers, number syntax, bins and out-of-domain rules stay in ONE place, the JS encoder
 * (src/core/data/encode.ts), applied to each distinct grouped value by `tables.ts`. So a table
 * counted in SQL is the table the streaming path counts, by construction, and no engine's
 * number formatting or trimming rules leak in. The number of result rows is the number of
 * distinct value combinations (bounded by n), not n.
 *
 * No noise here: every noisy answer is drawn from these exact counts in src/core/privacy.
 * The SQL text holds column names and the relation only (public); never a private value.
 */

export type Dialect = 'duckdb' | 'postgres' | 'spark';

/** Where the rows are; the relation expression is built here so every caller quotes alike. */
export type Relation =
  | {
      readonly kind: 'csv';
      readonly path: string;
      readonly delimiter: string;
      readonly header: boolean;
      /** Physical columns, in file order (all read as text). */
      readonly width: number;
      /**
       * DuckDB's strict mode: a row of another width (longer too), an unescaped quote or mixed
       * line ends fail the read, where the lenient default (false) reads a longer row as a
       * record with its extra fields dropped (counting/source-table.ts loads strictly).
       */
      readonly strict?: boolean;
    }
  | {
      readonly kind: 'parquet';
      readonly path: string;
      /** FLOAT / DOUBLE columns (the file's public schema): their whole numbers print as integers. */
      readonly floating?: readonly string[];
    }
  | {
      readonly kind: 'table';
      readonly schema?: string;
      readonly table: string;
      /**
       * A column holding how many records each row stands for (a table of distinct records with
       * their counts: counting/source-table.ts): counts are its sums. Absent: one record a row.
       */
      readonly weight?: string;
    }
  /** A read-only query's result (counting/postgres-query.ts checks it is one SELECT). */
  | { readonly kind: 'query'; readonly sql: string };

/** A SQL identifier, double-quoted (DuckDB, PostgreSQL; Spark with ANSI quoting uses backticks). */
export function quoteIdent(name: string, dialect: Dialect = 'duckdb'): string {
  if (dialect === 'spark') return `\`${name.replaceAll('`', '``')}\``;
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal. */
export function quoteString(text: string): string {
  if (text.includes('\0')) throw new RangeError('a SQL string literal cannot hold a NUL character');
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * A file path as a DuckDB file-reading function's literal: DuckDB globs the paths it reads (`*`,
 * `?`, `[…]`), so `a[1].csv` would read `a1.csv` — another file than the one the ledger
 * fingerprinted. Each glob character becomes a one-character class (`[[]`, `[*]`, `[?]`), which
 * matches only itself: the pattern names exactly the file. A path without them is unchanged.
 */
export function fileLiteral(path: string): string {
  return quoteString(path.replace(/[*?[]/g, (ch) => `[${ch}]`));
}

/** Positional names for a CSV's columns (c0, c1, …): file headers may hold any text. */
export function csvColumnName(index: number): string {
  return `c${index}`;
}

export function relationSql(rel: Relation, dialect: Dialect): string {
  switch (rel.kind) {
    case 'csv': {
      if (dialect !== 'duckdb') throw new RangeError('CSV files are read by DuckDB only');
      const columns = Array.from(
        { length: rel.width },
        (_, i) => `${quoteString(csvColumnName(i))}: 'VARCHAR'`,
      ).join(', ');
      // RFC 4180 as the streaming reader takes it (papaparse): '"' quotes and escapes, no
      // comment lines, every value text; strict_mode off (unless asked) accepts mixed CRLF / LF.
      return (
        `read_csv(${fileLiteral(rel.path)}, delim = ${quoteString(rel.delimiter)}, quote = '"', escape = '"', ` +
        `header = ${rel.header}, auto_detect = false, strict_mode = ${rel.strict === true}, null_padding = false, ` +
        `ignore_errors = false, comment = '', columns = {${columns}})`
      );
    }
    case 'parquet':
      if (dialect !== 'duckdb') throw new RangeError('Parquet files are read by DuckDB only');
      return `read_parquet(${fileLiteral(rel.path)})`;
    case 'query':
      // On their own lines: a trailing `-- comment` in the query cannot hide the parenthesis.
      return `(\n${rel.sql}\n) AS source`;
    case 'table':
      return rel.schema === undefined
        ? quoteIdent(rel.table, dialect)
        : `${quoteIdent(rel.schema, dialect)}.${quoteIdent(rel.table, dialect)}`;
  }
}

/**
 * Lines where a quote follows spaces after a delimiter (`a, "b,c"`): DuckDB reads such a field as
 * quoted, the streaming reader (papaparse, RFC 4180) as text and splits at the inner delimiter.
 * A CSV with any is counted by the streaming path instead. A quote inside a quoted field can
 * match too: then the streaming path counts a file DuckDB could have (safe, only slower).
 */
export function spacedQuoteLinesSql(rel: Extract<Relation, { kind: 'csv' }>): string {
  const d = rel.delimiter === '\t' ? '\\t' : rel.delimiter;
  return (
    `SELECT COUNT(*) AS n FROM read_csv(${fileLiteral(rel.path)}, delim = '\x01', quote = '', escape = '', ` +
    `header = false, auto_detect = false, strict_mode = false, comment = '', columns = {'line': 'VARCHAR'}) ` +
    // A match needs a quote: the cheap test first spares the regex most lines (0.6 → 0.13 CPU s
    // per million adult rows).
    `WHERE contains(line, '"') AND regexp_matches(line, ${quoteString(`(^|${d})[ \\t]+"`)})`
  );
}

/**
 * The text of a column as the streaming reader would see it (NULL as the empty field). A
 * floating column's whole numbers print as a CSV writes them ('7', not DuckDB's '7.0'), so a
 * typed copy of a CSV has the same category texts as the CSV.
 */
export function textOf(column: string, dialect: Dialect, floating = false): string {
  const type = dialect === 'spark' ? 'STRING' : dialect === 'postgres' ? 'TEXT' : 'VARCHAR';
  const c = quoteIdent(column, dialect);
  const text = floating
    ? `CASE WHEN ${c} = TRUNC(${c}) AND ABS(${c}) < 1e15 THEN CAST(CAST(${c} AS BIGINT) AS ${type}) ` +
      `ELSE CAST(${c} AS ${type}) END`
    : `CAST(${c} AS ${type})`;
  return `COALESCE(${text}, '')`;
}

/** Whether `column` of `rel` is floating (see textOf). */
export function isFloating(rel: Relation, column: string): boolean {
  return rel.kind === 'parquet' && (rel.floating ?? []).includes(column);
}

export interface CountingQuery {
  readonly sql: string;
  /** Source columns grouped, in the query's column order (result columns v0…vm−1). */
  readonly columns: readonly string[];
  /** The grouping sets, as positions into `columns` (deduplicated, each ascending). */
  readonly sets: readonly (readonly number[])[];
}

/**
 * One query computing every set's table: result columns `v0…` (the grouped texts), `g0…`
 * (GROUPING(vi): 1 where vi is not part of the row's set) and `n` (the count). The empty set
 * gives the row count. A set is named by the columns it groups; its rows are those whose
 * grouping flags are 0 exactly on its columns.
 */
export function groupingSetsQuery(
  rel: Relation,
  sets: readonly (readonly string[])[],
  dialect: Dialect,
): CountingQuery {
  const columns: string[] = [];
  const position = (name: string): number => {
    let p = columns.indexOf(name);
    if (p < 0) p = columns.push(name) - 1;
    return p;
  };
  const seen = new Set<string>();
  const positional: number[][] = [];
  for (const s of sets) {
    const ps = [...new Set(s.map(position))].sort((a, b) => a - b);
    const key = ps.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    positional.push(ps);
  }
  const v = (i: number): string => quoteIdent(`v${i}`, dialect);
  const weight = rel.kind === 'table' ? rel.weight : undefined;
  const w = quoteIdent('w', dialect);
  const inner = [
    ...columns.map((c, i) => `${textOf(c, dialect, isFloating(rel, c))} AS ${v(i)}`),
    ...(weight === undefined ? [] : [`${quoteIdent(weight, dialect)} AS ${w}`]),
  ].join(', ');
  const flags = columns.map((_, i) => `GROUPING(${v(i)}) AS ${quoteIdent(`g${i}`, dialect)}`);
  const groups = positional.map((ps) => `(${ps.map(v).join(', ')})`).join(', ');
  const count = weight === undefined ? 'COUNT(*)' : `CAST(SUM(${w}) AS BIGINT)`;
  const select = [...columns.map((_, i) => v(i)), ...flags, `${count} AS ${quoteIdent('n', dialect)}`];
  const sql =
    `SELECT ${select.join(', ')} FROM (SELECT ${inner || '1 AS one'} FROM ${relationSql(rel, dialect)}) AS src ` +
    `GROUP BY GROUPING SETS (${groups})`;
  return { sql, columns, sets: positional };
}

/** The key of a result row's set: the positions whose grouping flag is 0. */
export function setKey(flags: readonly number[]): string {
  const ps: number[] = [];
  flags.forEach((g, i) => {
    if (g === 0) ps.push(i);
  });
  return ps.join(',');
}

/**
 * Discovery's one-way histograms of `columns` as NARROW rows (k, v, n): k the position of the
 * row's column in the query's `columns` (−1 for the row count, whose v is ''), v its raw text
 * (NULL as ''), n its count (a DOUBLE: exact below 2^53). The same one-scan grouping-sets query
 * (each column alone, and the empty set), its 2m + 1 result columns folded into three, so a
 * column with millions of distinct texts comes back as three values a text, read a column at a
 * time (counting/histograms.ts streamHistograms) instead of a row array each.
 */
export function histogramQuery(rel: Relation, columns: readonly string[], dialect: Dialect): CountingQuery {
  const q = groupingSetsQuery(rel, [...columns.map((c) => [c]), []], dialect);
  const g = (i: number) => quoteIdent(`g${i}`, dialect);
  const v = (i: number) => quoteIdent(`v${i}`, dialect);
  const m = q.columns.length;
  const k =
    m === 0 ? '-1' : `CASE ${q.columns.map((_, i) => `WHEN ${g(i)} = 0 THEN ${i}`).join(' ')} ELSE -1 END`;
  const text =
    m === 0 ? "''" : `CASE ${q.columns.map((_, i) => `WHEN ${g(i)} = 0 THEN ${v(i)}`).join(' ')} ELSE '' END`;
  const double = dialect === 'postgres' ? 'DOUBLE PRECISION' : 'DOUBLE';
  const sql =
    `SELECT CAST(${k} AS INTEGER) AS ${quoteIdent('k', dialect)}, ${text} AS ${quoteIdent('v', dialect)}, ` +
    `CAST(${quoteIdent('n', dialect)} AS ${double}) AS ${quoteIdent('n', dialect)} FROM (${q.sql}) AS h`;
  return { sql, columns: q.columns, sets: q.sets };
}

/**
 * The curator's report sample of one column (report/fidelity.ts histogramSample: every s-th
 * record with the records in order of their texts), from its exact histogram without returning
 * it: each distinct raw text (NULL as '') with the number of sample positions its records cover,
 * k = ⌈e/s⌉ − ⌈(e − n)/s⌉ where e is the running count through it, only texts with k > 0, in
 * byte order of the UTF-8 texts (code-point order). At most ⌈rows/s⌉ rows come back.
 */
export function textSampleQuery(rel: Relation, column: string, stride: number, dialect: Dialect): string {
  return textSampleOver(groupingSetsQuery(rel, [[column]], dialect).sql, stride, dialect);
}

/**
 * textSampleQuery over a column's histogram already grouped: `grouped` is a query whose rows are
 * its distinct texts `v0` (NULL as '') with their counts `n` (an integer type), as the one-column
 * grouping-sets query gives them (counting/histogram-table.ts reads a stored histogram so).
 */
export function textSampleOver(grouped: string, stride: number, dialect: Dialect): string {
  if (!Number.isSafeInteger(stride) || stride < 1)
    throw new RangeError(`a sample stride is a whole number ≥ 1, not ${stride}`);
  const n = quoteIdent('n', dialect);
  const e = quoteIdent('e', dialect);
  const k = quoteIdent('k', dialect);
  const v = quoteIdent('v0', dialect);
  return (
    `SELECT ${v} AS ${quoteIdent('v', dialect)}, ${k} FROM (SELECT ${v}, ` +
    `CAST(CEIL(${e} / ${stride}.0) - CEIL((${e} - ${n}) / ${stride}.0) AS INTEGER) AS ${k} FROM ` +
    `(SELECT ${v}, ${n}, SUM(${n}) OVER (ORDER BY ${v} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ${e} ` +
    `FROM (${grouped}) AS h) AS r) AS s WHERE ${k} > 0 ORDER BY ${v}`
  );
}

/**
 * THE person level's SQL for an engine that holds the rows (PostgreSQL: counting/postgres-person.ts),
 * the steps counting/person-table.ts runs in DuckDB, as queries over one snapshot that write
 * nothing (no table, not even a temporary one: a read-only transaction allows none):
 * - each record's person: the unit column's text (NULL as ''), every missing marker one and the
 *   same person '' (the JS rule for a source read untrimmed);
 * - persons numbered 0… by first appearance, records ranked 0… within their person, both in the
 *   records' `order`: 'physical', a plain table's heap order (ctid: a table loaded in a file's
 *   order has that file's order, so it bounds as the file does), or 'content', the records' own
 *   texts (unit, then every released column) where no physical order exists (a view, a query):
 *   records that tie are equal in every column the release reads, so which of them a rank names
 *   changes no count;
 * - the bounded records: all of a person with at most k, and of each heavy person the ranks the
 *   JS draws kept (privacy/contribution.ts), given as the parameters $1 (persons) and $2 (ranks),
 *   two bigint arrays: data, never SQL text, and no randomness in SQL.
 * Columns come out under positional names (`c0…`, the person `p`), so no table's column name can
 * clash with them. Each query re-derives the numbering, so every query must run in ONE snapshot
 * (REPEATABLE READ) for the numbers to name the same records.
 */
export interface PersonRecords {
  /** The released columns (source names), in order: result columns c0…. */
  readonly columns: readonly string[];
  /** The unit column (source name). */
  readonly unit: string;
  /** The missing markers: the person of each of these texts is ''. */
  readonly markers: readonly string[];
  readonly order: 'physical' | 'content';
}

/** The result column of `spec.columns[i]` in the person queries. */
export function personColumn(i: number): string {
  return `c${i}`;
}
/** The person's result column (its ordinal) in the bounded records. */
export const PERSON_COLUMN = 'p';

function personText(rel: Relation, spec: PersonRecords, dialect: Dialect): string {
  const u = textOf(spec.unit, dialect, isFloating(rel, spec.unit));
  return `CASE WHEN ${u} IN (${spec.markers.map(quoteString).join(', ')}) THEN '' ELSE ${u} END`;
}

/** `WITH t0, t, people`: each record's texts and person text, its place `rn`, each person's number and record count. */
function personCtes(rel: Relation, spec: PersonRecords, dialect: Dialect): string {
  if (dialect !== 'postgres')
    throw new RangeError('the person SQL is PostgreSQL’s (DuckDB: counting/person-table.ts)');
  if (spec.markers.length === 0 || !spec.markers.includes(''))
    throw new Error('internal: the person level needs the empty text as a marker');
  const q = (s: string) => quoteIdent(s, dialect);
  const cs = spec.columns.map((_, i) => q(personColumn(i)));
  const texts = spec.columns.map((c, i) => `${textOf(c, dialect, isFloating(rel, c))} AS ${cs[i]}`);
  const physical = spec.order === 'physical';
  const t0 = [
    ...texts,
    `${personText(rel, spec, dialect)} AS ${q('pid')}`,
    ...(physical ? ['ctid AS "tid"'] : []),
  ];
  const order = physical ? q('tid') : [q('pid'), ...cs].map((c) => `${c} COLLATE "C"`).join(', ');
  return (
    `WITH t0 AS (SELECT ${t0.join(', ')} FROM ${relationSql(rel, dialect)}), ` +
    `t AS (SELECT *, row_number() OVER (ORDER BY ${order}) AS rn FROM t0), ` +
    'people AS (SELECT pid, row_number() OVER (ORDER BY min(rn)) - 1 AS person, count(*) AS r FROM t GROUP BY pid)'
  );
}

/** How many persons hold each record count: rows (r, persons). No order needed. */
export function personContributionsSql(
  rel: Relation,
  spec: Omit<PersonRecords, 'order' | 'columns'>,
  dialect: Dialect,
): string {
  if (dialect !== 'postgres')
    throw new RangeError('the person SQL is PostgreSQL’s (DuckDB: counting/person-table.ts)');
  const pid = personText(rel, { ...spec, columns: [], order: 'content' }, dialect);
  return `SELECT r, count(*) AS persons FROM (SELECT count(*) AS r FROM ${relationSql(rel, dialect)} GROUP BY ${pid}) AS c GROUP BY r`;
}

/** The persons with more than k records, in order of first appearance: rows (person, r). */
export function heavyPersonsSql(rel: Relation, spec: PersonRecords, k: number, dialect: Dialect): string {
  return `${personCtes(rel, spec, dialect)} SELECT person, r FROM people WHERE r > ${boundText(k)} ORDER BY person`;
}

/**
 * The bounded records (at most k a person; $1, $2: the heavy persons' kept ranks), as a query
 * whose columns are c0… and p: the relation every bounded count reads (kind 'query').
 */
export function boundedRecordsSql(rel: Relation, spec: PersonRecords, k: number, dialect: Dialect): string {
  const cs = spec.columns.map((_, i) => `t.${quoteIdent(personColumn(i), dialect)}`);
  return (
    `${personCtes(rel, spec, dialect)}, ` +
    `ranked AS (SELECT ${[...cs, 'people.person', 'people.r'].join(', ')}, ` +
    'row_number() OVER (PARTITION BY people.person ORDER BY t.rn) - 1 AS rank FROM t JOIN people USING (pid)) ' +
    `SELECT ${[...spec.columns.map((_, i) => quoteIdent(personColumn(i), dialect)), `person AS ${quoteIdent(PERSON_COLUMN, dialect)}`].join(', ')} ` +
    `FROM ranked WHERE r <= ${boundText(k)} OR (person, rank) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))`
  );
}

/**
 * Per column and label, the distinct persons among the bounded records (boundedRecordsSql's text)
 * whose column's text maps to the label, for the result columns `columns` (c0…) in ONE query (the
 * bounded records derived once: a MATERIALIZED CTE). `$3`, `$4`, `$5`: each mapping's column
 * position in `columns`, raw text and label number (integer, text and integer arrays: data, never
 * SQL text). Rows (column position, label number, persons).
 */
export function distinctPersonsSql(bounded: string, columns: readonly string[], dialect: Dialect): string {
  if (dialect !== 'postgres')
    throw new RangeError('the person SQL is PostgreSQL’s (DuckDB: counting/person-table.ts)');
  const p = quoteIdent(PERSON_COLUMN, dialect);
  const per = columns.map(
    (column, i) =>
      `SELECT ${i} AS col, l.label, count(DISTINCT b.${p}) AS persons FROM b JOIN l ` +
      `ON l.col = ${i} AND l.raw = b.${quoteIdent(column, dialect)} GROUP BY l.label`,
  );
  return (
    `WITH b AS MATERIALIZED (\n${bounded}\n), ` +
    'l AS (SELECT * FROM unnest($3::integer[], $4::text[], $5::integer[]) AS l(col, raw, label)) ' +
    per.join(' UNION ALL ')
  );
}

/** k as SQL text: a safe integer ≥ 1 only (public, and checked). */
function boundText(k: number): string {
  if (!Number.isSafeInteger(k) || k < 1)
    throw new RangeError(`rows per person must be an integer >= 1, got ${k}`);
  return String(k);
}
