/**
 * One pass over the private CSV for discovery: per column, exact counts only (never rows) — by
 * type (missing / number / text), on the public numeric grid (grid.ts), the fractional numbers,
 * and each distinct text. These counts are private; discovery releases only noisy functions of
 * them (numeric.ts, categorical.ts).
 */

import { parseNumber } from '../data/values.ts';
import { InputError } from '../errors.ts';
import { FORMAT_CLASSES, formatClass, MISSING_CLASS } from './formats.ts';
import { FINE, fineBucket, LEVEL1_BUCKETS, octaveBucket, ZERO_BUCKET } from './grid.ts';

/** What a profile feeds each cell to (ColumnCounts; temporal.ts's TemporalCounts). */
export interface CellCounter {
  readonly name: string;
  /**
   * @param form the index of the missing marker `value` is (when isMissing).
   * @param weight how many records hold `value` (a histogram's count, histograms.ts): the same
   *   counts as `weight` calls with one record each (row level only: a person's values are fed
   *   row by row).
   */
  add(value: string, isMissing: boolean, form?: number, weight?: number): void;
  startPerson(): void;
}

/** Distinct cells whose format class a column remembers (the classes are cheap to recompute). */
const CLASS_CACHE = 4096;

/** The key under which missing values are counted among a column's texts. */
export const MISSING_KEY = '\u0000missing';

/** A zero-padded digit string: a leading 0 followed by more digits (never `0`, `0.5`, `-0`). */
export const ZERO_PADDED = /^0[0-9]+$/;

/** Most distinct texts a column's profile keeps (a numeric column with more is fine). */
export const MAX_DISTINCT_TEXTS = 100_000;

export class ColumnCounts implements CellCounter {
  missing = 0;
  /**
   * Missing values by the marker that wrote them (`?`, empty, `NA`: the profile's markers, in
   * order), summing to `missing`: level 1 measures them apart, so the released column writes its
   * missing values in the form its records use (numeric.ts, missingForm).
   */
  readonly missingForms: number[];
  numbers = 0;
  texts = 0;
  /**
   * Zero-padded digit strings (`02134`, `007`): codes, not numbers (numeric.ts's level 1 keeps
   * them in a bucket of their own, and a column with enough of them is categorical).
   */
  padded = 0;
  /** Numbers that are not integers. */
  fractional = 0;
  readonly octaves = new Float64Array(LEVEL1_BUCKETS);
  /** Fine counts by bucket·FINE + fine index (non-zero octaves only). */
  readonly fine = new Map<number, number>();
  /**
   * Count of each distinct value (missing under MISSING_KEY); undefined once past the limit. At
   * the person level (DiscoveryProfile's unit), the number of distinct PERSONS holding the value.
   */
  values: Map<string, number> | undefined = new Map();
  /**
   * Rows per format class (formats.ts: missing, each temporal candidate, plain, each number
   * candidate, text); only when the profile tests formats.
   */
  readonly classes: Float64Array | undefined;
  private readonly classOf = new Map<string, number>();
  /** Values already counted for the current person (the person level only). */
  private personValues: Set<string> | undefined;

  /**
   * @param forms how many missing markers there are (one count each).
   * @param parse the cells' parser (a chosen locale number format's, on the second pass); plain
   *   numbers by default, and then the format classes are counted too.
   * @param grid false: the numbers' octaves and fine buckets are not counted (stay empty): the
   *   check before the reservation reads types and distinct values only (histograms.ts
   *   countsFromStream), and the grid cost it a third of its time on a continuous column.
   */
  constructor(
    readonly name: string,
    forms = 1,
    private readonly parse?: (text: string) => number | undefined,
    private readonly grid = true,
  ) {
    this.missingForms = new Array<number>(Math.max(1, forms)).fill(0);
    this.classes = parse ? undefined : new Float64Array(FORMAT_CLASSES);
  }

