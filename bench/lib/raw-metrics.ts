/**
 * Fidelity of a released CSV against the raw file (issue 17's figures), computed on text rows:
 * - KS per numeric column: sup |F_real − F_synthetic| over the numbers of each (missing and text
 *   cells left out);
 * - TV per categorical column, on the raw strings and on the released domain (real values the
 *   release does not list count as its "(other)", missing as its missing category or "(other)");
 * - the largest error over all 2-way marginals, numeric columns cut at the REAL data's deciles
 *   (a cell per decile interval, one for missing/text), categorical columns by value.
 * Non-private diagnostics (they read the real data): bench only.
 */

import { finestCategory } from '../../src/core/data/hierarchy.ts';
import type { Schema } from '../../src/core/data/schema.ts';
import { ksTwoSample } from '../../src/core/data/two-sample.ts';
import { DEFAULT_MISSING_MARKERS, parseNumber } from '../../src/core/data/values.ts';

const OTHER = '(other)';
const MISSING = '?';

export interface ColumnFidelity {
  readonly name: string;
  readonly kind: 'numeric' | 'categorical';
  /** KS (numeric columns). */
  readonly ks?: number;
  /** TV on the raw strings, and on the released domain (categorical columns). */
  readonly tvRaw?: number;
  readonly tvReleased?: number;
}

export interface Fidelity {
  readonly columns: readonly ColumnFidelity[];
  readonly meanKs: number;
  readonly maxTwoWay: number;
  /** The pair of columns where maxTwoWay is reached. */
  readonly worstPair: string;
  /** Same, with real categorical values mapped into the released domain first. */
  readonly maxTwoWayReleased: number;
  /** The pair of columns where maxTwoWayReleased is reached. */
  readonly worstPairReleased: string;
}

const missingSet = new Set(DEFAULT_MISSING_MARKERS);

/** A column is numeric when ≥ 90% of its non-missing real cells are numbers. */
export function numericColumns(rows: readonly (readonly string[])[], width: number): boolean[] {
  return Array.from({ length: width }, (_, c) => {
    let present = 0;
    let numbers = 0;
    for (const r of rows) {
      const v = r[c];
      if (missingSet.has(v)) continue;
      present++;
      if (parseNumber(v) !== undefined) numbers++;
    }
    return present > 0 && numbers >= 0.9 * present;
  });
}

function numbersOf(rows: readonly (readonly string[])[], c: number): Float64Array {
  const out: number[] = [];
  for (const r of rows) {
    const x = parseNumber(r[c]);
    if (x !== undefined) out.push(x);
  }
  return Float64Array.from(out).sort();
}

/** Two-sample Kolmogorov–Smirnov statistic of ascending samples. */
export const ks = ksTwoSample;

function distribution(values: Iterable<string>): Map<string, number> {
  const m = new Map<string, number>();
  let n = 0;
  for (const v of values) {
    m.set(v, (m.get(v) ?? 0) + 1);
    n++;
  }
  for (const [k, c] of m) m.set(k, c / n);
  return m;
}

export function tv(p: Map<string, number>, q: Map<string, number>): number {
  let s = 0;
  for (const k of new Set([...p.keys(), ...q.keys()])) s += Math.abs((p.get(k) ?? 0) - (q.get(k) ?? 0));
  return s / 2;
}

/** A real value as the release's domain would hold it. */
/**
 * A real value as the release's domain would hold it, as the encoder holds it (encode.ts, 'other'
 * rule): a released category as itself; a hierarchical code under its finest released key; a
 * missing value as the missing category when released; anything else as "(other)" when released,
 * else under the fallback category (the heaviest, where discovery keeps such records).
 */
function releasedValue(schema: Schema | undefined, c: number, v: string): string {
  const col = schema?.columns[c];
  if (col?.kind !== 'categorical') return missingSet.has(v) ? MISSING : v;
  if (col.categories.includes(v)) return v;
  const elsewhere = col.categories.includes(OTHER)
    ? OTHER
    : col.fallbackCode !== undefined
      ? col.categories[col.fallbackCode]
      : v;
  if (missingSet.has(v)) return col.missing ? MISSING : elsewhere;
  if (col.hierarchy) {
    const code = finestCategory(col.hierarchy, v, indexOf(col.categories));
    if (code !== undefined) return col.categories[code];
  }
  return elsewhere;
}

