/**
 * The person level counted by an embedded DuckDB (release/person-counted.ts): the private CSV or
 * Parquet file parsed ONCE into a private table in file order (an Excel, SPSS, Stata or SAS file's
 * records appended from its own reader, record-table.ts `appendRecords`), each record's person
 * found by one rule whatever the format (`findPersons`), each person bounded to k records in SQL,
 * and everything the release needs counted from the bounded records: discovery's histograms of
 * rows, its distinct-person counts per key, and the engine's exact tables. No record is held in
 * JS: memory is the counts', and the per-person draws.
 *
 * The same records as the streaming path (release/person.ts), by construction:
 * - A record's person is its unit-column text as the streaming reader reads it: trimmed in a CSV
 *   (another format's reader hands over its texts as the table holds them), and every missing
 *   marker one and the same person. The texts the JS rule could change (a marker, a space or any
 *   non-printable or non-ASCII character at either end) are few: they are read out, mapped by the
 *   JS rule, and the mapping goes back as DATA (an appended table), never as SQL text. Every other
 *   text is its own person key.
 * - Persons are numbered in order of first appearance, records within a person in file order
 *   (the table is loaded with DuckDB's insertion order kept: rowid is the record's place).
 * - The randomness is drawn in JS from src/core/privacy (privacy/contribution.ts's sampleRanks,
 *   the streaming path's own draws, in the same order: persons with more than k records, in order
 *   of first appearance), and the ranks it keeps go to DuckDB as data. No randomness in SQL.
 *
 * Stability: a person's kept records are a function of that person's records and of the draws
 * made for that person alone, whatever the other persons hold (the draws come in order of first
 * appearance, one block per heavy person: adding or removing a person shifts which block of the
 * stream another person reads, which is a different but equally fresh uniform draw). So after
 * bounding, neighbours (one person's records changed) differ in at most k records of one person,
 * as docs/privacy.md's person level states.
 *
 * The private folder, its database and spill (sql/duckdb.ts: 0700) are removed by `dispose`.
 * Counts here are exact statistics of the private data: never logged, never released.
 */

import { tableFormat } from '../data/formats/format.ts';
import type { ColumnHistograms } from '../data/histograms.ts';
import type { Schema } from '../data/schema.ts';
import type { TableOptions } from '../data/table.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import {
  groupingSetsQuery,
  isFloating,
  quoteIdent,
  quoteString,
  type Relation,
  relationSql,
  textOf,
} from '../sql/counting.ts';
import {
  type DuckDbOptions,
  type DuckDbSession,
  floatingColumns,
  onSession,
  openDuckDb,
  resultChunks,
  sourceMemoryLimit,
} from '../sql/duckdb.ts';
import { histogramsFromChunks } from './histograms.ts';
import { appendRecords, headerlessNames } from './record-table.ts';
import type { SourceTable } from './source-table.ts';
import {
  assertSameDialect,
  type CountedTables,
  type CountOptions,
  countOnDuckDb,
  fileRelation,
} from './tables.ts';

const SOURCE = 'source';
const PEOPLE = 'people';
const RECORDS = 'records';
const BOUNDED = 'bounded';

/** Persons with more than k records, in order of first appearance: their ordinals and counts. */
export interface HeavyPersons {
  readonly person: Int32Array;
  readonly rows: Int32Array;
}

/** Per column name: each raw text's labels (the keys it counts one person under). */
export type PersonLabels = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

/** The bounded records (at most k per person), counted. */
export interface BoundedTable {
  /** Records kept. Private. */
  readonly n: number;
  /** Every named column's histogram of raw texts over the kept records (rows), and n. */
  histograms(names: readonly string[], signal?: AbortSignal): Promise<ColumnHistograms>;
  /**
   * Per column, each label's count of distinct PERSONS among the kept records holding a text
   * that `labels` maps to it (a person counts once per label, however many texts or records).
   */
  persons(labels: PersonLabels, signal?: AbortSignal): Promise<Map<string, Map<string, number>>>;
  /** The exact tables over `schema`'s codes (columns by name) of the kept records, and n. */
  tables(
    schema: Schema,
    features: readonly (readonly number[])[],
    opts?: CountOptions & { readonly signal?: AbortSignal },
  ): Promise<CountedTables>;
}

