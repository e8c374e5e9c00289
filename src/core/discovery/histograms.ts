/**
 * Discovery from per-column histograms: each column's distinct texts with their record counts,
 * counted by whatever holds the rows (an embedded DuckDB scan of a CSV or Parquet file,
 * counting/histograms.ts; a PostgreSQL table), instead of the streaming pass over the file.
 *
 * Everything discovery measures is a function of each column's multiset of texts: the profile's
 * counts (profile.ts: types, the numeric grid, the format classes, the distinct values with
 * MAX_DISTINCT_TEXTS), the second pass with a chosen format's parser (ColumnCounts with a locale
 * parser, temporal.ts's TemporalCounts) and the hierarchical codes (from the distinct values).
 * So the histograms are fed into the same counters with a weight (CellCounter.add), and the
 * same discoverFromProfile decides: equal histograms give the streaming pass's schema and noisy
 * outputs under the same noise (partition selection draws in code-point order of the keys,
 * privacy/partition-selection.ts, not in the order values were met). test/unit/discovery/discover-histograms.test.ts
 * checks it on messy files.
 *
 * Row level only: at the person level the counts are distinct persons per value, which a
 * per-column histogram of rows does not give (person-histograms.ts adds them, counted apart).
 *
 * The histograms are exact statistics of the private data: never logged, never released.
 */

import type { ColumnHistograms, HistogramCounter, HistogramStream } from '../data/histograms.ts';
import { DEFAULT_MISSING_MARKERS, numericParser, parseNumber } from '../data/values.ts';
import { InputError } from '../errors.ts';
import { type DiscoveredSchema, type DiscoverOptions, discoverFromProfile } from './discover.ts';
import type { ColumnFormat } from './formats.ts';
import { type CellCounter, ColumnCounts } from './profile.ts';
import { TemporalCounts } from './temporal.ts';

export type { ColumnHistograms, HistogramCounter, HistogramStream } from '../data/histograms.ts';

export interface HistogramDiscoverOptions extends Omit<DiscoverOptions, 'unit' | 'columns' | 'choice'> {
  /**
   * Whether the streaming reader trims this source's texts (CSV by default; not Parquet or a
   * database, whose texts it reads as they are): the counter's texts are trimmed here alike.
   */
  readonly trim?: boolean;
}

/** The declared columns' names, each one of the table's (`header`), or a message naming it. */
export function declaredIn(
  file: string,
  header: readonly string[],
  columns: readonly { readonly name: string }[] = [],
): Set<string> {
  const declared = new Set(columns.map((c) => c.name));
  for (const name of declared) {
    if (!header.includes(name)) {
      throw new InputError(
        `${file}: the declared column "${name}" is not in the table (it has: ${header.join(', ')}).`,
        { file, column: name },
      );
    }
  }
  return declared;
}

/**
 * Discovery of the undeclared columns of a table whose columns are `header` (public), from the
 * histograms `count` returns. `file` names the source in messages.
 */
export async function discoverFromHistograms(
  file: string,
  header: readonly string[],
  count: HistogramCounter,
  opts: HistogramDiscoverOptions,
): Promise<DiscoveredSchema & { readonly histograms: ColumnHistograms }> {
  const markers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const declared = declaredIn(file, header, opts.declared);
  const names = header.filter((h) => !declared.has(h));
  const histograms = await count(names);
  const feed = feeder(histograms, markers, opts.trim ?? true);
  const columns = names.map((name) => feed(name, new ColumnCounts(name, markers.length)));
  const again = async (chosen: ReadonlyMap<string, ColumnFormat>) =>
    new Map<string, CellCounter>(
      [...chosen].map(([name, f]) => [name, feed(name, formatCounter(name, f, markers.length))]),
    );
  const discovered = await discoverFromProfile(file, { header, records: histograms.n, columns }, again, opts);
  return { ...discovered, histograms };
}

/**
 * Most distinct raw texts a column's histogram keeps whole beside a streamed discovery
 * (discoverFromStream): a wider column (a continuous one, with millions) is fed to the counters as
 * it streams and read again for a second pass; the count that past this stops keeping it.
 */
export const KEPT_TEXTS = 100_000;

/** A streamed discovery's histograms: every column's, but a wide column's (past KEPT_TEXTS) left out. */
export interface KeptHistograms extends ColumnHistograms {
  /** The columns streamed but not kept (more distinct raw texts than the limit). */
  readonly wide: readonly string[];
  /** Every streamed column's number of distinct raw texts (counting/tables.ts CountOptions.texts). */
  readonly texts: ReadonlyMap<string, number>;
}

/**
 * discoverFromHistograms over a STREAMED histogram (a loaded DuckDB table: counting/source-table.ts
 * `stream`): `names` (all of `header` the caller wants histograms of; the undeclared ones are
 * discovered) stream once, each distinct text fed to its column's counter as it comes, so no
 * column is held whole; each column's histogram is kept for the caller up to `keep` distinct texts
 * (KEPT_TEXTS; a wider column is listed in `wide`). The second pass (a chosen format's parser)
 * feeds a kept histogram, and streams a wide column again. Counts are a function of each column's
 * multiset of texts, not of their order: the same schema and noisy outputs as
 * discoverFromHistograms and the streaming pass under the same noise.
 */
