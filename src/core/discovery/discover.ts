/**
 * Private domain discovery: from the raw CSV and the columns the curator declared, a schema whose
 * every column says where its domain came from (declared: used exactly, free; discovered: with
 * differential privacy, at a stated ρ and δ). One pass over the file keeps exact counts only
 * (profile.ts); everything released is a noisy function of them.
 *
 * Budget: the discovery ρ is split equally over the undeclared columns; in each column
 * LEVEL1_SHARE of it measures level 1 (type, bounds; numeric.ts) and the rest either level 2 (numeric) or
 * partition selection (categorical; the column's δ share is δ / undeclared columns). Each column
 * therefore costs the same whatever the data says, and the whole discovery is δ-approximately
 * ρ-zCDP by composition (ρ's add, δ's add).
 *
 * Formats: FORMAT_SHARE of a column's ρ first measures its format classes (formats.ts): dates,
 * times, datetimes, or numbers in a locale's format. A column so found is profiled again with
 * its format's parser and discovered on the calendar grid (temporal.ts) or as numbers
 * (numeric.ts); the others go on as before. A column whose format the curator declared
 * (`formats`) skips the test and spends its whole ρ on levels 1 and 2.
 */
import { OTHER_CATEGORY } from '../data/encode.ts';
import { describeNumberFormat } from '../data/formats.ts';
import type { Hierarchy } from '../data/hierarchy.ts';
import { Rejections } from '../data/rejections.ts';
import { type Column, type ColumnProvenance, SCHEMA_VERSION, type Schema } from '../data/schema.ts';
import { readTable, type TableOptions } from '../data/table.ts';
import { DEFAULT_MISSING_MARKERS, numericParser } from '../data/values.ts';
import { InputError } from '../errors.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { discoveryForColumn } from './budget-split.ts';
import { discoverCategorical } from './categorical.ts';
import { type ColumnFormat, type FormatTest, testFormats } from './formats.ts';
import { discoverHierarchical, type HierarchicalDiscovery } from './hierarchical.ts';
import { HierarchyCounts } from './hierarchy-counts.ts';
import { discoverNumeric, looksNumeric, measureLevel1, missingForm } from './numeric.ts';
import { categoricalOneWay, type DiscoveredOneWay, numericOneWay } from './one-way.ts';
import { type CellCounter, ColumnCounts, DiscoveryProfile } from './profile.ts';
import { discoverTemporal, TemporalCounts } from './temporal.ts';

/**
 * Share of an undeclared column's ρ spent on the format test (formats.ts). The class histogram
 * has sensitivity √2 and its choice needs one candidate at 4σ_f: at ε = 1 on hospital-visits
 * (26,580 rows, 13 columns) σ_f is about 330 rows, far below any format a column mostly uses.
 */
export const FORMAT_SHARE = 0.1;

/**
 * Share of a column's ρ spent on level 1 (type and bounds). Measured on adult.data at ε = 0.1
 * (3 seeds, `raw` suite): 0.25 left education-num's lowest octaves under the bar (KS 0.117);
 * 0.4 fixed that but hours-per-week's [16, 32) octave was missed in some seeds (KS up to 0.169);
 * 0.5, with the neighbour bar at 1.5σ₁ (numeric.ts), gave max KS 0.0998 and mean 0.062.
 */
export const LEVEL1_SHARE = 0.5;
/**
 * Default share of a release's ρ spent on discovering the undeclared columns (chosen by the
 * `raw-share` bench suite; see docs/privacy.md).
 */
export const DEFAULT_DISCOVERY_SHARE = 0.2;
/** Default bins of a discovered numeric column (see docs/privacy.md for the measurement). */
export const DEFAULT_DISCOVERED_BINS = 16;

