/**
 * A raw file source (CSV, Parquet, and the formats below) counted by an embedded DuckDB after the reservation, instead of
 * the streaming reader's passes: scan 1 counts every column's histogram of raw texts (one
 * GROUPING SETS query), discovery runs on them (discovery/histograms.ts: the same schema and
 * noisy outputs as the streaming pass), scan 2 counts the exact tables the engine needs over the
 * discovered codes (counting/tables.ts). No row is held: memory is the histograms' and the
 * tables', whatever the row count.
 *
 * An Excel, SPSS, Stata or SAS file is counted the same way from the table its reader's records
 * were appended to before the reservation (counting/record-table.ts).
 *
 * The streaming path stays the fallback, and the release says which one counted (`Counting`):
 * wherever DuckDB would read the file otherwise than the streaming reader (NotForDuckDb) or cannot read it as
 * declared (a row of the wrong width, which the streaming reader keeps as missing values). A
 * fallback after scan 1 keeps its discovery (paid once): only the encoding
 * is streamed.
 *
 * Private values stay in DuckDB's memory and its private spill folder (sql/duckdb.ts, removed
 * on every way out); its error messages may quote a value and are never shown or recorded.
 */
import { fileHistogramCounter } from '../counting/histograms.ts';
import type { SourceTable } from '../counting/source-table.ts';
import { countFileTables, NotForDuckDb } from '../counting/tables.ts';
import { type CountedDataset, tableKey, uniqueTableFeatures } from '../data/counted.ts';
import { type OutOfDomainRule, withOtherCategory } from '../data/encode.ts';
import { tableFormat } from '../data/formats/format.ts';
import type { HeaderMode } from '../data/header.ts';
import type { Schema } from '../data/schema.ts';
import { readTableHeader } from '../data/table.ts';
import type { DiscoveredSchema } from '../discovery/discover.ts';
import {
  type ColumnHistograms,
  discoverFromHistograms,
  discoverFromStream,
  type KeptHistograms,
} from '../discovery/histograms.ts';
import type { RawSourcePlan } from '../discovery/raw-source.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import type { DuckDbOptions } from '../sql/duckdb.ts';
import { sampleStride } from './report/fidelity.ts';

/** Which reader counted the private data, and why the streaming one where it did (public facts). */
export type Counting =
  | { readonly by: 'duckdb' }
  | { readonly by: 'streaming'; readonly why: string }
  /** A PostgreSQL table: counted inside the database (release/database.ts). */
  | { readonly by: 'postgresql' };

/**
 * A counted source as the release's outputs read a load (release/output.ts, the report): the
 * exact tables instead of the encoded rows, the public header, and scan 1's histograms for the
 * curator's private report (report/fidelity.ts). Private: never logged, never released.
 */
export interface CountedLoad {
  readonly kind: 'counted';
  readonly dataset: CountedDataset;
  readonly summary: { readonly hasHeader: boolean };
  /** The released columns' names in file order (the column choice applied). */
  readonly header: readonly string[];
  readonly histograms: ColumnHistograms;
  /**
   * The report's samples of the columns whose histograms are not kept (more distinct texts than
   * discovery/histograms.ts KEPT_TEXTS: a continuous column), counted in DuckDB.
   */
  readonly samples?: ReadonlyMap<string, readonly string[]>;
  /** Whether the streaming reader trims the histograms' texts (CSV). */
  readonly trimmed: boolean;
}

/** Whether DuckDB reads the file itself (CSV, Parquet); another format is counted from a loaded table only. */
function readByDuckDb(file: string): boolean {
  const format = tableFormat(file);
  return format === 'csv' || format === 'parquet';
}

/** The rule every release load uses: a discovered column maps a stray value, a declared one refuses it. */
export const RELEASE_OUT_OF_DOMAIN: OutOfDomainRule = (c) =>
  c.provenance?.source === 'declared' ? 'reject' : 'other';

export type CountedSource =
  | {
      readonly counting: { readonly by: 'duckdb' };
      readonly discovery: DiscoveredSchema;
      readonly data: CountedLoad;
    }
  | {
      readonly counting: { readonly by: 'streaming'; readonly why: string };
      /** Discovery already done (and paid) on scan 1's histograms, when scan 2 failed. */
      readonly discovery?: DiscoveredSchema;
    };

export interface CountedSourceOptions {
  readonly header?: HeaderMode;
  readonly signal?: AbortSignal;
  readonly duckdb?: DuckDbOptions;
  /**
   * The file already parsed into DuckDB by the check before the reservation (one parse for the
   * whole release: counting/source-table.ts); the caller disposes it. Absent: DuckDB reads the file.
   */
  readonly table?: SourceTable;
  /** Most distinct texts a column's histogram keeps (discovery/histograms.ts KEPT_TEXTS; tests lower it). */
  readonly keep?: number;
}

/**
 * AFTER the reservation, at the row level: discovery and the exact tables `featureSets` names
 * (given the encoded schema), counted by DuckDB; or why the streaming path must count instead.
 * `n` is the record count the ledger holds: a file whose count differs changed during the run.
 */
