/**
 * A PostgreSQL table as a release's source (counting/postgres.ts): what the release needs of it
 * before the reservation, from the database only, with no row leaving it.
 *
 * - prepare: the table's column names (the catalogue), the row count n (public, as a file's
 *   record count), and the ledger's identity of the source (databaseFingerprint, keyed with the
 *   ledger's key), so the budget applies to a table as to a file.
 * - validate: per-column histograms counted in the database (one GROUPING SETS query), read for
 *   the curator only: every value of a declared column must fit it (a declared domain is used
 *   exactly), and a column to discover must have a countable number of distinct values. The
 *   message may quote a value: it is the curator's only (as data/fit.ts's for a file).
 *
 * A read-only query (`--sql`, counting/postgres-query.ts) is a source the same way: its result's
 * columns, its row count, and its rows counted as `(query) AS source`; its ledger identity is the
 * database's.
 *
 * Credentials are never part of the source's text: no password in the URL (refused), and the
 * ledger and public files name it by `location` (host, port, database, table; no user).
 */

import {
  columnHistograms,
  countOnPostgres,
  databaseFingerprint,
  type PostgresSource,
  readQuery,
  tableColumns,
  tableRows,
  withPostgres,
} from '../counting/postgres.ts';
import { queryDatasetName, queryFingerprint, repeatingSteps } from '../counting/postgres-query.ts';
import { type ColumnChoice, keptColumnIndices } from '../data/column-choice.ts';
import { type CountedDataset, uniqueTableFeatures } from '../data/counted.ts';
import { columnEncoder, type OutOfDomainRule, withOtherCategory } from '../data/encode.ts';
import type { FileFacts } from '../data/file-facts.ts';
import type { Column, Schema } from '../data/schema.ts';
import { DEFAULT_MISSING_MARKERS, numericParser, parseNumber } from '../data/values.ts';
import { discoveryPerColumn, discoveryShares } from '../discovery/budget-split.ts';
import type { DiscoveredSchema } from '../discovery/discover.ts';
import { LEVEL1_SHARE } from '../discovery/discover.ts';
import type { ColumnHistograms } from '../discovery/histograms.ts';
import { discoverFromHistograms } from '../discovery/histograms.ts';
import { LEVEL1_SENSITIVITY } from '../discovery/numeric.ts';
import { MAX_DISTINCT_TEXTS, ZERO_PADDED } from '../discovery/profile.ts';
import type { RawSourcePlan } from '../discovery/raw-source.ts';
import { NUMERIC_SURE_SIGMAS } from '../discovery/raw-source.ts';
import { InputError } from '../errors.ts';
import { makeGaussianCounts } from '../privacy/counts.ts';
import type { NoiseSource } from '../privacy/noise.ts';

/** The public facts of a database source, fixed before the reservation. */
export interface DatabaseFacts {
  /** The columns a release reads (the table's, in its order, through the column choice). */
  readonly header: readonly string[];
  readonly facts: FileFacts;
  /** A query source's plan steps that can repeat a record (postgres-query.ts repeatingSteps). */
  readonly repeats: readonly string[];
}

/**
 * The table's columns (through the curator's choice), its row count and the ledger's keyed
 * fingerprint of the source. Refused, naming the source: a server it cannot reach, a table it
 * cannot see, a declared column the table lacks, an empty table.
 */
export async function databaseFacts(
  src: PostgresSource,
  declared: readonly Column[],
  ledgerKey: Buffer,
  choice: ColumnChoice | undefined,
  discovering: boolean,
  unit?: string,
): Promise<DatabaseFacts> {
  return withPostgres(src, async (client) => {
    const all = await tableColumns(client, src);
    const kept = choice ? keptColumnIndices(src.location, all, choice).map((i) => all[i]) : all;
    for (const c of declared) {
      if (!kept.includes(c.name)) {
        throw new InputError(
          `${src.location}: the declared column "${c.name}" is not ${all.includes(c.name) ? 'among the columns to release' : 'in the table'} ` +
            `(it has: ${all.join(', ')}).`,
          { field: 'data', column: c.name },
        );
      }
    }
    if (unit !== undefined && !all.includes(unit)) {
      const what = src.query === undefined ? 'the table' : "the query's result";
      throw new InputError(
        `${src.location}: the unit column "${unit}" is not in ${what} (it has: ${all.join(', ')}); ` +
          'name the column that identifies the person.',
        { field: 'unit-column', column: unit },
      );
    }
    // Without discovery a release reads the declared columns only (as from a file), and the unit column.
    const header = discovering ? kept : kept.filter((n) => n === unit || declared.some((c) => c.name === n));
    const rows = await tableRows(client, src);
    if (rows < 1) {
      throw new InputError(
        `${src.location}: the ${src.query === undefined ? 'table' : 'query'} has no rows.`,
        {
          field: 'data',
        },
      );
    }
    // The identity is the whole table's (every column, not the ones read): a release that reads
    // fewer columns spends the same dataset's budget, as a file's column choice does. A query's
    // is its database's (counting/postgres-query.ts): no rewording is a fresh budget.
    const fingerprint =
      src.query === undefined
        ? databaseFingerprint(ledgerKey, src, readQuery(src, all), rows)
        : queryFingerprint(ledgerKey, src);
    const repeats = src.query === undefined ? [] : await repeatingSteps(client, src);
    return { header, facts: { fingerprint, rows, hasHeader: true }, repeats };
  });
}

