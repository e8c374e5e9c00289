/**
 * A PostgreSQL table as a private source: `postgres://[user@]host[:port]/db?table=[schema.]name`.
 * The counting is pushed down (counting.ts's GROUPING SETS query in the 'postgres' dialect), so
 * rows never leave the database: only one count per distinct value combination comes back.
 *
 * Credentials never come from the source text (which may be written to a ledger, a log or a
 * manifest): a password in the URL is refused. libpq's environment (PGPASSWORD, PGUSER, PGHOST,
 * PGPORT, PGSSLMODE…) and ~/.pgpass supply them, read by the client at connect time.
 *
 * The ledger's identity of a database source (its "fingerprint") is `databaseFingerprint`: an
 * HMAC-SHA256, keyed with the ledger's key (ledger/key.ts), of the source's public description
 * (host, port, database, table), the exact counting query's text, and the row count. A table
 * that changes rows changes it (a new dataset to the ledger, as an edited file is), and without
 * the key it says nothing about the table.
 */
import { createHmac } from 'node:crypto';
import type { Client, ClientConfig } from 'pg';
import type { Schema } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { groupingSetsQuery, quoteIdent, type Relation, relationSql } from '../sql/counting.ts';
import { interruptibly } from '../sql/interruptible.ts';
import { histogramsFromRows } from './histograms.ts';
import {
  clientSsl,
  type PostgresTls,
  refuseUnknownParameters,
  TLS_PARAMETERS,
  tlsFromUrl,
} from './postgres-tls.ts';
import { type CountedTables, type CountOptions, tablesFromGroups } from './tables.ts';

export interface PostgresSource {
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly database: string;
  readonly user: string | undefined;
  readonly schema: string | undefined;
  readonly table: string;
  /**
   * A read-only query instead of a table (`--sql`; postgres-query.ts): its result is the source,
   * `table` is empty, and every connection reads in one READ ONLY transaction.
   */
  readonly query?: string;
  /** What the URL says of TLS (`?sslmode=`, `?sslrootcert=`; postgres-tls.ts): absent, PGSSLMODE decides. */
  readonly tls?: PostgresTls;
  /** The source as the curator may see it in a message (no password). */
  readonly display: string;
  /**
   * The source as public files and the ledger name it: host, port, database and table only (no
   * user, no password): `postgres://host[:port]/db?table=[schema.]name`.
   */
  readonly location: string;
}

/** The URL, or a message naming it (redacted) with the form to write; a password in it refused. */
function parsedUrl(text: string, form: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(`${redact(text)}: not a PostgreSQL URL; write ${form}.`, { field: 'data' });
  }
  if (url.password !== '') {
    throw new InputError(
      `${redact(text)}: the URL holds a password, which would be written wherever the source is named (the ` +
        'ledger, the manifest, logs). Remove it and give it in the environment (PGPASSWORD) or in ~/.pgpass.',
      { field: 'data' },
    );
  }
  return url;
}

