/**
 * How faithful a release is, column by column and pair by pair: the private file's values
 * against the released CSV's. Non-private diagnostics (they read the private file): for the
 * curator's report only, never for a public artifact.
 *
 * Columns are compared on the values a user of each file sees, not on the release's encoding:
 * a real value that the released domain merged into "(other)" is not reproduced by any released
 * row, so a column released as the constant "(other)" scores 0, not a perfect match.
 * - categorical: total variation (TV) distance between the two value distributions, "(other)"
 *   and the real values it stands for counted as different values;
 * - numeric: the Kolmogorov–Smirnov gap (largest distance between the two cumulative
 *   distributions) over the parsed numbers, the CDFs drawn at both samples' quantiles.
 * Pairs are compared on the released domain's 2-way tables (the encoded codes: bins, "(other)"):
 * the TV distance of the real and synthetic 2-way distributions.
 */

import { type CountedDataset, isCounted, type PrivateData } from '../../data/counted.ts';
import { OTHER_CATEGORY } from '../../data/encode.ts';
import { Rejections } from '../../data/rejections.ts';
import { type Column, domainSize, type EncodedDataset } from '../../data/schema.ts';
import { readTable } from '../../data/table.ts';
import { ksTwoSample } from '../../data/two-sample.ts';
import { DEFAULT_MISSING_MARKERS, numericParser } from '../../data/values.ts';
import { countedTable } from '../../engine/counted-tables.ts';
import { contingencyTable } from '../../workload/exact.ts';
import type { ColumnFidelity, DomainSource, PairFidelity } from './types.ts';

export type { ColumnFidelity, PairFidelity } from './types.ts';

/** Bars drawn per categorical column: the rest are summed in "(all other values)". */
const MAX_BARS = 24;
/** CDF points: both samples' quantiles every 1%. */
const GRID_STEPS = 100;
/** 2-way tables larger than this are skipped (null). */
const MAX_PAIR_CELLS = 250_000;

const MISSING_LABEL = '(missing)';
const REST_LABEL = '(all other values)';

/**
 * Rows of each file the comparison keeps. Holding every value as a string cost 4.75 GB on
 * adult.data × 300 (9.77M rows × 15 columns) and crashed the CLI after the engine had finished;
 * 200,000 rows (≈ 3M strings, ≈ 200 MB) keep a TV or KS gap's sampling error near
 * 1/√200,000 ≈ 0.002, well under the differences the report shows.
 */
export const FIDELITY_SAMPLE_ROWS = 200_000;

/**
 * One pass over a CSV: each named column's raw strings (trimmed, as the loader reads them), of
 * every row when the file has at most FIDELITY_SAMPLE_ROWS, else of every s-th row (a systematic
 * sample, s = ⌈rows / FIDELITY_SAMPLE_ROWS⌉: a file sorted by a column is still covered end to end).
 */
async function columnValues(
  file: string,
  names: readonly string[],
  header: boolean,
  rows: number,
  columns?: readonly string[],
): Promise<string[][]> {
  const out = names.map(() => [] as string[]);
  let at: number[] = [];
  const stride = Math.max(1, Math.ceil(rows / FIDELITY_SAMPLE_ROWS));
  let index = 0;
  await readTable(
    file,
    {
      start: (shape) => {
        at = names.map((n) => shape.header.indexOf(n));
      },
      row: (values) => {
        if (index++ % stride !== 0) return;
        for (let j = 0; j < at.length; j++) if (at[j] >= 0) out[j].push(values[at[j]]);
      },
    },
    new Rejections(),
    { header, raggedAsMissing: true, ...(columns ? { columns } : {}) },
  );
  return out;
}

function domainSource(column: Column): DomainSource {
  const s = column.provenance?.source;
  if (s === 'discovered') return 'discovered privately';
  if (s === 'not-dp') return 'not DP';
  return 'declared';
}

const MISSING = new Set(DEFAULT_MISSING_MARKERS);