export async function discoverAndCount(
  plan: RawSourcePlan,
  n: number,
  noise: NoiseSource,
  featureSets: (schema: Schema) => readonly (readonly number[])[],
  opts: CountedSourceOptions = {},
): Promise<CountedSource> {
  if (!opts.table && !readByDuckDb(plan.path)) {
    return {
      counting: {
        by: 'streaming',
        why: `a ${tableFormat(plan.path)} file not loaded into DuckDB before the run`,
      },
    };
  }
  const header = opts.header === undefined ? {} : { header: opts.header };
  const duckdb = {
    ...header,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.duckdb ? { duckdb: opts.duckdb } : {}),
  };
  // Every released column's histogram: discovery reads the undeclared ones, the curator's private
  // report every one (report/fidelity.ts), so the file is not read again for it.
  const names = plan.header;
  // With every column declared nothing is measured (discovery's budget is then a placeholder).
  const discoverOpts = {
    rho: plan.budget.rhoDiscovery > 0 ? plan.budget.rhoDiscovery : 1,
    delta: plan.budget.deltaDiscovery > 0 ? plan.budget.deltaDiscovery : 0.5,
    noise,
    declared: plan.declared,
    trim: tableFormat(plan.path) === 'csv',
    ...(plan.hierarchies ? { hierarchies: plan.hierarchies } : {}),
    ...(plan.formats ? { formats: plan.formats } : {}),
  };
  // Scan 1, before any noise: a failure here costs nothing, the streaming path starts afresh.
  let histograms: ColumnHistograms;
  let discovery: DiscoveredSchema & { readonly histograms: ColumnHistograms };
  let wide: readonly string[] = [];
  let texts: ReadonlyMap<string, number> | undefined;
  const stream = opts.table?.stream;
  if (stream) {
    // Streamed: each distinct text counted as it comes, a wide column's never held whole.
    let streamed = false;
    let mismatch = false;
    try {
      discovery = await discoverFromStream(
        plan.path,
        plan.header,
        names,
        async (columns, sink) => {
          const rows = await stream(columns, sink, opts.signal);
          mismatch = !streamed && rows !== n;
          if (mismatch) throw changed(plan.path, n, rows);
          streamed = true;
          return rows;
        },
        { ...discoverOpts, ...(opts.keep === undefined ? {} : { keep: opts.keep }) },
      );
    } catch (err) {
      // Past the first stream discovery may have drawn noise: its failure is the release's.
      if (streamed || mismatch) throw err;
      opts.signal?.throwIfAborted();
      return { counting: { by: 'streaming', why: unreadable(err) } };
    }
    const kept = discovery.histograms as KeptHistograms;
    histograms = { n: kept.n, columns: kept.columns };
    wide = kept.wide;
    texts = kept.texts;
  } else {
    try {
      histograms = opts.table
        ? await opts.table.histograms(names, opts.signal)
        : await fileHistogramCounter(plan.path, duckdb)(names);
    } catch (err) {
      opts.signal?.throwIfAborted();
      return { counting: { by: 'streaming', why: unreadable(err) } };
    }
    if (histograms.n !== n) throw changed(plan.path, n, histograms.n);
    discovery = await discoverFromHistograms(plan.path, plan.header, async () => histograms, discoverOpts);
  }
  const { histograms: _, ...found } = discovery;
  // The schema the streaming load encodes with (load.ts): "(other)" where a discovered column takes it.
  const schema = withOtherCategory(found.schema, RELEASE_OUT_OF_DOMAIN);
  const sets = uniqueTableFeatures(featureSets(schema));
  let counted: Awaited<ReturnType<typeof countFileTables>>;
  try {
    const count = {
      outOfDomain: RELEASE_OUT_OF_DOMAIN,
      trim: tableFormat(plan.path) === 'csv',
      ...(texts ? { texts } : {}),
    };
    counted = opts.table
      ? await opts.table.tables(schema, sets, { ...count, ...(opts.signal ? { signal: opts.signal } : {}) })
      : await countFileTables(plan.path, schema, sets, { ...duckdb, ...count });
  } catch (err) {
    opts.signal?.throwIfAborted();
    return { counting: { by: 'streaming', why: unreadable(err) }, discovery: found };
  }
  if (counted.n !== n) throw changed(plan.path, n, counted.n);
  const tables = new Map(sets.map((fs, i) => [tableKey(fs), counted.tables[i]]));
  // The curator's report samples of the wide columns (private; their histograms were not kept).
  const samples = new Map<string, readonly string[]>();
  for (const name of wide) {
    const sample = await opts.table?.textSample?.(name, sampleStride(n), opts.signal);
    if (sample) samples.set(name, sample);
  }
  const shape = await readTableHeader(plan.path, {
    ...header,
    expectedNames: schema.columns.map((c) => c.name),
  });
  return {
    counting: { by: 'duckdb' },
    discovery: found,
    data: {
      kind: 'counted',
      dataset: { kind: 'counted', schema, n, tables },
      summary: { hasHeader: shape.hasHeader },
      header: plan.header,
      histograms,
      ...(samples.size > 0 ? { samples } : {}),
      trimmed: tableFormat(plan.path) === 'csv',
    },
  };
}

/** Public words for why DuckDB did not count: never its message (it may quote a value). */
export function unreadable(err: unknown): string {
  if (err instanceof NotForDuckDb) {
    return 'DuckDB would split a line otherwise than the streaming reader (a quote after spaces)';
  }
  // DuckDB's own words for it (no value of the file in them).
  if (err instanceof Error && /out of memory/i.test(err.message)) {
    return 'DuckDB ran out of its memory limit counting the file';
  }
  return 'DuckDB could not read the file as the streaming reader does (a row of another width, or another dialect)';
}

function changed(file: string, n: number, counted: number): Error {
  return new Error(
    `${file}: the file has ${n} records, but ${counted} were counted; did it change during the run?`,
  );
}
