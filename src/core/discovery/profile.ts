/**
 * One pass over the private CSV for discovery: per column, exact counts only (never rows) — by
 * type (missing / number / text), on the public numeric grid (grid.ts), the fractional numbers,
 * and each distinct text. These counts are private; discovery releases only noisy functions of
 * them (numeric.ts, categorical.ts).
 */

import { parseNumber } from '../data/values.ts';
import { InputError } from '../errors.ts';
import { FINE, fineBucket, LEVEL1_BUCKETS, octaveBucket, ZERO_BUCKET } from './grid.ts';

/** The key under which missing values are counted among a column's texts. */
export const MISSING_KEY = '\u0000missing';

/** Most distinct texts a column's profile keeps (a numeric column with more is fine). */
export const MAX_DISTINCT_TEXTS = 100_000;

export class ColumnCounts {
  missing = 0;
  numbers = 0;
  texts = 0;
  /** Numbers that are not integers. */
  fractional = 0;
  readonly octaves = new Float64Array(LEVEL1_BUCKETS);
  /** Fine counts by bucket·FINE + fine index (non-zero octaves only). */
  readonly fine = new Map<number, number>();
  /** Count of each distinct value (missing under MISSING_KEY); undefined once past the limit. */
  values: Map<string, number> | undefined = new Map();

  constructor(readonly name: string) {}

  add(value: string, isMissing: boolean): void {
    this.countValue(isMissing ? MISSING_KEY : value);
    if (isMissing) {
      this.missing++;
      return;
    }
    const x = parseNumber(value);
    if (x === undefined) {
      this.texts++;
      return;
    }
    this.numbers++;
    if (!Number.isInteger(x)) this.fractional++;
    const b = octaveBucket(x);
    this.octaves[b]++;
    if (b !== ZERO_BUCKET) {
      const key = b * FINE + fineBucket(x, b);
      this.fine.set(key, (this.fine.get(key) ?? 0) + 1);
    }
  }

  private countValue(key: string): void {
    if (!this.values) return;
    this.values.set(key, (this.values.get(key) ?? 0) + 1);
    if (this.values.size > MAX_DISTINCT_TEXTS) this.values = undefined;
  }

  /** Records counted (every record counts once in every column). */
  get total(): number {
    return this.missing + this.numbers + this.texts;
  }
}

/** Counts for the named table columns, fed row by row. */
export class DiscoveryProfile {
  readonly columns: ColumnCounts[];
  private readonly missing: ReadonlySet<string>;
  private sources: number[] = [];

  constructor(
    readonly names: readonly string[],
    missingMarkers: readonly string[],
  ) {
    this.columns = names.map((n) => new ColumnCounts(n));
    this.missing = new Set(missingMarkers);
  }

  /** Maps the profiled names to table columns. */
  start(file: string, header: readonly string[]): void {
    const index = new Map(header.map((h, c) => [h, c]));
    this.sources = this.names.map((n) => {
      const c = index.get(n);
      if (c === undefined) {
        throw new InputError(`${file}: column "${n}" is not in the table (it has: ${header.join(', ')}).`, {
          file,
          column: n,
        });
      }
      return c;
    });
  }

  row(values: readonly string[]): void {
    for (let j = 0; j < this.columns.length; j++) {
      const v = values[this.sources[j]];
      this.columns[j].add(v, this.missing.has(v));
    }
  }
}