function counts(values: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const v of values) {
    const k = MISSING.has(v) ? MISSING_LABEL : v;
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function categorical(
  column: Column & { kind: 'categorical' },
  real: string[],
  synth: string[],
): ColumnFidelity {
  const rc = counts(real);
  const sc = counts(synth);
  const nr = Math.max(1, real.length);
  const ns = Math.max(1, synth.length);
  const held = new Set(column.categories.filter((c) => c !== OTHER_CATEGORY));
  // "(other)" in the release stands for values it does not name: never equal to a real value.
  const otherKey = '\u0000other';
  const synthKey = (v: string) => (v === OTHER_CATEGORY && !rc.has(OTHER_CATEGORY) ? otherKey : v);
  const keys = new Set<string>([...rc.keys(), ...[...sc.keys()].map(synthKey)]);
  let tv = 0;
  for (const k of keys) {
    const p = (rc.get(k) ?? 0) / nr;
    const q = (sc.get(k === otherKey ? OTHER_CATEGORY : k) ?? 0) / ns;
    tv += Math.abs(p - q);
  }
  let mergedValues = 0;
  let mergedRows = 0;
  for (const [k, c] of rc) {
    if (k === MISSING_LABEL || held.has(k)) continue;
    mergedValues++;
    mergedRows += c;
  }
  let outside = 0;
  for (const [k, c] of sc) {
    if (k !== MISSING_LABEL && k !== OTHER_CATEGORY && !held.has(k)) outside += c;
    if (k === MISSING_LABEL && !column.missing) outside += c;
  }
  // The most frequent real values, then the released "(other)" and the rest summed.
  const top = [...rc.entries()]
    .filter(([k]) => k !== MISSING_LABEL)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_BARS)
    .map(([k]) => k);
  for (const k of sc.keys()) {
    if (top.length < MAX_BARS && k !== MISSING_LABEL && k !== OTHER_CATEGORY && !top.includes(k)) top.push(k);
  }
  const labels = [...top];
  const realShares = top.map((k) => (rc.get(k) ?? 0) / nr);
  const synthShares = top.map((k) => (k === OTHER_CATEGORY ? 0 : (sc.get(k) ?? 0)) / ns);
  const otherShare = (sc.get(OTHER_CATEGORY) ?? 0) / ns;
  if (otherShare > 0 && !rc.has(OTHER_CATEGORY)) {
    labels.push(OTHER_CATEGORY);
    realShares.push(0);
    synthShares.push(otherShare);
  }
  const missingReal = (rc.get(MISSING_LABEL) ?? 0) / nr;
  const missingSynth = (sc.get(MISSING_LABEL) ?? 0) / ns;
  if (missingReal > 0 || missingSynth > 0) {
    labels.push(MISSING_LABEL);
    realShares.push(missingReal);
    synthShares.push(missingSynth);
  }
  const restReal = 1 - realShares.reduce((s, x) => s + x, 0);
  const restSynth = 1 - synthShares.reduce((s, x) => s + x, 0);
  if (restReal > 1e-9 || restSynth > 1e-9) {
    labels.push(REST_LABEL);
    realShares.push(Math.max(0, restReal));
    synthShares.push(Math.max(0, restSynth));
  }
  return {
    name: column.name,
    kind: 'categorical',
    domain: domainSource(column),
    metric: 'TV',
    distance: Math.min(1, tv / 2),
    bars: { labels, real: realShares, synthetic: synthShares },
    merged: { values: mergedValues, share: mergedRows / nr },
    otherShare,
    missing: { real: missingReal, synthetic: missingSynth },
    syntheticDistinct: sc.size,
    realDistinct: rc.size,
    outsideDomain: outside,
  };
}

function sortedNumbers(values: readonly string[], parse: (v: string) => number | undefined): Float64Array {
  const out: number[] = [];
  for (const v of values) {
    const x = parse(v);
    if (x !== undefined) out.push(x);
  }
  return Float64Array.from(out).sort();
}

/** Fraction of the sorted values ≤ x (also the Results step's comparison, services/results-step.ts). */
export function cdfAt(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return sorted.length > 0 ? lo / sorted.length : 0;
}

/** Both CDFs at both samples' quantiles (every 1%, extremes included). */
export function cdfGrid(real: Float64Array, synthetic: Float64Array, steps = GRID_STEPS) {
  const grid = new Set<number>();
  for (const sorted of [real, synthetic]) {
    for (let i = 0; i <= steps && sorted.length > 0; i++) {
      grid.add(sorted[Math.min(sorted.length - 1, Math.floor((i / steps) * sorted.length))]);
    }
  }
  const x = [...grid].sort((a, b) => a - b);
  return { x, real: x.map((v) => cdfAt(real, v)), synthetic: x.map((v) => cdfAt(synthetic, v)) };
}

function numeric(column: Column & { kind: 'numeric' }, real: string[], synth: string[]): ColumnFidelity {
  const parse = numericParser(column);
  const r = sortedNumbers(real, parse);
  const s = sortedNumbers(synth, parse);
  const lo = column.edges[0];
  const hi = column.edges[column.edges.length - 1];
  let merged = 0;
  for (const x of r) if (x < lo || x > hi) merged++;
  let outside = 0;
  for (const x of s) if (x < lo || x > hi) outside++;
  const missingOf = (values: readonly string[]) =>
    values.length === 0 ? 0 : values.filter((v) => MISSING.has(v)).length / values.length;
  const distinct = (xs: Float64Array) => {
    let d = 0;
    for (let i = 0; i < xs.length; i++) if (i === 0 || xs[i] !== xs[i - 1]) d++;
    return d;
  };
  return {
    name: column.name,
    kind: 'numeric',
    domain: domainSource(column),
    metric: 'KS',
    distance: ksTwoSample(r, s),
    cdf: cdfGrid(r, s),
    merged: { values: 0, share: real.length > 0 ? merged / real.length : 0 },
    otherShare: 0,
    missing: { real: missingOf(real), synthetic: missingOf(synth) },
    syntheticDistinct: distinct(s),
    realDistinct: distinct(r),
    outsideDomain: outside + synth.filter((v) => !MISSING.has(v) && parse(v) === undefined).length,
  };
}

