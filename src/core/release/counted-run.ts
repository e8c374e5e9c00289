/**
 * The private read of a row-level raw release, after the reservation: DuckDB's counts where it
 * can (counted-source.ts: discovery on one scan's histograms, the engine's exact tables from a
 * second), the streaming reader's discovery and encoding where it cannot, with the reason. Either
 * way discovery is drawn once, from the same noise source, and gives the same schema.
 */

import { fileHistogramCounter } from '../counting/histograms.ts';
import { tableFormat } from '../data/formats/format.ts';
import type { LoadResult } from '../data/load.ts';
import type { Schema } from '../data/schema.ts';
import type { DiscoveredSchema } from '../discovery/discover.ts';
import type { HistogramCounter } from '../discovery/histograms.ts';
import { discoverAndLoad, loadDiscovered, type RawSourcePlan } from '../discovery/raw-source.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import type { DuckDbOptions } from '../sql/duckdb.ts';
import {
  type CountedLoad,
  type CountedSource,
  type Counting,
  discoverAndCount,
  streamingOnly,
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
 * The histogram counter for the check before the reservation (raw-source.ts's checkDiscoverable),
 * where the run will count with DuckDB: a row-level CSV or Parquet source with no row of another
 * width. Empty (the streaming pass) otherwise.
 */
export function countingCheck(
  prepared: { readonly raw: RawSourcePlan | null; readonly unit: unknown },
  ragged: number,
  header: { readonly header?: boolean },
  signal?: AbortSignal,
): { readonly counter?: HistogramCounter; readonly trim?: boolean } {
  if (!prepared.raw || prepared.unit || ragged > 0) return {};
  const file = prepared.raw.path;
  if (streamingOnly(file, false) !== undefined) return {};
  return {
    counter: fileHistogramCounter(file, { ...header, ...(signal ? { signal } : {}) }),
    trim: tableFormat(file) === 'csv',
  };
}
