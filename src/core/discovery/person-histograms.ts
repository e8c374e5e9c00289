/**
 * Discovery at the person level from counts a SQL engine made of the bounded records (at most k
 * per person; counting/person-table.ts), instead of the streaming pass over the bounded file
 * (discover.ts's discoverSchema with `unit`). The streaming profile counts two kinds of thing:
 * - ROWS: types, the numeric grid, the format classes, the missing forms, the second pass with a
 *   chosen format's parser. Each is a function of the column's histogram of raw texts over the
 *   kept records, fed with weights exactly as at the row level (histograms.ts's feeder).
 * - PERSONS: each distinct value's count of distinct persons (ColumnCounts.values, the missing
 *   values under one key), and for a hierarchical column each level's keys and each missing
 *   marker (hierarchy-counts.ts). Which raw texts count under which key is the JS rule's
 *   (trimming, missing markers, hierarchy.ts's keyAt): here each raw text gets its labels in JS,
 *   and the engine counts distinct persons per label (the labels travel as data).
 * The counters so filled are the streaming profile's, so discoverFromProfile releases the same
 * schema under the same noise (test/unit/discovery/person-histograms.test.ts checks the counts
 * and the schemas on random files).
 *
 * Exact statistics of the private data: never logged, never released.
 */

import { keyAt } from '../data/hierarchy.ts';
import type { ColumnHistograms } from '../data/histograms.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import type { DiscoveredSchema, DiscoverOptions } from './discover.ts';
import { discoverFromProfile } from './discover.ts';
import type { ColumnFormat } from './formats.ts';
import { HierarchyCounts } from './hierarchy-counts.ts';
import { declaredIn, feeder, formatCounter } from './histograms.ts';
import { type CellCounter, ColumnCounts, MAX_DISTINCT_TEXTS, MISSING_KEY } from './profile.ts';

/** What counts the bounded records: rows per raw text, and distinct persons per label. */
export interface PersonCounter {
  rows(names: readonly string[]): Promise<ColumnHistograms>;
  persons(
    labels: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>,
  ): Promise<Map<string, Map<string, number>>>;
}

export interface PersonHistogramOptions extends Omit<DiscoverOptions, 'columns' | 'choice'> {
  readonly unit: NonNullable<DiscoverOptions['unit']>;
  /** Whether the streaming reader trims this source's texts (a CSV). */
  readonly trim: boolean;
}

/** The label of a value's distinct-person count (ColumnCounts.values' key). */
const valueLabel = (key: string) => `v${key}`;
const levelLabel = (level: number, key: string) => `l${level}:${key}`;
const formLabel = (form: number) => `m${form}`;

/**
 * The profile's counters of `names` at the person level: rows from `histograms`, persons from
 * `count.persons`. Second-pass counters (a chosen format) get the same persons.
 */
export async function personProfile(
  histograms: ColumnHistograms,
  names: readonly string[],
  count: PersonCounter['persons'],
  opts: Pick<PersonHistogramOptions, 'hierarchies' | 'missingMarkers' | 'trim'>,
): Promise<{ readonly columns: ColumnCounts[]; readonly persons: Map<string, Map<string, number>> }> {
  const markers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const feed = feeder(histograms, markers, opts.trim);
  const columns = names.map((name) => {
    const h = opts.hierarchies?.[name];
    return feed(
      name,
      h ? new HierarchyCounts(name, markers.length, h) : new ColumnCounts(name, markers.length),
    );
  });
  const forms = new Map(markers.map((m, i) => [m, i]));
  const labels = new Map<string, Map<string, string[]>>();
  for (const counts of columns) {
    // Past the distinct-value limit the column is refused (or numeric): no value counts needed.
    if (!counts.values) continue;
    const h = opts.hierarchies?.[counts.name];
    const own = new Map<string, string[]>();
    for (const raw of histograms.columns.get(counts.name)!.keys()) {
      const value = opts.trim ? raw.trim() : raw;
      const form = forms.get(value);
      const ls = [valueLabel(form === undefined ? value : MISSING_KEY)];
      if (h && form !== undefined) ls.push(formLabel(form));
      if (h && form === undefined) {
        for (let l = 0; l < h.levels.length; l++) {
          const key = keyAt(h, value, l);
          if (key === undefined) break;
          ls.push(levelLabel(l, key));
        }
      }
      own.set(raw, ls);
    }
    labels.set(counts.name, own);
  }
  const persons = await count(labels);
  for (const counts of columns) setPersons(counts, persons.get(counts.name));
  return { columns, persons };
}

/** A counter's distinct-person counts, replacing the rows its feeding counted. */
function setPersons(counts: CellCounter, persons: ReadonlyMap<string, number> | undefined): void {
  if (!(counts instanceof ColumnCounts) || !counts.values) return;
  if (!persons) throw new Error(`internal: no person counts for column "${counts.name}"`);
  const values = new Map<string, number>();
  for (const [label, n] of persons) if (label.startsWith('v')) values.set(label.slice(1), n);
  if (values.size !== counts.values.size) {
    throw new Error(
      `internal: column "${counts.name}" has ${counts.values.size} values, ${values.size} counted`,
    );
  }
  // The streaming profile keeps at most MAX_DISTINCT_TEXTS (feeding rows applied the same limit).
  counts.values = values.size > MAX_DISTINCT_TEXTS ? undefined : values;
  if (!(counts instanceof HierarchyCounts)) return;
  for (const m of counts.keyPersons) m.clear();
  counts.formPersons.fill(0);
  for (const [label, n] of persons) {
    if (label.startsWith('m')) counts.formPersons[Number(label.slice(1))] = n;
    else if (label.startsWith('l')) {
      const at = label.indexOf(':');
      counts.keyPersons[Number(label.slice(1, at))].set(label.slice(at + 1), n);
    }
  }
}

/**
 * Discovery of the undeclared columns of a person-level table whose columns are `header` (public;
 * the unit column among them, never profiled), from the bounded records' counts.
 */
export async function discoverFromPersonCounts(
  file: string,
  header: readonly string[],
  count: PersonCounter,
  opts: PersonHistogramOptions,
): Promise<DiscoveredSchema & { readonly histograms: ColumnHistograms }> {
  const markers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const declared = declaredIn(file, header, opts.declared);
  const names = header.filter((h) => !declared.has(h) && h !== opts.unit.column);
  const histograms = await count.rows(names);
  const { columns, persons } = await personProfile(histograms, names, count.persons, opts);
  const feed = feeder(histograms, markers, opts.trim);
  const again = async (chosen: ReadonlyMap<string, ColumnFormat>) =>
    new Map<string, CellCounter>(
      [...chosen].map(([name, f]) => {
        const counter = feed(name, formatCounter(name, f, markers.length));
        setPersons(counter, persons.get(name));
        return [name, counter];
      }),
    );
  const discovered = await discoverFromProfile(file, { header, records: histograms.n, columns }, again, opts);
  return { ...discovered, histograms };
}