/**
 * Each released column: the private file's values (read again, for the curator's report only)
 * against the released CSV's.
 */
export async function columnFidelity(
  privateFile: {
    readonly path: string;
    readonly hasHeader: boolean;
    readonly header: readonly string[];
    readonly rows: number;
    /**
     * Each column's exact histogram of texts (a source counted by DuckDB, release/counted-source.ts):
     * the sample is drawn from it instead of reading the file again.
     */
    readonly histograms?: {
      readonly columns: ReadonlyMap<string, ReadonlyMap<string, number>>;
      /** Whether the reader trims the texts (CSV). */
      readonly trimmed: boolean;
      /**
       * A column too wide to keep its histogram: its sample, counted where the rows are (raw
       * texts, as histogramSample draws them: counting/histograms.ts textSample).
       */
      readonly samples?: ReadonlyMap<string, readonly string[]>;
    };
  },
  released: { readonly path: string; readonly rows: number },
  columns: readonly Column[],
): Promise<ColumnFidelity[]> {
  const names = columns.map((c) => c.name);
  const counted = privateFile.histograms;
  const real = counted
    ? names.map((n) => {
        const sample = counted.samples?.get(n);
        if (sample) return sample.map((t) => (counted.trimmed ? t.trim() : t));
        return histogramSample(counted.columns.get(n) ?? new Map(), privateFile.rows, counted.trimmed);
      })
    : await columnValues(
        privateFile.path,
        names,
        privateFile.hasHeader,
        privateFile.rows,
        privateFile.hasHeader ? undefined : privateFile.header,
      );
  const synth = await columnValues(released.path, names, true, released.rows);
  return columns.map((c, j) =>
    c.kind === 'categorical' ? categorical(c, real[j], synth[j]) : numeric(c, real[j], synth[j]),
  );
}

/** The report sample's stride for a file of `rows` records (every s-th record: FIDELITY_SAMPLE_ROWS). */
export function sampleStride(rows: number): number {
  return Math.max(1, Math.ceil(rows / FIDELITY_SAMPLE_ROWS));
}

/**
 * The systematic sample columnValues draws (every s-th record), from a column's exact histogram:
 * the records taken in code-point order of their texts, so each text is sampled in proportion to
 * its count (±1) — what the file sorted by that column would give.
 */
export function histogramSample(
  histogram: ReadonlyMap<string, number>,
  rows: number,
  trim: boolean,
): string[] {
  const stride = sampleStride(rows);
  const out: string[] = [];
  let at = 0;
  for (const text of [...histogram.keys()].sort()) {
    const count = histogram.get(text)!;
    const value = trim ? text.trim() : text;
    for (let i = Math.ceil(at / stride) * stride; i < at + count; i += stride) out.push(value);
    at += count;
  }
  return out;
}

/** Whether a stored table of the counted data holds all of `features` (its table can be summed out). */
export function countedCovers(real: CountedDataset, features: readonly number[]): boolean {
  for (const key of real.tables.keys()) {
    const stored = key.split(',').map(Number);
    if (features.every((f) => stored.includes(f))) return true;
  }
  return false;
}

/**
 * TV distance of every 2-way table on the released domain (the encoded codes). From counted data
 * (no rows) only the pairs inside a counted table (the workload's): the others are null, as a pair
 * past MAX_PAIR_CELLS is (counting every pair would triple the scan: 13.4 against 4.1 CPU s on
 * adult.data × 30 with 32 3-way marginals).
 */
export function pairFidelity(real: PrivateData, synthetic: EncodedDataset): PairFidelity {
  const k = real.schema.columns.length;
  const sizes = real.schema.columns.map(domainSize);
  const tv: (number | null)[][] = Array.from({ length: k }, () => new Array<number | null>(k).fill(null));
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      if (sizes[a] * sizes[b] > MAX_PAIR_CELLS) continue;
      if (isCounted(real) && !countedCovers(real, [a, b])) continue;
      const p = isCounted(real) ? countedTable(real, [a, b]) : contingencyTable(real, [a, b]);
      const q = contingencyTable(synthetic, [a, b]);
      let d = 0;
      for (let i = 0; i < p.length; i++) {
        d += Math.abs(p[i] / Math.max(1, real.n) - q[i] / Math.max(1, synthetic.n));
      }
      tv[a][b] = tv[b][a] = d / 2;
    }
  }
  return { names: real.schema.columns.map((c) => c.name), tv };
}