export interface DiscoverOptions
  extends Pick<
    TableOptions,
    'header' | 'columns' | 'choice' | 'delimiter' | 'trim' | 'maxRecordChars' | 'signal'
  > {
  /** zCDP budget of the whole discovery. */
  readonly rho: number;
  /** δ for partition selection, over all columns. */
  readonly delta: number;
  readonly noise: NoiseSource;
  /** Columns the curator declared, by name: used exactly, cost nothing. */
  readonly declared?: readonly Column[];
  readonly bins?: number;
  readonly missingMarkers?: readonly string[];
  /**
   * The person level: the file holds at most `bound` rows per person, grouped by person, the
   * person named by `column` (profiled for nobody: never discovered, never in the schema), and
   * `rows` is the public noisy row count n̂ that replaces n. Every count's sensitivity is
   * multiplied by k, and partition selection counts distinct persons (docs/privacy.md).
   */
  readonly unit?: { readonly column: string; readonly bound: number; readonly rows: number };
  /**
   * Undeclared columns the curator marked as hierarchical codes (hierarchy.ts): discovered level
   * by level (hierarchical.ts) with the column's whole ρ and δ — a code column by declaration, so
   * no type test (level 1) is spent on it.
   */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
  /**
   * Columns whose temporal or number format the curator declared (public) but whose domain is
   * discovered: no format test, the format's parser and grid (a Table Schema's `date` field
   * without bounds, the app's "date or time").
   */
  readonly formats?: ReadonlyMap<string, ColumnFormat>;
}

export interface ColumnDiscovery {
  readonly name: string;
  readonly provenance: ColumnProvenance;
  /** Public facts of the mechanisms (σ's, threshold), for reports. */
  readonly detail?: Readonly<Record<string, number | string>>;
}

export interface DiscoveredSchema {
  readonly schema: Schema;
  readonly columns: readonly ColumnDiscovery[];
  /** ρ and δ spent (0 when every column was declared). */
  readonly rho: number;
  readonly delta: number;
  /** Records read (the header excluded; rows of the wrong width included): n. */
  readonly records: number;
  readonly header: readonly string[];
  /**
   * Each discovered column's one-way marginal over its released codes, from discovery's own noisy
   * counts (one-way.ts: post-processing, already paid): the engine's one-way measurements. Row
   * level only (at the person level the categorical counts are persons, not rows).
   */
  readonly paidOneWays: ReadonlyMap<string, DiscoveredOneWay>;
}

/** A hierarchical column's public facts: each level's mechanism, σ, threshold, ρ, δ and keys. */
function hierarchicalDetail(d: HierarchicalDiscovery): Record<string, number | string> {
  const detail: Record<string, number | string> = {
    kind: 'hierarchical',
    levels: d.levels.length,
    otherCount: d.other.count,
    otherSigma: d.other.sigma,
  };
  for (const l of d.levels) {
    const at = `level${l.level + 1}`;
    detail[`${at}Length`] = l.length;
    detail[`${at}Mechanism`] = l.mechanism;
    detail[`${at}Sigma`] = l.sigma;
    detail[`${at}Threshold`] = l.threshold;
    detail[`${at}Rho`] = l.rho;
    detail[`${at}Delta`] = l.delta;
    detail[`${at}Released`] = l.released;
  }
  return detail;
}

function withProvenance(column: Column, provenance: ColumnProvenance): Column {
  return { ...column, provenance };
}

function checkBudget(opts: DiscoverOptions): void {
  if (!(opts.rho > 0) || !Number.isFinite(opts.rho))
    throw new RangeError(`discovery rho must be > 0, got ${opts.rho}`);
  if (!(opts.delta > 0 && opts.delta < 1))
    throw new RangeError(`discovery delta must be in (0, 1), got ${opts.delta}`);
}

export async function discoverSchema(file: string, opts: DiscoverOptions): Promise<DiscoveredSchema> {
  checkBudget(opts);
  const missingMarkers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const declared = new Map((opts.declared ?? []).map((c) => [c.name, c]));
  let profile: DiscoveryProfile | undefined;
  let header: readonly string[] = [];
  const rejections = new Rejections();
  const table = await readTable(
    file,
    {
      start(shape) {
        header = shape.header;
        for (const name of declared.keys()) {
          if (!header.includes(name)) {
            throw new InputError(
              `${file}: the declared column "${name}" is not in the table (it has: ${header.join(', ')}).`,
              {
                file,
                column: name,
              },
            );
          }
        }
        profile = new DiscoveryProfile(
          header.filter((h) => !declared.has(h) && h !== opts.unit?.column),
          missingMarkers,
          opts.unit?.column,
          // At the person level a hierarchical column counts distinct persons per key (hierarchy-counts.ts).
          (name, forms) => {
            const h = opts.unit ? opts.hierarchies?.[name] : undefined;
            return h ? new HierarchyCounts(name, forms, h) : new ColumnCounts(name, forms);
          },
        );
        profile.start(file, header);
      },
      row: (values) => profile!.row(values),
    },
    rejections,
    // Rows of the wrong width still count in n: they are missing in every column.
    { ...opts, missingMarkers, raggedAsMissing: true },
  );

  return discoverFromProfile(
    file,
    { header, records: table.rowsRead, columns: profile!.columns },
    (chosen) => profileFormats(file, chosen, missingMarkers, opts, new Rejections()),
    opts,
  );
}

