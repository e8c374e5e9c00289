/**
 * A read-only SQL query as a private source: `--data postgres://[user@]host[:port]/db --sql "SELECT …"`.
 * The release counts `(query) AS source` with the same GROUPING SETS query as a table
 * (sql/counting.ts), so the query's rows never leave the database either.
 *
 * - One statement, a SELECT (or WITH … SELECT): text with a second statement after a `;` (outside
 *   quotes and comments), or starting with another verb, is refused before anything connects.
 * - Every connection to a query source runs its work in ONE transaction, `REPEATABLE READ, READ
 *   ONLY` (postgres.ts withPostgres): the server refuses any write the text could still hide (a
 *   data-modifying WITH, a function that writes), and all reads of one connection see one snapshot.
 * - The ledger's identity of a query source is the DATABASE's (queryFingerprint): HMAC-SHA256
 *   under the ledger's key of (host, port, database) only, never the query text, its columns or its
 *   row count. Every query over one database spends one budget: rewording a query, choosing other
 *   columns or rows (a WHERE), or joining other tables is never a fresh budget. (Keying the
 *   identity on the text would let any rewording reset the budget; the tables a query reads cannot
 *   each be charged, since a release reserves against one dataset.) What this cannot see is stated
 *   in docs/privacy.md: a `?table=` source of the same database is its own dataset unless named
 *   into the same one (`--name`), and a database reached by another host name is another dataset.
 * - The query text may hold private literals (`WHERE name = 'Ann'`): it is in no file (not the
 *   ledger, not the manifest); the source is named `postgres://host[:port]/db (SQL query)`.
 */
import { createHmac } from 'node:crypto';
import type { Client } from 'pg';
import { InputError } from '../errors.ts';
import { relationSql } from '../sql/counting.ts';
import { type PostgresSource, parsePostgresDatabase, postgresRelation } from './postgres.ts';

/** How a query source is named wherever a table source's `location` goes. */
export const QUERY_SUFFIX = ' (SQL query)';

/**
 * The query as it will be wrapped in `(…) AS source`: one statement (a trailing `;` dropped),
 * starting with SELECT or WITH (after comments and opening parentheses). Refused otherwise,
 * saying what to write. Quotes ('…', "…", $tag$…$tag$) and comments (-- …, /* … *\/) are skipped
 * when looking for a `;`, so a `;` inside a string literal is allowed.
 */
export function checkReadQuery(sql: string): string {
  const text = sql.trim();
  const end = firstStatementEnd(text);
  const statement = (end === -1 ? text : text.slice(0, end)).trim();
  if (end !== -1 && stripComments(text.slice(end + 1)).trim() !== '') {
    throw new InputError(
      '--sql: the text holds more than one statement (a ";" ends the first). Give one SELECT (or WITH … SELECT) only.',
      { field: 'sql' },
    );
  }
  const first = /^[\s(]*([A-Za-z]+)/.exec(stripComments(statement))?.[1]?.toUpperCase();
  if (first !== 'SELECT' && first !== 'WITH') {
    throw new InputError(
      `--sql: the query must be one SELECT (or WITH … SELECT)${first ? `, not ${first}` : ''}: a release only reads, ` +
        'and runs it in a read-only transaction.',
      { field: 'sql' },
    );
  }
  return statement;
}

/** The index of the first `;` outside quotes and comments (-1 when none). */
function firstStatementEnd(text: string): number {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = skipQuotedOrComment(text, i);
    if (next !== i) {
      i = next;
      continue;
    }
    if (c === ';') return i;
    i++;
  }
  return -1;
}