export function isPostgresSource(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/**
 * Parses `postgres://[user@]host[:port]/db?table=[schema.]name`; refuses a password in it. A
 * query source (`--sql`): postgres-query.ts parsePostgresQuerySource.
 */
export function parsePostgresSource(text: string): PostgresSource {
  const url = parsedUrl(text, 'postgres://host/database?table=name');
  refuseUnknownParameters(url, redact(text), ['table', ...TLS_PARAMETERS]);
  const tls = tlsFromUrl(url, redact(text));
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const tableParam = url.searchParams.get('table');
  if (!database || !tableParam) {
    throw new InputError(
      `${redact(text)}: name the database and the table: postgres://host/database?table=[schema.]name (or, for a read-only query's result, --sql "SELECT …" with postgres://host/database).`,
      { field: 'data' },
    );
  }
  const parts = tableParam.split('.');
  if (parts.length > 2 || parts.some((p) => p === '')) {
    throw new InputError(`${redact(text)}: the table "${tableParam}" is not [schema.]name.`, {
      field: 'data',
    });
  }
  const [schema, table] = parts.length === 2 ? [parts[0], parts[1]] : [undefined, parts[0]];
  // An IPv6 literal is bracketed in a URL ([::1]), not in the client's host.
  const host = url.hostname === '' ? undefined : decodeURIComponent(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  const port = url.port === '' ? undefined : Number(url.port);
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const location = `postgres://${url.hostname}${port ? `:${port}` : ''}/${database}?table=${tableParam}`;
  const display = user ? location.replace('postgres://', `postgres://${user}@`) : location;
  return { host, port, database, user, schema, table, ...(tls ? { tls } : {}), display, location };
}

/** What postgres.ts parses of a URL without `?table=`. */
export interface PostgresUrlParts {
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly database: string;
  readonly user: string | undefined;
  readonly tls?: PostgresTls;
  /** `postgres://host[:port]/db` (no user, no password). */
  readonly base: string;
}

/** `postgres://[user@]host[:port]/db` with no table: the parts a query source needs. */
export function parsePostgresDatabase(text: string): PostgresUrlParts {
  const url = parsedUrl(text, 'postgres://host/database');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) {
    throw new InputError(`${redact(text)}: name the database: postgres://host/database.`, { field: 'data' });
  }
  if (url.searchParams.has('table')) {
    throw new InputError(
      `${redact(text)}: with --sql the URL names the database only (postgres://host/database): the query says ` +
        'what to read; leave out "?table=…" (or leave out --sql).',
      { field: 'data' },
    );
  }
  refuseUnknownParameters(url, redact(text), TLS_PARAMETERS);
  const tls = tlsFromUrl(url, redact(text));
  const host = url.hostname === '' ? undefined : decodeURIComponent(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  const port = url.port === '' ? undefined : Number(url.port);
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  return {
    host,
    port,
    database,
    user,
    ...(tls ? { tls } : {}),
    base: `postgres://${url.hostname}${port ? `:${port}` : ''}/${database}`,
  };
}

/** The URL without anything after a colon in its user part (for messages about a bad URL). */
function redact(text: string): string {
  return text.replace(/(\/\/[^/@:]*):[^/@]*@/, '$1:***@');
}

export function postgresRelation(src: PostgresSource): Relation {
  if (src.query !== undefined) return { kind: 'query', sql: src.query };
  return { kind: 'table', table: src.table, ...(src.schema ? { schema: src.schema } : {}) };
}

/** How long a connection attempt may take before the source is refused as unreachable. */
export const CONNECT_TIMEOUT_MS = 15_000;

/** How withPostgres opens its connection. */
export interface ConnectionOptions {
  /**
   * Run `job` in one REPEATABLE READ, READ ONLY transaction, as a query source's connection always
   * does: one snapshot, so every query sees the same rows (counting/postgres-person.ts's queries
   * each re-derive the persons' numbers and ranks, which must name the same records), and the
   * server refuses any write. Closing the connection rolls it back.
   */
  readonly snapshot?: boolean;
}

/**
 * Runs `job` on a connection to the source's database; closed on every way out. `host` may be a
 * Unix socket folder (libpq's rule: a host starting with '/').
 */
export async function withPostgres<T>(
  src: PostgresSource,
  job: (client: Client) => Promise<T>,
  signal?: AbortSignal,
  opts: ConnectionOptions = {},
): Promise<T> {
  signal?.throwIfAborted();
  const client = await connect(src);
  try {
    // A query source always reads in one read-only snapshot: the server refuses any write its text
    // could hide (a data-modifying WITH, a writing function); closing the connection rolls it back.
    const shared = SNAPSHOTS.get(src);
    if (src.query !== undefined || opts.snapshot || shared !== undefined) {
      await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    }
    // A release's snapshot (postgres-snapshot.ts): this connection sees exactly the rows its
    // checks saw before the reservation, whatever was written since.
    if (shared !== undefined) await importSnapshot(client, src, shared);
    // A cancel stops the running query in the server (pg_cancel_backend from a second
    // connection): a long count over a large table is not waited for.
    let interrupt = () => {};
    if (signal) {
      const [[pid]] = (await client.query({ text: 'SELECT pg_backend_pid()', rowMode: 'array' })).rows as [
        [number],
      ];
      interrupt = () => void cancelBackend(src, pid);
    }
    return await interruptibly(signal, interrupt, () => job(client));
  } catch (err) {
    signal?.throwIfAborted();
    throw err;
  } finally {
    await client.end();
  }
}

/**
 * A release's snapshot of the database (an id from pg_export_snapshot, postgres-snapshot.ts),
 * tied to one source object as PASSWORDS is: every withPostgres on it reads that snapshot.
 */
const SNAPSHOTS = new WeakMap<PostgresSource, string>();

/** A copy of `src` (its password kept) whose every connection reads the exported snapshot `id`. */
export function withSnapshot(src: PostgresSource, id: string): PostgresSource {
  const copy = { ...src };
  const password = PASSWORDS.get(src);
  if (password !== undefined) PASSWORDS.set(copy, password);
  SNAPSHOTS.set(copy, id);
  return copy;
}

/** `SET TRANSACTION SNAPSHOT`, first in the transaction; a snapshot gone is said as such. */
async function importSnapshot(client: Client, src: PostgresSource, id: string): Promise<void> {
  // pg_export_snapshot's ids are hex digits and dashes (0000000A-0000002B-1): nothing to escape.
  if (!/^[0-9A-Fa-f-]+$/.test(id)) throw new Error(`internal: not a snapshot id: ${id}`);
  try {
    await client.query(`SET TRANSACTION SNAPSHOT '${id}'`);
  } catch (err) {
    throw new InputError(
      `${src.display}: the release's snapshot of the database is gone (${(err as Error).message}): the ` +
        'connection that holds it was closed (by the server or an administrator). Release again.',
      { field: 'data' },
    );
  }
}

/**
 * A password the app's curator typed (never in the URL, never a property of the source): held in
 * this process's memory, tied to one source object, so no copy, JSON or structured clone of a
 * source (a spec, a manifest, a log line) can carry it, and it goes when the source does.
 */
const PASSWORDS = new WeakMap<PostgresSource, string>();

/**
 * A copy of `src` whose connections use `password` (in memory only, see PASSWORDS). The CLI
 * never uses it: its password comes from PGPASSWORD or ~/.pgpass, which the client reads.
 */
export function withPassword(src: PostgresSource, password: string): PostgresSource {
  const copy = { ...src };
  PASSWORDS.set(copy, password);
  const snapshot = SNAPSHOTS.get(src);
  if (snapshot !== undefined) SNAPSHOTS.set(copy, snapshot);
  return copy;
}

/**
 * The session settings that decide how the server writes a value as text, pinned at connect for
 * every connection (after the curator's PGOPTIONS, so they win; a role's or database's `ALTER …
 * SET` and the server's configuration are overridden too): a timestamptz or interval column's
 * texts, and a float's digits, are the categories a release counts and writes, so they must not
 * depend on the server. UTC (a timestamptz as `2024-03-01 23:30:00+00`; a query's zone-less
 * timestamptz literal is read in UTC too), PostgreSQL's own interval style, and the shortest float
 * text that reads back exactly (extra_float_digits=1, PostgreSQL 12's default). DateStyle's output
 * is pinned to ISO by connect's `SET DateStyle TO ISO`, which keeps the day/month order in force
 * for the role (a query's own literals read as the curator's other sessions read them).
 */
export const PINNED_SETTINGS = '-c TimeZone=UTC -c IntervalStyle=postgres -c extra_float_digits=1';

/** The client's startup options: the curator's PGOPTIONS, then PINNED_SETTINGS. */
export function startupOptions(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.PGOPTIONS ?? ''} ${PINNED_SETTINGS}`.trim();
}

/**
 * The client's configuration for `src` (`env`: where libpq's variables are read): the parsed
 * fields, the in-memory password if any, TLS (postgres-tls.ts) and the pinned settings.
 */
export function clientConfig(src: PostgresSource, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  return {
    database: src.database,
    ...(src.host ? { host: src.host } : {}),
    ...(src.port ? { port: src.port } : {}),
    ...(src.user ? { user: src.user } : {}),
    ...(PASSWORDS.has(src) ? { password: PASSWORDS.get(src) } : {}),
    // An unreachable server is refused in seconds, not after the OS's TCP timeout.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // libpq's sslmode from the URL or PGSSLMODE (postgres-tls.ts): node-pg's own reading differs.
    ssl: clientSsl(src.tls, src.host ?? env.PGHOST, src.display, env),
    options: startupOptions(env),
    // Otherwise the password, if any, from PGPASSWORD or ~/.pgpass (the pg client reads both).
  };
}

/** A new connection to the source's database (the caller ends it); refused naming the source. */
export async function connect(src: PostgresSource): Promise<Client> {
  const { Client } = (await import('pg')).default;
  const client = new Client(clientConfig(src));
  try {
    await client.connect();
  } catch (err) {
    throw new InputError(
      `${src.display}: cannot connect (${(err as Error).message}). Check the host, the database and the ` +
        'credentials in the environment (PGUSER, PGPASSWORD) or ~/.pgpass.',
      { field: 'data' },
    );
  }
  // Dates and times as ISO text (2023-01-15, 2023-01-15 08:30:00), whatever the server's, the
  // database's, the role's or PGOPTIONS's output style: the text discovery reads (a public
  // candidate format) and the curator declares. Only the output style: the day/month order of the
  // query's own literals stays. (The other settings that shape texts: PINNED_SETTINGS.)
  try {
    await client.query('SET DateStyle TO ISO');
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
  return client;
}

/** Asks the server to cancel backend `pid`'s running query; a failure leaves the query to finish. */
async function cancelBackend(src: PostgresSource, pid: number): Promise<void> {
  try {
    const c = await connect(src);
    try {
      await c.query('SELECT pg_cancel_backend($1)', [pid]);
    } finally {
      await c.end();
    }
  } catch {
    // The cancel is best effort: the run is aborted either way once the query returns.
  }
}

/**
 * The source's exact tables over `schema`'s codes, counted inside the database in one query (the
 * schema's column names are the table's). Private, like every exact table.
 */
export async function countOnPostgres(
  client: Client,
  src: PostgresSource,
  schema: Schema,
  features: readonly (readonly number[])[],
  opts: CountOptions = {},
): Promise<CountedTables & { readonly query: string }> {
  const names = schema.columns.map((c) => c.name);
  const source = (f: number) => names[f];
  const query = groupingSetsQuery(
    postgresRelation(src),
    [...features.map((fs) => fs.map(source)), []],
    'postgres',
  );
  // Rows as arrays: the result's column names (v0, g0, …) are the query's, not the table's.
  const result = await client.query({ text: query.sql, rowMode: 'array' });
  const counted = tablesFromGroups(
    schema,
    features,
    source,
    query,
    { rows: result.rows as unknown[][] },
    opts,
  );
  return { ...counted, query: query.sql };
}

/**
 * The ledger's identity of a database source: HMAC-SHA256 under the ledger's key of the
 * source's description, the counting query and the row count (module comment).
 */
export function databaseFingerprint(key: Buffer, src: PostgresSource, query: string, rows: number): string {
  const described = JSON.stringify({
    host: src.host ?? null,
    port: src.port ?? null,
    database: src.database,
    schema: src.schema ?? null,
    table: src.table,
  });
  return createHmac('sha256', key)
    .update(`rap-studio database source v1\n${described}\n${query}\n${rows}`)
    .digest('hex');
}

/** A query on the source failed (a permission, a column gone): an InputError naming the source. */
async function query<R extends unknown[]>(
  client: Client,
  src: PostgresSource,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  try {
    const result = await client.query({ text, values, rowMode: 'array' });
    return result.rows as R[];
  } catch (err) {
    throw new InputError(
      `${src.display}: the database refused a query (${(err as Error).message}). Check that the role may ` +
        'SELECT from the table.',
      { field: 'data' },
    );
  }
}

/**
 * The table's column names, in the table's order (a view works too): public metadata from the
 * catalogue, no row read. A missing table is refused naming it and the database.
 */
export async function tableColumns(client: Client, src: PostgresSource): Promise<readonly string[]> {
  // A query's columns are its result's (its description, no row read).
  if (src.query !== undefined) return queryColumns(client, src);
  const qualified = relationSql(postgresRelation(src), 'postgres');
  const rows = await query<[string]>(
    client,
    src,
    'SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = to_regclass($1) ' +
      'AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum',
    [qualified],
  );
  if (rows.length === 0) {
    const [found] = await query<[string | null]>(client, src, 'SELECT to_regclass($1)::text', [qualified]);
    const where = src.schema ? `schema "${src.schema}"` : "the role's search_path";
    throw new InputError(
      found?.[0]
        ? `${src.display}: the table "${src.table}" has no columns.`
        : `${src.display}: no table or view "${src.table}" in ${where} of database "${src.database}". ` +
            'Check the name (table=[schema.]name) and that the role may see it.',
      { field: 'data' },
    );
  }
  return rows.map((r) => r[0]);
}

/** The table's row count (n, public as a file's record count is). */
export async function tableRows(client: Client, src: PostgresSource): Promise<number> {
  const sql = `SELECT COUNT(*) FROM ${relationSql(postgresRelation(src), 'postgres')}`;
  const [row] = await query<[string | number]>(client, src, sql);
  return Number(row[0]);
}

/**
 * The text that names the source's rows for the ledger's fingerprint: the table's columns, in
 * order, from the relation (no value). Given every column of the table, whatever a release
 * reads of it, so a column choice does not make a new dataset (release/database.ts).
 */
export function readQuery(src: PostgresSource, columns: readonly string[]): string {
  const list = columns.map((c) => quoteIdent(c, 'postgres')).join(', ');
  return `SELECT ${list} FROM ${relationSql(postgresRelation(src), 'postgres')}`;
}

/**
 * Per-column histograms of `names`, counted inside the database in one GROUPING SETS query (one
 * set per column, plus the row count). Private, like every exact count: discovery and the
 * pre-reservation checks read them; nothing here is released.
 */
export async function columnHistograms(
  client: Client,
  src: PostgresSource,
  names: readonly string[],
): Promise<ReturnType<typeof histogramsFromRows>> {
  const q = groupingSetsQuery(postgresRelation(src), [...names.map((n) => [n]), []], 'postgres');
  const rows = await query<unknown[]>(client, src, q.sql);
  return histogramsFromRows(
    names.map((n) => q.columns.indexOf(n)),
    names,
    q.columns.length,
    rows,
  );
}

/**
 * The query's result columns, from its description (`LIMIT 0`: no row read), in its order. A
 * name given twice (a join's two `id`s) is refused: each released column needs its own name.
 */
export async function queryColumns(client: Client, src: PostgresSource): Promise<readonly string[]> {
  const fields = await queryFields(client, src);
  const seen = new Set<string>();
  for (const { name } of fields) {
    if (seen.has(name)) {
      throw new InputError(
        `${src.display}: the query's result has two columns named "${name}": name each column once (… AS another_name).`,
        { field: 'sql' },
      );
    }
    seen.add(name);
  }
  if (fields.length === 0)
    throw new InputError(`${src.display}: the query returns no columns.`, { field: 'sql' });
  return fields.map((f) => f.name);
}