/** The table's per-column histograms of `names` (one query in the database; private). */
export function countHistograms(src: PostgresSource, names: readonly string[]): Promise<ColumnHistograms> {
  return withPostgres(src, (client) => columnHistograms(client, src, names));
}

/** The table's row count changed between the two reads: refused (the ledger records n). */
export function tableChanged(src: PostgresSource, before: number, now: number): InputError {
  return new InputError(
    `${src.location}: the table had ${before} rows and now has ${now}: it changed while the release read it. ` +
      'Release from a table (or a snapshot of it) that does not change meanwhile.',
    { field: 'data' },
  );
}

/**
 * Before the reservation, for the curator only: every distinct value of each declared column
 * fits it, and each column to discover can be discovered (checkDiscoverable's rule for a file:
 * at most MAX_DISTINCT_TEXTS distinct values, unless they are surely all numbers at σ₁).
 */
export function checkDatabaseValues(
  src: PostgresSource,
  histograms: ColumnHistograms,
  declared: readonly Column[],
  undeclared: readonly string[],
  rows: number,
  sigma1: number,
): void {
  if (histograms.n !== rows) throw tableChanged(src, rows, histograms.n);
  const missingMarkers = DEFAULT_MISSING_MARKERS;
  const missing = new Set(missingMarkers);
  for (const column of declared) {
    const encode = columnEncoder(column, { missingMarkers, outOfDomain: 'reject' });
    let misfits = 0;
    let first: string | undefined;
    for (const [text, count] of histograms.columns.get(column.name) ?? []) {
      // A database's texts are read as they are (not trimmed, unlike a CSV's fields).
      if (typeof encode(text) === 'string') {
        misfits += count;
        first ??= text;
      }
    }
    if (first === undefined) continue;
    const what = missing.has(first)
      ? 'a missing value, and the declared column has no missing category'
      : column.kind === 'categorical'
        ? `the value "${first}" is not among its declared categories`
        : numericParser(column)(first) === undefined
          ? `the value "${first}" is not a number`
          : `the value ${first} is outside its declared bounds`;
    throw new InputError(
      `${src.location}, column "${column.name}": ${what}. ${misfits} of the ${rows} rows do not fit the declared ` +
        'domain, and nothing was reserved: a declared column is used exactly and n is public and fixed. To release, ' +
        "widen the column's declared domain; or leave the column undeclared so that RAP Studio discovers its " +
        'domain privately.',
      { field: 'data', column: column.name },
    );
  }
  const limit = MAX_DISTINCT_TEXTS.toLocaleString('en-US');
  for (const name of undeclared) {
    const h = histograms.columns.get(name);
    if (!h || h.size <= MAX_DISTINCT_TEXTS) continue;
    let numbers = 0;
    let others = 0;
    for (const [text, count] of h) {
      const t = text;
      if (missing.has(t)) continue;
      if (!ZERO_PADDED.test(t) && parseNumber(t) !== undefined) numbers += count;
      else others += count;
    }
    const where = `${src.location}, column "${name}"`;
    const untouched = 'Nothing was reserved: the budget is untouched.';
    if (others > 0) {
      throw new InputError(
        `${where}: more than ${limit} distinct values, not all numbers; discovery finds at most ${limit} ` +
          `categories in a column. ${untouched} Leave the column out (--exclude; an identifier?), or declare its ` +
          'categories in a schema file.',
        { field: 'data', column: name },
      );
    }
    if (numbers < NUMERIC_SURE_SIGMAS * sigma1) {
      throw new InputError(
        `${where}: more than ${limit} distinct numbers, and at this ε too few of them for discovery to be sure ` +
          `the column is numeric. ${untouched} Declare its bounds in a schema file, or release at a larger ε.`,
        { field: 'data', column: name },
      );
    }
  }
}

/** What a database source cannot take, refused before anything is read: a header answer (a table names its columns). */
export function checkDatabaseSpec(spec: {
  readonly source: { readonly path: string; readonly header?: boolean };
}): void {
  const where = spec.source.path;
  if (spec.source.header !== undefined) {
    throw new InputError(`${where}: a database table names its columns; leave the header answer out.`, {
      field: 'header',
    });
  }
}

/** The ledger's key, which a database source's identity needs (prepare's options). */
export function ledgerKeyFor(src: PostgresSource, opts: { readonly ledgerKey?: Buffer }): Buffer {
  if (!opts.ledgerKey) {
    // Never a made-up key: the source would be a new dataset on every release, its budget unspent.
    throw new Error(`internal: ${src.location}: a database source needs the ledger's key to prepare`);
  }
  return opts.ledgerKey;
}

