/**
 * The private read of a row-level raw release, after the reservation: DuckDB's counts where it
 * can (counted-source.ts: discovery on one scan's histograms, the engine's exact tables from a
 * second), the streaming reader's discovery and encoding where it cannot, with the reason. Either
 * way discovery is drawn once, from the same noise source, and gives the same schema.
 */

import { loadPersonTable } from '../counting/person-table.ts';
import { loadCountingTable } from '../counting/record-table.ts';
import type { SourceTable } from '../counting/source-table.ts';
import { columnEncoder } from '../data/encode.ts';
import type { FitCheck } from '../data/fit.ts';
import { tableFormat } from '../data/formats/format.ts';
import type { LoadResult } from '../data/load.ts';
import type { Schema } from '../data/schema.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import type { DiscoveredSchema } from '../discovery/discover.ts';
import type { HistogramCounter, HistogramStream } from '../discovery/histograms.ts';
import { discoverAndLoad, loadDiscovered, type RawSourcePlan } from '../discovery/raw-source.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import type { DuckDbOptions } from '../sql/duckdb.ts';
import {
  type CountedLoad,
  type CountedSource,
  type Counting,
  discoverAndCount,
  unreadable,
} from './counted-source.ts';

/**
 * The checks before the reservation found rows of another width: DuckDB (strict mode off, for
 * mixed line ends) would read a LONGER row as a record, its extra fields dropped, where the
 * streaming reader keeps the row as missing values; so such a file is streamed.
 */
export const RAGGED_ROWS = 'rows of another width (kept as missing values, as the streaming reader does)';

export type PrivateRead =
  | {
      readonly counting: Extract<Counting, { by: 'duckdb' }>;
      readonly discovery: DiscoveredSchema;
      readonly counted: CountedLoad;
    }
  | {
      readonly counting: Extract<Counting, { by: 'streaming' }>;
      readonly discovery: DiscoveredSchema;
      readonly loaded: LoadResult;
    };

export async function readRowLevelSource(
  plan: RawSourcePlan,
  n: number,
  noise: NoiseSource,
  featureSets: (schema: Schema) => readonly (readonly number[])[],
  opts: {
    readonly header?: boolean;
    readonly signal?: AbortSignal;
    readonly duckdb?: DuckDbOptions;
    /** Why the streaming reader counts even where DuckDB could (the checks found why; tests). */
    readonly streaming?: string;
    /** The file as the checks loaded it into DuckDB (countingCheck); the caller disposes it. */
    readonly table?: SourceTable;
  } = {},
): Promise<PrivateRead> {
  const stream = {
    ...(opts.header === undefined ? {} : { header: opts.header }),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const c: CountedSource =
    opts.streaming !== undefined
      ? { counting: { by: 'streaming', why: opts.streaming } }
      : await discoverAndCount(plan, n, noise, featureSets, {
          ...stream,
          ...(opts.duckdb ? { duckdb: opts.duckdb } : {}),
          ...(opts.table ? { table: opts.table } : {}),
        });
  if (c.counting.by === 'duckdb' && 'data' in c)
    return { counting: c.counting, discovery: c.discovery, counted: c.data };
  const counting = c.counting as Extract<Counting, { by: 'streaming' }>;
  if (c.discovery) {
    // Discovery ran (and drew its noise) on scan 1's histograms: only the encoding is streamed.
    const loaded = await loadDiscovered(plan.path, n, c.discovery, {
      ...stream,
      ...(plan.choice ? { choice: plan.choice } : {}),
    });
    return { counting, discovery: c.discovery, loaded };
  }
  // Nothing drawn yet: the streaming path from the start, with the same noise source.
  const found = await discoverAndLoad(plan, n, noise, stream);
  return { counting, discovery: found.discovery, loaded: found.loaded };
}

/**
 * What the checks before the reservation (fitOnTable, raw-source.ts's checkDiscoverable) count
 * with, where the run will count with DuckDB (a file source, per row or per person, in any format
 * it reads): the file parsed ONCE into a private DuckDB table (counting/source-table.ts;
 * another format's records appended to it: counting/record-table.ts; at the person level
 * counting/person-table.ts, which also finds each record's person, whatever the format), which the checks read now and the
 * run counts after the reservation. Where DuckDB cannot read the file as the streaming reader
 * does (a row of another width fails the strict load), the reason (the run streams, as it would
 * have after failing to read the file itself) and no counter (the checks stream). Nothing for
 * other sources.
 * The caller owns `table`: it disposes it on every way out.
 */
export async function countingCheck(
  prepared: {
    readonly raw: RawSourcePlan | null;
    readonly unit: { readonly spec: { readonly column: string } } | null;
    /** The file's facts as prepare read them (their `quotes` spares DuckDB's dialect scan). */
    readonly facts?: { readonly quotes?: boolean };
  },
  header: { readonly header?: boolean },
  signal?: AbortSignal,
  duckdb?: DuckDbOptions,
): Promise<{
  readonly counter?: HistogramCounter;
  readonly stream?: HistogramStream;
  readonly trim?: boolean;
  readonly table?: SourceTable;
  readonly streaming?: string;
}> {
  if (!prepared.raw) return {};
  const file = prepared.raw.path;
  let table: SourceTable;
  try {
    const load = {
      ...header,
      ...(signal ? { signal } : {}),
      ...(duckdb ? { duckdb } : {}),
    };
    // The person level: the records in file order, each one's person found (person-table.ts).
    table = prepared.unit
      ? await loadPersonTable(file, prepared.raw.header, prepared.unit.spec.column, load)
      : await loadCountingTable(file, prepared.raw.header, {
          ...load,
          ...(prepared.facts?.quotes === false ? { quotes: false } : {}),
        });
  } catch (err) {
    signal?.throwIfAborted();
    return { streaming: unreadable(err) };
  }
  return {
    counter: (names) => table.histograms(names, signal),
    ...(table.stream ? { stream: (names, sink) => table.stream!(names, sink, signal) } : {}),
    trim: tableFormat(file) === 'csv',
    table,
  };
}

/**
 * checkRawSource's answer (data/fit.ts) from the loaded table, without the streaming pass: the
 * records are the table's rows; no row has another width (the strict load refuses a file with one,
 * which the streaming check then reads); every declared column's distinct texts go through the
 * encoder the streaming check applies to each value (trimmed in a CSV, as its reader trims).
 * undefined where a declared column cannot hold a text: the streaming check then finds the first
 * record that has it, for the curator's message. Private counts, for the curator only.
 */
export async function fitOnTable(
  table: SourceTable,
  plan: RawSourcePlan,
  signal?: AbortSignal,
): Promise<FitCheck | undefined> {
  const names = plan.declared.map((c) => c.name);
  const trim = tableFormat(plan.path) === 'csv';
  const encoders = plan.declared.map((column) =>
    columnEncoder(column, { missingMarkers: DEFAULT_MISSING_MARKERS, outOfDomain: 'reject' }),
  );
  let misfit = false;
  const fits = (j: number, text: string) => {
    if (!misfit && typeof encoders[j](trim ? text.trim() : text) === 'string') misfit = true;
  };
  // Streamed where the table can (a declared column may hold millions of distinct texts).
  const records = table.stream
    ? await table.stream(names, fits, signal)
    : await table.histograms(names, signal).then((h) => {
        for (const [j, name] of names.entries())
          for (const text of h.columns.get(name)?.keys() ?? []) fits(j, text);
        return h.n;
      });
  return misfit ? undefined : { records, misfits: 0, first: null, ragged: 0 };
}