export interface PersonTable extends SourceTable {
  readonly unit: string;
  /** How many persons hold each record count: count → persons (private). */
  contributions(signal?: AbortSignal): Promise<Map<number, number>>;
  /** The persons with more than k records (private). */
  heavy(k: number, signal?: AbortSignal): Promise<HeavyPersons>;
  /**
   * Keeps every record of a person with at most k, and of each heavy person the records whose
   * ranks (0-based, in file order within the person) `kept[i]` lists for `heavy.person[i]`.
   * The source table is dropped then: `histograms` and `tables` answer for the source no more.
   */
  bound(
    k: number,
    heavy: HeavyPersons,
    kept: readonly Int32Array[],
    signal?: AbortSignal,
  ): Promise<BoundedTable>;
}

export function isPersonTable(table: SourceTable): table is PersonTable {
  return 'bound' in table;
}

/**
 * Loads a CSV (strictly, as counting/source-table.ts does: a row of another width fails the load)
 * or a Parquet file into a private table of texts, or appends another format's records from its
 * reader (record-table.ts `appendRecords`: an Excel, SPSS, Stata or SAS file), in file order, with
 * the persons found (one rule for every format: `findPersons`). `names`: the released columns
 * (the column choice applied); `unit`: the unit column. Throws NotForDuckDb or DuckDB's or the
 * reader's error where it cannot read the file as the streaming reader does (a record of another
 * width fails the load): nothing is left behind then.
 */