  private countClass(value: string, isMissing: boolean, weight: number): void {
    if (!this.classes) return;
    if (isMissing) {
      this.classes[MISSING_CLASS] += weight;
      return;
    }
    let c = this.classOf.get(value);
    if (c === undefined) {
      c = formatClass(value);
      if (this.classOf.size < CLASS_CACHE) this.classOf.set(value, c);
    }
    this.classes[c] += weight;
  }

  /**
   * @param form the index of the missing marker `value` is (when isMissing).
   * @param weight records holding `value` (CellCounter.add).
   */
  add(value: string, isMissing: boolean, form = 0, weight = 1): void {
    if (weight !== 1 && this.personValues)
      throw new Error('internal: weighted counts are of rows, not persons');
    this.countValue(isMissing ? MISSING_KEY : value, weight);
    this.countClass(value, isMissing, weight);
    if (isMissing) {
      this.missing += weight;
      this.missingForms[form] += weight;
      return;
    }
    if (ZERO_PADDED.test(value)) {
      this.padded += weight;
      return;
    }
    const x = (this.parse ?? parseNumber)(value);
    if (x === undefined) {
      this.texts += weight;
      return;
    }
    this.numbers += weight;
    if (!Number.isInteger(x)) this.fractional += weight;
    if (!this.grid) return;
    const b = octaveBucket(x);
    this.octaves[b] += weight;
    if (b !== ZERO_BUCKET) {
      const key = b * FINE + fineBucket(x, b);
      this.fine.set(key, (this.fine.get(key) ?? 0) + weight);
    }
  }

  /** A new person's rows start (rows come grouped by person): each value counts once per person. */
  startPerson(): void {
    this.personValues = new Set();
  }

  private countValue(key: string, weight: number): void {
    if (!this.values) return;
    if (this.personValues) {
      if (this.personValues.has(key)) return;
      this.personValues.add(key);
    }
    this.values.set(key, (this.values.get(key) ?? 0) + weight);
    if (this.values.size > MAX_DISTINCT_TEXTS) this.values = undefined;
  }

  /** Records counted (every record counts once in every column). */
  get total(): number {
    return this.missing + this.numbers + this.texts + this.padded;
  }
}

/** Counts for the named table columns, fed row by row. */
export class DiscoveryProfile<C extends CellCounter = ColumnCounts> {
  readonly columns: C[];
  /** Each missing marker's index (its form). */
  private readonly missing: ReadonlyMap<string, number>;
  private sources: number[] = [];
  /** The unit column's index in the table (the person level), its current person, those seen. */
  private unitSource = -1;
  private person: string | undefined;
  private readonly persons = new Set<string>();

  /**
   * @param unit the column naming the person (the person level): its rows must come grouped by
   *   person (release/person.ts writes them so), and each distinct value counts once per person.
   */
  constructor(
    readonly names: readonly string[],
    missingMarkers: readonly string[],
    private readonly unit?: string,
    make: (name: string, forms: number) => C = (n, forms) => new ColumnCounts(n, forms) as unknown as C,
  ) {
    this.columns = names.map((n) => make(n, missingMarkers.length));
    this.missing = new Map(missingMarkers.map((m, i) => [m, i]));
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
    if (this.unit !== undefined) {
      this.unitSource = header.indexOf(this.unit);
      if (this.unitSource < 0) {
        throw new InputError(`${file}: the unit column "${this.unit}" is not in the table.`, {
          file,
          column: this.unit,
        });
      }
    }
  }

  row(values: readonly string[]): void {
    if (this.unitSource >= 0) {
      const p = values[this.unitSource];
      if (p !== this.person) {
        // Distinct-person counts need each person's rows together; a person seen before is a bug.
        if (this.persons.has(p))
          throw new Error('internal: the person-level profile needs rows grouped by person');
        this.persons.add(p);
        this.person = p;
        for (const c of this.columns) c.startPerson();
      }
    }
    for (let j = 0; j < this.columns.length; j++) {
      const v = values[this.sources[j]];
      const form = this.missing.get(v);
      this.columns[j].add(v, form !== undefined, form ?? 0);
    }
  }
}