/** Exact per-column counts of the whole table (private), however they were counted. */
export interface ProfiledTable {
  /** The table's columns (the unit column included at the person level). */
  readonly header: readonly string[];
  /** Records (the header excluded; rows of the wrong width included): n. */
  readonly records: number;
  /** The undeclared columns' counts, in header order. */
  readonly columns: readonly ColumnCounts[];
}

/**
 * Discovery from exact counts: everything released is a noisy function of `profiled` and of
 * `again` (the second pass: the chosen columns' counts with their format's parser). Both the
 * streaming pass (discoverSchema) and per-column histograms from a SQL engine (histograms.ts)
 * end here, so equal counts give equal schemas under equal noise.
 */
export async function discoverFromProfile(
  file: string,
  profiled: ProfiledTable,
  again: (chosen: ReadonlyMap<string, ColumnFormat>) => Promise<Map<string, CellCounter>>,
  opts: DiscoverOptions,
): Promise<DiscoveredSchema> {
  checkBudget(opts);
  const missingMarkers = opts.missingMarkers ?? DEFAULT_MISSING_MARKERS;
  const declared = new Map((opts.declared ?? []).map((c) => [c.name, c]));
  const { header } = profiled;
  const undeclared = profiled.columns.length;
  const undeclaredNames = profiled.columns.map((c) => c.name);
  // Each column's ρ_c and δ_c: an equal share, a hierarchical column one share per level (budget-split.ts).
  const costOf = (name: string) =>
    discoveryForColumn(
      { rhoDiscovery: opts.rho, deltaDiscovery: opts.delta },
      undeclaredNames,
      opts.hierarchies,
      name,
    );
  const bins = opts.bins ?? DEFAULT_DISCOVERED_BINS;
  const found = new Map<string, { column: Column; detail: Record<string, number | string> }>();
  // n is public at the row level; at the person level the noisy bounded row count n̂ stands for it.
  const n = opts.unit ? opts.unit.rows : profiled.records;
  const bound = opts.unit?.bound ?? 1;
  const paidOneWays = new Map<string, DiscoveredOneWay>();
  // The format test (or the curator's declared format) of every profiled column.
  const tests = new Map<string, FormatTest>();
  const chosen = new Map<string, ColumnFormat>();
  for (const counts of profiled.columns) {
    const { rho: rhoColumn } = costOf(counts.name);
    // A hierarchical column is a code column by declaration: no format test (discovered below).
    if (opts.hierarchies?.[counts.name]) continue;
    const declaredFormat = opts.formats?.get(counts.name);
    if (declaredFormat) {
      chosen.set(counts.name, declaredFormat);
      continue;
    }
    const test = testFormats(counts.classes!, FORMAT_SHARE * rhoColumn, opts.noise, bound);
    tests.set(counts.name, test);
    if (test.choice) chosen.set(counts.name, test.choice);
  }
  const second = chosen.size > 0 ? await again(chosen) : undefined;
  for (const counts of profiled.columns) {
    const { rho: rhoColumn, delta: deltaColumn } = costOf(counts.name);
    const hierarchy = opts.hierarchies?.[counts.name];
    if (hierarchy) {
      const d = discoverHierarchical(
        counts,
        hierarchy,
        rhoColumn,
        deltaColumn,
        opts.noise,
        file,
        n,
        bound,
        missingMarkers,
      );
      found.set(counts.name, { column: d.column, detail: hierarchicalDetail(d) });
      continue;
    }
    const test = tests.get(counts.name);
    // What is left of the column's ρ after its format test (all of it for a declared format).
    const rhoLeft = test ? rhoColumn - test.rho : rhoColumn;
    const formatDetail: Record<string, number | string> = test ? { formatSigma: test.sigma } : {};
    const format = chosen.get(counts.name);
    const again = second?.get(counts.name);
    if (format?.temporal && again instanceof TemporalCounts) {
      const d = discoverTemporal(again, LEVEL1_SHARE * rhoLeft, (1 - LEVEL1_SHARE) * rhoLeft, opts.noise, {
        bins,
        bound,
      });
      // A released missing category is written in the source's form (level 1's noisy per-marker counts).
      const missingText = missingMarkers[d.missingForm] ?? missingMarkers[0] ?? '';
      const written = (c: Column): Column => (c.missing ? { ...c, missingText } : c);
      found.set(counts.name, {
        column: written(d.column),
        detail: {
          kind: format.temporal.kind,
          format: format.temporal.format,
          ...formatDetail,
          level1Sigma: d.level1Sigma,
          level2Sigma: d.level2Sigma,
          missingCount: d.missing.count,
          missingSigma: d.missing.sigma,
        },
      });
      continue;
    }
    const numbers = format?.numberFormat && again instanceof ColumnCounts ? again : counts;
    const l1 = measureLevel1(numbers, n, LEVEL1_SHARE * rhoLeft, opts.noise, bound);
    const rest = (1 - LEVEL1_SHARE) * rhoLeft;
    // A released missing category is written in the source's form (level 1's noisy per-marker counts).
    const missingText = missingForm(l1, missingMarkers);
    const written = (c: Column): Column => (c.missing ? { ...c, missingText } : c);
    if (looksNumeric(l1)) {
      const d = discoverNumeric(numbers, l1, rest, opts.noise, { bins, bound });
      const column = format?.numberFormat ? { ...d.column, numberFormat: format.numberFormat } : d.column;
      if (!opts.unit) paidOneWays.set(counts.name, numericOneWay(d.column, d.measured));
      found.set(counts.name, {
        column: written(column),
        detail: {
          kind: 'numeric',
          ...formatDetail,
          ...(format?.numberFormat ? { numberFormat: describeNumberFormat(format.numberFormat) } : {}),
          level1Sigma: l1.sigma,
          level2Sigma: d.level2Sigma,
          level2Buckets: d.level2Buckets,
          missingCount: d.missing.count,
          missingSigma: d.missing.sigma,
          ...(d.column.valueByValue ? { values: d.column.edges.length - 1 } : {}),
        },
      });
    } else {
      const d = discoverCategorical(counts, rest, deltaColumn, opts.noise, file, n, bound);
      if (!opts.unit) paidOneWays.set(counts.name, categoricalOneWay(d.column, n, d.kept, d.selection));
      found.set(counts.name, {
        column: written(d.column),
        detail: {
          kind: 'categorical',
          ...formatDetail,
          level1Sigma: l1.sigma,
          sigma: d.selection.sigma,
          threshold: d.selection.threshold,
          otherCount: d.other.count,
          otherSigma: d.other.sigma,
        },
      });
    }
  }
  const columns: Column[] = [];
  const report: ColumnDiscovery[] = [];
  for (const name of header) {
    if (name === opts.unit?.column) continue;
    const own = declared.get(name);
    if (own) {
      const provenance: ColumnProvenance = { source: 'declared' };
      columns.push(withProvenance(own, provenance));
      report.push({ name, provenance });
      continue;
    }
    const d = found.get(name)!;
    const provenance: ColumnProvenance = { source: 'discovered', ...costOf(name) };
    columns.push(withProvenance(d.column, provenance));
    report.push({ name, provenance, detail: d.detail });
  }
  return {
    schema: { version: SCHEMA_VERSION, origin: undeclared > 0 ? 'discovered' : 'declared', columns },
    columns: report,
    rho: undeclared > 0 ? opts.rho : 0,
    delta: undeclared > 0 ? opts.delta : 0,
    records: profiled.records,
    header,
    paidOneWays,
  };
}

/**
 * The second pass: the columns whose format was chosen, profiled with its parser (exact counts,
 * private, as the first pass's).
 */
async function profileFormats(
  file: string,
  chosen: ReadonlyMap<string, ColumnFormat>,
  missingMarkers: readonly string[],
  opts: DiscoverOptions,
  rejections: Rejections,
): Promise<Map<string, CellCounter>> {
  const names = [...chosen.keys()];
  const profile = new DiscoveryProfile<CellCounter>(
    names,
    missingMarkers,
    opts.unit?.column,
    (name, forms) => {
      const f = chosen.get(name)!;
      return f.temporal
        ? new TemporalCounts(name, f.temporal, forms)
        : new ColumnCounts(name, forms, numericParser(f));
    },
  );
  await readTable(
    file,
    {
      start(shape) {
        profile.start(file, shape.header);
      },
      row: (values) => profile.row(values),
    },
    rejections,
    { ...opts, missingMarkers, raggedAsMissing: true },
  );
  return new Map(profile.columns.map((c) => [c.name, c]));
}

export { OTHER_CATEGORY };