/** Past a quote or a comment starting at i (i itself when none starts there; the end when unterminated). */
function skipQuotedOrComment(text: string, i: number): number {
  const c = text[i];
  const rest = text.slice(i);
  if (rest.startsWith('--')) {
    const nl = text.indexOf('\n', i);
    return nl === -1 ? text.length : nl + 1;
  }
  if (rest.startsWith('/*')) {
    const close = text.indexOf('*/', i + 2);
    return close === -1 ? text.length : close + 2;
  }
  if (c === "'" || c === '"') {
    let j = i + 1;
    while (j < text.length) {
      if (text[j] === c) {
        if (text[j + 1] === c) j += 2;
        else return j + 1;
      } else j++;
    }
    return text.length;
  }
  if (c === '$') {
    const tag = /^\$[A-Za-z_]*\$/.exec(rest)?.[0];
    if (tag) {
      const close = text.indexOf(tag, i + tag.length);
      return close === -1 ? text.length : close + tag.length;
    }
  }
  return i;
}

/** The text with its comments removed (quotes kept). */
function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const next = skipQuotedOrComment(text, i);
    if (next === i) {
      out += text[i];
      i++;
    } else {
      const part = text.slice(i, next);
      out += part.startsWith('--') || part.startsWith('/*') ? ' ' : part;
      i = next;
    }
  }
  return out;
}

/**
 * `postgres://[user@]host[:port]/db` and a query: the source. The URL names no table (the query
 * does) and holds no password (postgres.ts's rule). The query is checked first: a refused text
 * is refused before anything connects.
 */
export function parsePostgresQuerySource(text: string, sql: string): PostgresSource {
  const query = checkReadQuery(sql);
  const url = parsePostgresDatabase(text);
  const location = `${url.base}${QUERY_SUFFIX}`;
  const display = url.user ? location.replace('postgres://', `postgres://${url.user}@`) : location;
  return {
    host: url.host,
    port: url.port,
    database: url.database,
    user: url.user,
    schema: undefined,
    table: '',
    query,
    ...(url.tls ? { tls: url.tls } : {}),
    display,
    location,
  };
}

/**
 * The ledger's identity of a query source: HMAC-SHA256 under the ledger's key of the database
 * (host, port, database). Not the query, its columns or its row count (module comment).
 */
export function queryFingerprint(
  key: Buffer,
  src: Pick<PostgresSource, 'host' | 'port' | 'database'>,
): string {
  const described = JSON.stringify({
    host: src.host ?? null,
    port: src.port ?? null,
    database: src.database,
  });
  return createHmac('sha256', key).update(`rap-studio database query source v1\n${described}`).digest('hex');
}

/** The ledger's default name of a query source's dataset: every query over the database spends it. */
export function queryDatasetName(src: Pick<PostgresSource, 'database'>): string {
  return `${src.database} (SQL queries)`;
}

/** A plan node of `EXPLAIN (FORMAT JSON)` (the fields read here). */
interface PlanNode {
  readonly 'Node Type'?: string;
  readonly 'Join Type'?: string;
  readonly Plans?: readonly PlanNode[];
}

/**
 * How the query's plan (EXPLAIN, not run) could give one source record several result rows: a
 * join that is not a semi / anti join (one-to-many), an append (UNION ALL), a set-returning
 * function (unnest). Empty when none. Conservative: a join the planner made of an EXISTS counts,
 * and so does a one-to-one join (the plan cannot tell which side is the person). The unit of privacy is a result row, so the release warns
 * the curator: a person with several result rows is protected less (docs/privacy.md).
 */
export async function repeatingSteps(client: Client, src: PostgresSource): Promise<string[]> {
  const sql = `EXPLAIN (FORMAT JSON) SELECT * FROM ${relationSql(postgresRelation(src), 'postgres')}`;
  const result = await client.query({ text: sql, rowMode: 'array' });
  const raw = (result.rows as unknown[][])[0]?.[0];
  const plans = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  const found = new Set<string>();
  const walk = (node: PlanNode) => {
    const type = node['Node Type'] ?? '';
    const join = node['Join Type'];
    if (join !== undefined && join !== 'Semi' && join !== 'Anti') found.add('a join');
    if (type === 'Append' || type === 'Merge Append') found.add('a UNION ALL (an append)');
    if (type === 'ProjectSet' || type === 'Function Scan') found.add('a set-returning function');
    for (const child of node.Plans ?? []) walk(child);
  };
  for (const p of plans) walk(p.Plan);
  return [...found];
}