/** Names and type OIDs of the query's result (no row read). */
export async function queryFields(
  client: Client,
  src: PostgresSource,
): Promise<readonly { readonly name: string; readonly dataTypeID: number }[]> {
  try {
    const result = await client.query({
      text: `SELECT * FROM ${querySubquery(src)} LIMIT 0`,
      rowMode: 'array',
    });
    return result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
  } catch (err) {
    throw new InputError(
      `${src.display}: the database refused the query (${(err as Error).message}). Check its text and that the ` +
        'role may SELECT what it reads.',
      { field: 'sql' },
    );
  }
}

/** `(\n<query>\n) AS source` (sql/counting.ts relationSql). */
export function querySubquery(src: PostgresSource): string {
  if (src.query === undefined) throw new Error('internal: not a query source');
  return relationSql(postgresRelation(src), 'postgres');
}

/** A column of a source as the catalogue describes it: public metadata, like a CSV's header. */
export interface ColumnDescription {
  readonly name: string;
  /** PostgreSQL's name of its type (format_type: `integer`, `character varying(20)`, …). */
  readonly type: string;
}

/**
 * The source's columns with their types, from the catalogue (a table) or the query's result
 * description (`LIMIT 0`): no row read.
 */
export async function describeColumns(client: Client, src: PostgresSource): Promise<ColumnDescription[]> {
  if (src.query !== undefined) {
    const names = await queryColumns(client, src);
    const fields = await queryFields(client, src);
    const oids = [...new Set(fields.map((f) => f.dataTypeID))];
    const types = new Map(
      (
        await query<[number, string]>(
          client,
          src,
          'SELECT oid::int, format_type(oid, NULL) FROM pg_catalog.pg_type WHERE oid = ANY($1)',
          [oids],
        )
      ).map(([oid, type]) => [oid, type]),
    );
    return names.map((name, i) => ({ name, type: types.get(fields[i].dataTypeID) ?? 'unknown' }));
  }
  const names = await tableColumns(client, src);
  const rows = await query<[string, string]>(
    client,
    src,
    'SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a ' +
      'WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum',
    [relationSql(postgresRelation(src), 'postgres')],
  );
  const types = new Map(rows);
  return names.map((name) => ({ name, type: types.get(name) ?? 'unknown' }));
}