export async function loadPersonTable(
  file: string,
  names: readonly string[],
  unit: string,
  opts: Pick<TableOptions, 'header' | 'delimiter'> & {
    readonly duckdb?: DuckDbOptions;
    readonly signal?: AbortSignal;
    readonly missingMarkers?: readonly string[];
  } = {},
): Promise<PersonTable> {
  opts.signal?.throwIfAborted();
  const markers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  // Every missing identifier is the person '' (the empty text is a marker: no identifier is '').
  if (!markers.includes('')) throw new Error('internal: the person level needs the empty text as a marker');
  const all = [...new Set([...names, unit])];
  const format = tableFormat(file);
  if (format !== 'csv' && format !== 'parquet') {
    // The reader's texts, as the streaming path receives them (labels applied, trimmed as the
    // reader trims): no trimming here. A compressed format's size says nothing of its texts: the
    // machine's share bounds the table, as for the row level (record-table.ts). Insertion order
    // kept: rowid is the record's place in the file.
    const memoryLimit = opts.duckdb?.memoryLimit ?? sourceMemoryLimit(Number.POSITIVE_INFINITY);
    const given = await headerlessNames(file, opts.header);
    const session = await openDuckDb({ ...opts.duckdb, memoryLimit });
    return findPersons(session, (c) => appendRecords(c, file, all, SOURCE, opts.signal, given), names, unit, {
      trim: false,
      markers,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }
  const { relation, source } = await fileRelation(file, all, opts);
  // In memory (DuckDB spills to the private folder beyond its limit): insertion order is kept, so
  // rowid is the record's place in the file. A database file in the private folder, order kept,
  // held less memory (0.58 against 0.76 GB peak on hospital-visits × 50) for 40% more CPU
  // (17.4 against 12.3 s for loading, bounding and discovery's counts).
  const session = await openDuckDb({ ...opts.duckdb });
  return findPersons(
    session,
    async (c) => {
      let read: Relation = relation;
      if (relation.kind === 'csv') {
        await assertSameDialect(c, relation);
        read = { ...relation, strict: true };
      } else if (relation.kind === 'parquet') {
        read = { ...relation, floating: await floatingColumns(c, relation.path) };
      }
      // Texts as the streaming reader sees them (NULL as '', a float's whole numbers as integers).
      const texts = [...new Set(all.map(source))]
        .map((s) => `${textOf(s, 'duckdb', isFloating(read, s))} AS ${quoteIdent(s)}`)
        .join(', ');
      await c.run(`CREATE TABLE ${SOURCE} AS SELECT ${texts} FROM ${relationSql(read, 'duckdb')}`);
      return source;
    },
    names,
    unit,
    { trim: relation.kind === 'csv', markers, ...(opts.signal ? { signal: opts.signal } : {}) },
  );
}

/**
 * The person rule, whatever loaded the records: `load` creates the table SOURCE of texts on the
 * session, in file order (insertion order kept: rowid is the record's place), and returns each
 * name's column in it; then each record's person is found (`trim`: whether the streaming reader
 * trims the texts, as a CSV's does), persons numbered by first appearance and records ranked within
 * their person. The session is closed where anything fails.
 */
async function findPersons(
  session: DuckDbSession,
  load: (c: DuckDbSession['connection']) => Promise<(name: string) => string>,
  names: readonly string[],
  unit: string,
  opts: { readonly trim: boolean; readonly markers: readonly string[]; readonly signal?: AbortSignal },
): Promise<PersonTable> {
  const { trim, markers } = opts;
  let source: (name: string) => string = (name) => name;
  try {
    await onSession(session, opts.signal, async (c) => {
      source = await load(c);
      const u = quoteIdent(source(unit));
      // The identifiers the JS rule could change: markers, and texts not starting and ending with
      // printable ASCII (a superset of what String.prototype.trim strips).
      const special = await c.runAndReadAll(
        `SELECT DISTINCT ${u} FROM ${SOURCE} WHERE ${u} IN (${markers.map(quoteString).join(', ')}) ` +
          `OR NOT regexp_full_match(${u}, '(?s)[!-~](.*[!-~])?')`,
      );
      await c.run('CREATE TABLE idmap (raw VARCHAR, pid VARCHAR)');
      const appender = await c.createAppender('idmap');
      for (const [raw] of special.getRows()) {
        const text = String(raw);
        const value = trim ? text.trim() : text;
        const pid = markers.includes(value) ? '' : value;
        if (pid === text) continue;
        appender.appendVarchar(text);
        appender.appendVarchar(pid);
        appender.endRow();
      }
      appender.closeSync();
      await c.run(
        `CREATE TABLE ids AS SELECT s.rowid AS rn, COALESCE(m.pid, s.${u}) AS pid ` +
          `FROM ${SOURCE} AS s LEFT JOIN idmap AS m ON s.${u} = m.raw`,
      );
      // Persons numbered by first appearance; each one's record count.
      await c.run(
        `CREATE TABLE ${PEOPLE} AS SELECT pid, CAST(row_number() OVER (ORDER BY first) - 1 AS INTEGER) AS person, ` +
          `CAST(r AS INTEGER) AS r FROM (SELECT pid, min(rn) AS first, count(*) AS r FROM ids GROUP BY pid)`,
      );
      // Each record's person and rank within the person (file order).
      await c.run(
        `CREATE TABLE ${RECORDS} AS SELECT ids.rn, p.person, p.r, ` +
          'CAST(row_number() OVER (PARTITION BY p.person ORDER BY ids.rn) - 1 AS INTEGER) AS rank ' +
          `FROM ids JOIN ${PEOPLE} AS p USING (pid)`,
      );
      await c.run('DROP TABLE ids');
      await c.run('DROP TABLE idmap');
    });
  } catch (err) {
    await session.close();
    throw err;
  }
  const col = (name: string) => quoteIdent(source(name));
  const histograms = (table: string, wanted: readonly string[], signal?: AbortSignal) =>
    onSession(session, signal, async (c) => {
      const query = groupingSetsQuery(
        { kind: 'table', table },
        [...wanted.map((n) => [source(n)]), []],
        'duckdb',
      );
      return histogramsFromChunks(
        wanted.map((n) => query.columns.indexOf(source(n))),
        wanted,
        query.columns.length,
        resultChunks(c, query.sql),
      );
    });
  const tables =
    (table: string) =>
    (
      schema: Schema,
      features: readonly (readonly number[])[],
      count: CountOptions & { signal?: AbortSignal } = {},
    ) => {
      const columns = schema.columns.map((c) => c.name);
      return onSession(session, count.signal, (c) =>
        countOnDuckDb(c, { kind: 'table', table }, schema, features, (f) => source(columns[f]), count),
      );
    };
  return {
    unit,
    distinct: false,
    folder: session.spill,
    histograms: (wanted, signal) => histograms(SOURCE, wanted, signal),
    tables: tables(SOURCE),
    contributions: (signal) =>
      onSession(session, signal, async (c) => {
        const rows = (await c.runAndReadAll(`SELECT r, count(*) FROM ${PEOPLE} GROUP BY r`)).getRows();
        return new Map(rows.map(([r, n]) => [Number(r), Number(n)]));
      }),
    heavy: (k, signal) =>
      onSession(session, signal, async (c) => {
        const rows = (
          await c.runAndReadAll(`SELECT person, r FROM ${PEOPLE} WHERE r > ${bound(k)} ORDER BY person`)
        ).getRows();
        return {
          person: Int32Array.from(rows, (r) => Number(r[0])),
          rows: Int32Array.from(rows, (r) => Number(r[1])),
        };
      }),
    bound: (k, heavy, kept, signal) =>
      onSession(session, signal, async (c) => {
        await c.run('CREATE TABLE keep (person INTEGER, rank INTEGER)');
        const appender = await c.createAppender('keep');
        heavy.person.forEach((p, i) => {
          for (const rank of kept[i]) {
            appender.appendInteger(p);
            appender.appendInteger(rank);
            appender.endRow();
          }
        });
        appender.closeSync();
        const columns = [...new Set(names.map(source))].map((s) => `s.${quoteIdent(s)}`).join(', ');
        await c.run(
          `CREATE TABLE ${BOUNDED} AS SELECT ${columns}${columns ? ', ' : ''}r.person FROM ${SOURCE} AS s ` +
            `JOIN ${RECORDS} AS r ON s.rowid = r.rn LEFT JOIN keep AS k ON k.person = r.person AND k.rank = r.rank ` +
            `WHERE r.r <= ${bound(k)} OR k.person IS NOT NULL`,
        );
        for (const t of ['keep', RECORDS, PEOPLE, SOURCE]) await c.run(`DROP TABLE ${t}`);
        const n = Number((await c.runAndReadAll(`SELECT count(*) FROM ${BOUNDED}`)).getRows()[0][0]);
        return boundedTable(n);
      }),
    dispose: () => session.close(),
  };

  function boundedTable(n: number): BoundedTable {
    return {
      n,
      histograms: (wanted, signal) => histograms(BOUNDED, wanted, signal),
      tables: tables(BOUNDED),
      persons: (labels, signal) =>
        onSession(session, signal, async (c) => {
          const out = new Map<string, Map<string, number>>(
            [...labels.keys()].map((name) => [name, new Map()]),
          );
          const named = [...labels.keys()];
          if (named.length === 0) return out;
          await c.run('CREATE OR REPLACE TABLE labels (col INTEGER, raw VARCHAR, label VARCHAR)');
          const appender = await c.createAppender('labels');
          named.forEach((name, i) => {
            for (const [raw, ls] of labels.get(name)!) {
              for (const label of ls) {
                appender.appendInteger(i);
                appender.appendVarchar(raw);
                appender.appendVarchar(label);
                appender.endRow();
              }
            }
          });
          appender.closeSync();
          // One query per column (one UNION ALL of every column under one DISTINCT aggregate cost
          // twice the CPU: 7.0 against 3.3 s on hospital-visits × 50).
          for (const [i, name] of named.entries()) {
            const rows = (
              await c.runAndReadAll(
                `SELECT l.label, count(DISTINCT b.person) FROM ${BOUNDED} AS b JOIN labels AS l ` +
                  `ON l.col = ${i} AND l.raw = b.${col(name)} GROUP BY l.label`,
              )
            ).getRows();
            for (const [label, count] of rows) out.get(name)!.set(String(label), Number(count));
          }
          await c.run('DROP TABLE labels');
          return out;
        }),
    };
  }
}

/** k as SQL text: a safe integer only (it is public, and checked). */
function bound(k: number): string {
  if (!Number.isSafeInteger(k) || k < 1)
    throw new RangeError(`rows per person must be an integer >= 1, got ${k}`);
  return String(k);
}