export async function discoverFromStream(
  file: string,
  header: readonly string[],
  names: readonly string[],
  stream: HistogramStream,
  opts: HistogramDiscoverOptions & { readonly keep?: number },
): Promise<DiscoveredSchema & { readonly histograms: KeptHistograms }> {
  const markers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const declared = declaredIn(file, header, opts.declared);
  const undeclared = header.filter((h) => !declared.has(h));
  const all = [...new Set([...names, ...undeclared])];
  const keep = opts.keep ?? KEPT_TEXTS;
  const cell = cellFeeder(markers, opts.trim ?? true);
  const counters = new Map(undeclared.map((name) => [name, new ColumnCounts(name, markers.length)]));
  const fed = all.map((name) => counters.get(name));
  const kept: (Map<string, number> | undefined)[] = all.map(() => new Map());
  const totals = new Float64Array(all.length);
  const distinct = new Float64Array(all.length);
  const n = await stream(all, (j, raw, count) => {
    const counter = fed[j];
    if (counter) cell(counter, raw, count);
    totals[j] += count;
    distinct[j]++;
    const m = kept[j];
    if (m) {
      m.set(raw, (m.get(raw) ?? 0) + count);
      if (m.size > keep) kept[j] = undefined;
    }
  });
  for (const [j, name] of all.entries()) checkTotal(name, totals[j], n);
  const wide = all.filter((_, j) => !kept[j]);
  const columns = new Map<string, ReadonlyMap<string, number>>();
  all.forEach((name, j) => {
    const m = kept[j];
    if (m && names.includes(name)) columns.set(name, m);
  });
  const again = async (chosen: ReadonlyMap<string, ColumnFormat>) => {
    const out = new Map<string, CellCounter>();
    const restream: string[] = [];
    for (const [name, f] of chosen) {
      const counter = formatCounter(name, f, markers.length);
      out.set(name, counter);
      const m = kept[all.indexOf(name)];
      if (m) for (const [raw, count] of m) cell(counter, raw, count);
      else restream.push(name);
    }
    if (restream.length > 0) {
      const seen = new Float64Array(restream.length);
      const rows = await stream(restream, (j, raw, count) => {
        cell(out.get(restream[j])!, raw, count);
        seen[j] += count;
      });
      if (rows !== n) throw new Error(`internal: the second pass counts ${rows} records, the first ${n}`);
      for (const [j, name] of restream.entries()) checkTotal(name, seen[j], n);
    }
    return out;
  };
  const discovered = await discoverFromProfile(
    file,
    { header, records: n, columns: undeclared.map((name) => counters.get(name)!) },
    again,
    opts,
  );
  const texts = new Map(all.map((name, j) => [name, distinct[j]]));
  return { ...discovered, histograms: { n, columns, wide: wide.filter((w) => names.includes(w)), texts } };
}

/** A column's types and distinct values as the profile counts them (ColumnCounts), without its grid or format classes. */
export type TypeCounts = Pick<
  ColumnCounts,
  'name' | 'missing' | 'missingForms' | 'numbers' | 'texts' | 'padded' | 'fractional' | 'values' | 'total'
>;

/**
 * The profile's counts of `names` from a streamed histogram for raw-source.ts's check before
 * reserving (refuseUndiscoverable reads their types and distinct values; no format classes).
 */
export async function countsFromStream(
  stream: HistogramStream,
  names: readonly string[],
  markers: readonly string[],
  trim: boolean,
  signal?: AbortSignal,
): Promise<TypeCounts[]> {
  const cell = cellFeeder(markers, trim);
  // The check reads types and distinct values only: the plain parser given outright spares the
  // format classes, and no grid (the same numbers, texts, padded codes and values).
  const counters = names.map((name) => new ColumnCounts(name, markers.length, parseNumber, false));
  const n = await stream(names, (j, raw, count) => cell(counters[j], raw, count), signal);
  for (const c of counters) checkTotal(c.name, c.total, n);
  return counters;
}

function checkTotal(name: string, total: number, n: number): void {
  if (total !== n) throw new Error(`internal: column "${name}" counts ${total} records, the table ${n}`);
}

/** Feeds one distinct raw text with its count into a counter as the streaming profile feeds a cell. */
function cellFeeder(markers: readonly string[], trim: boolean) {
  // As DiscoveryProfile: a value is missing when it is one of the markers (the last index of a repeated one).
  const forms = new Map(markers.map((m, i) => [m, i]));
  return (counter: CellCounter, raw: string, count: number): void => {
    const value = trim ? raw.trim() : raw;
    const form = forms.get(value);
    counter.add(value, form !== undefined, form ?? 0, count);
  };
}

/** The profile's counts of `names` from their histograms (raw-source.ts's check before reserving). */
export function countsFromHistograms(
  histograms: ColumnHistograms,
  names: readonly string[],
  markers: readonly string[],
  trim: boolean,
): ColumnCounts[] {
  const feed = feeder(histograms, markers, trim);
  return names.map((name) => feed(name, new ColumnCounts(name, markers.length)));
}

/** The second pass's counter of a column whose format was chosen (discover.ts's profileFormats). */
export function formatCounter(name: string, f: ColumnFormat, forms: number): CellCounter {
  return f.temporal
    ? new TemporalCounts(name, f.temporal, forms)
    : new ColumnCounts(name, forms, numericParser(f));
}

/** Feeds a column's histogram into a counter as the streaming profile feeds its cells. */
export function feeder(histograms: ColumnHistograms, markers: readonly string[], trim: boolean) {
  const cell = cellFeeder(markers, trim);
  return <C extends CellCounter>(name: string, counter: C): C => {
    const histogram = histograms.columns.get(name);
    if (!histogram) throw new Error(`internal: no histogram for column "${name}"`);
    let total = 0;
    for (const [raw, count] of histogram) {
      cell(counter, raw, count);
      total += count;
    }
    checkTotal(name, total, histograms.n);
    return counter;
  };
}