const indexes = new WeakMap<readonly string[], Map<string, number>>();
function indexOf(categories: readonly string[]): Map<string, number> {
  let index = indexes.get(categories);
  if (!index) {
    index = new Map(categories.map((c, i) => [c, i]));
    indexes.set(categories, index);
  }
  return index;
}

function cellKey(v: string, cuts: Float64Array | undefined): string {
  if (!cuts) return missingSet.has(v) ? MISSING : v;
  const x = parseNumber(v);
  if (x === undefined) return MISSING;
  let k = 0;
  while (k < cuts.length && cuts[k] <= x) k++;
  return String(k);
}

/** Unique real deciles of a sorted column. */
export function deciles(sorted: Float64Array): Float64Array {
  const cuts = new Set<number>();
  for (let q = 1; q < 10; q++)
    cuts.add(sorted[Math.min(sorted.length - 1, Math.floor((q * sorted.length) / 10))]);
  return Float64Array.from([...cuts]).sort();
}

function maxTwoWay(
  real: readonly (readonly string[])[],
  synthetic: readonly (readonly string[])[],
  cuts: readonly (Float64Array | undefined)[],
  mapReal: (c: number, v: string) => string,
  names: readonly string[],
): { worst: number; pair: string } {
  const width = cuts.length;
  let worst = 0;
  let pair = '';
  for (let a = 0; a < width; a++) {
    for (let b = a + 1; b < width; b++) {
      const key = (r: readonly string[], map: (c: number, v: string) => string) =>
        `${cellKey(map(a, r[a]), cuts[a])}\u0001${cellKey(map(b, r[b]), cuts[b])}`;
      const p = distribution(real.map((r) => key(r, mapReal)));
      const q = distribution(synthetic.map((r) => key(r, (_c, v) => v)));
      for (const k of new Set([...p.keys(), ...q.keys()])) {
        const e = Math.abs((p.get(k) ?? 0) - (q.get(k) ?? 0));
        if (e > worst) {
          worst = e;
          pair = `${names[a]} × ${names[b]}`;
        }
      }
    }
  }
  return { worst, pair };
}

export function fidelity(
  names: readonly string[],
  real: readonly (readonly string[])[],
  synthetic: readonly (readonly string[])[],
  released: Schema | undefined,
): Fidelity {
  // A column the release holds as categories (codes: zip with a postcode hierarchy) is scored
  // by category, even when its values read as numbers.
  const numeric = numericColumns(real, names.length).map(
    (isNum, c) => isNum && released?.columns[c]?.kind !== 'categorical',
  );
  const cuts = numeric.map((isNum, c) => (isNum ? deciles(numbersOf(real, c)) : undefined));
  const columns: ColumnFidelity[] = names.map((name, c) => {
    if (numeric[c]) return { name, kind: 'numeric', ks: ks(numbersOf(real, c), numbersOf(synthetic, c)) };
    const syn = distribution(synthetic.map((r) => (missingSet.has(r[c]) ? MISSING : r[c])));
    return {
      name,
      kind: 'categorical',
      tvRaw: tv(distribution(real.map((r) => (missingSet.has(r[c]) ? MISSING : r[c]))), syn),
      tvReleased: tv(distribution(real.map((r) => releasedValue(released, c, r[c]))), syn),
    };
  });
  const raw = maxTwoWay(real, synthetic, cuts, (_c, v) => v, names);
  const kss = columns.flatMap((c) => (c.ks === undefined ? [] : [c.ks]));
  return {
    columns,
    meanKs: kss.length ? kss.reduce((a, b) => a + b, 0) / kss.length : 0,
    maxTwoWay: raw.worst,
    worstPair: raw.pair,
    ...(() => {
      const r = maxTwoWay(real, synthetic, cuts, (c, v) => releasedValue(released, c, v), names);
      return { maxTwoWayReleased: r.worst, worstPairReleased: r.pair };
    })(),
  };
}