/** The dataset's default name in the ledger: database/[schema.]table (a file's is its base name). */
export function databaseDatasetName(src: PostgresSource): string {
  if (src.query !== undefined) return queryDatasetName(src);
  return `${src.database}/${src.schema ? `${src.schema}.` : ''}${src.table}`;
}

/**
 * validate for a database source: the per-column histograms of every column the release reads,
 * counted in the database (one query), checked for the curator (checkDatabaseValues).
 */
export async function validateDatabase(
  src: PostgresSource,
  prepared: {
    readonly raw: RawSourcePlan | null;
    readonly spec: { readonly source: { readonly schema: Schema } };
    readonly facts: { readonly rows: number };
  },
): Promise<void> {
  const { raw } = prepared;
  const declared = raw ? raw.declared : prepared.spec.source.schema.columns;
  const names = raw ? raw.header : declared.map((c) => c.name);
  const undeclared = raw?.undeclared ?? [];
  const histograms = await countHistograms(src, names);
  let sigma1 = 0;
  if (raw && undeclared.length > 0) {
    // A plain column's level-1 σ (checkDiscoverable's rule for a file).
    const { rho } = discoveryPerColumn(raw.budget, discoveryShares(raw.undeclared, raw.hierarchies).total);
    sigma1 = makeGaussianCounts(LEVEL1_SHARE * rho, LEVEL1_SENSITIVITY).sigma;
  }
  checkDatabaseValues(src, histograms, declared, undeclared, prepared.facts.rows, sigma1);
}

/** The release's rule (load.ts's for a file): a discovered column maps a stray value, a declared one refuses it. */
const OUT_OF_DOMAIN: OutOfDomainRule = (c) => (c.provenance?.source === 'declared' ? 'reject' : 'other');

/** What the database gives the engine: discovery's outcome (null: every column declared) and the exact tables. */
export interface DatabaseCounts {
  readonly discovery: DiscoveredSchema | null;
  readonly data: CountedDataset;
  /** Every released column's histogram (query 1): discovery's input, and the curator's private report's. */
  readonly histograms: ColumnHistograms;
}

/**
 * AFTER the reservation: discovery of the undeclared columns from per-column histograms counted in
 * the database (query 1), then the exact tables the engine needs (`featureSets` of the encoded
 * schema) counted in the database over those codes (query 2). No row leaves the database: only one
 * count per distinct value (query 1) or per combination of codes' texts (query 2). A database's
 * texts are read as they are (no trimming). Both queries read one snapshot. `n` is the row count
 * the ledger holds: a table whose count differs changed between the checks and the run.
 */
export async function discoverAndCountDatabase(
  src: PostgresSource,
  plan: RawSourcePlan | null,
  declared: Schema,
  n: number,
  noise: NoiseSource,
  featureSets: (schema: Schema) => readonly (readonly number[])[],
  signal?: AbortSignal,
): Promise<DatabaseCounts> {
  return withPostgres(
    src,
    async (client) => {
      // Query 1: every released column's histogram (discovery reads the undeclared ones).
      const names = plan ? plan.header : declared.columns.map((c) => c.name);
      const histograms = await columnHistograms(client, src, names);
      if (histograms.n !== n) throw tableChanged(src, n, histograms.n);
      let discovery: DiscoveredSchema | null = null;
      let schema = declared;
      if (plan) {
        const found = await discoverFromHistograms(src.location, plan.header, async () => histograms, {
          rho: plan.budget.rhoDiscovery > 0 ? plan.budget.rhoDiscovery : 1,
          delta: plan.budget.deltaDiscovery > 0 ? plan.budget.deltaDiscovery : 0.5,
          noise,
          declared: plan.declared,
          trim: false,
          ...(plan.hierarchies ? { hierarchies: plan.hierarchies } : {}),
          ...(plan.formats ? { formats: plan.formats } : {}),
        });
        const { histograms: _, ...rest } = found;
        discovery = rest;
        schema = rest.schema;
      }
      // Without discovery every column is as declared: used exactly, a stray value refused (validate checked).
      const rule: OutOfDomainRule = plan ? OUT_OF_DOMAIN : 'reject';
      // The schema the engine's codes are over: "(other)" where a discovered column takes it (load.ts's rule).
      const encoded = withOtherCategory(schema, rule);
      // Query 2: exactly the tables the engine reads, over the encoded codes.
      const sets = uniqueTableFeatures(featureSets(encoded));
      const counted = await countOnPostgres(client, src, encoded, sets, { outOfDomain: rule, trim: false });
      if (counted.n !== n) throw tableChanged(src, n, counted.n);
      const tables = new Map(sets.map((fs, i) => [fs.join(','), counted.tables[i]]));
      return { discovery, data: { kind: 'counted', schema: encoded, n, tables }, histograms };
    },
    signal,
    // One snapshot for both queries (a query source has one always): an UPDATE between them, which
    // keeps the row count the check above compares, cannot give the tables other data than discovery.
    { snapshot: true },
  );
}
