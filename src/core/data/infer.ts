/**
 * Inferring a schema from the data: categories seen, numeric min/max. The result is marked
 * `inferred` because it leaks information about the private rows (which categories occur, the
 * extreme values); the curator should replace it by a declared domain or confirm it knowingly.
 *
 * Rules, per column (missing markers aside):
 * - only numbers, and at most `numericCategoryLimit` distinct values → categorical, categories in
 *   numeric order, so decoding gives back the exact text (e.g. education-num, 16 values);
 * - only numbers, more distinct values → numeric, `numericBins` equal-width bins between the
 *   observed min and max (integer edges for integer columns, see values.ts);
 * - anything else → categorical, categories in code-point order; more than `maxCategories`
 *   distinct values is an error (declare the column numeric, or raise the limit).
 * A column with a missing marker in it gets the missing category.
 */
import { InputError } from '../errors.ts';
import { Rejections } from './rejections.ts';
import { type Column, SCHEMA_VERSION, type Schema } from './schema.ts';
import { readTable, type TableOptions, type TableResult } from './table.ts';
import { DEFAULT_MISSING_MARKERS, equalWidthEdges, parseNumber } from './values.ts';

export interface InferOptions {
  readonly missingMarkers?: readonly string[];
  /** Most distinct values a text column may have. Default 1000. */
  readonly maxCategories?: number;
  /** Bins for a column inferred numeric. Default 10. */
  readonly numericBins?: number;
  /** A number column with at most this many distinct values stays categorical. Default 20. */
  readonly numericCategoryLimit?: number;
  /** Per column, a category limit other than `maxCategories` (the app's "raise the limit"). */
  readonly columnLimits?: Readonly<Record<string, number>>;
  /**
   * A text column past its limit: an error naming it ('refuse', the default), or set aside — left
   * out of the inferred schema and listed in `overLimit` — so that one column never refuses the
   * whole file (the app's screens, where the curator then leaves it out, marks it as the
   * identifier, or raises its limit).
   */
  readonly overLimit?: 'refuse' | 'set-aside';
}

/** A text column set aside for having more distinct values than its category limit. */
export interface OverLimitColumn {
  readonly column: string;
  readonly limit: number;
}

export const INFER_DEFAULTS = { maxCategories: 1000, numericBins: 10, numericCategoryLimit: 20 } as const;

/** What one pass over a column remembers: a bounded set of values and numeric range, never rows. */
class ColumnProfile {
  hasMissing = false;
  present = 0;
  isNumber = true;
  isInteger = true;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  /** Distinct values while there are at most maxCategories of them; undefined past that. */
  distinct: Set<string> | undefined = new Set();
  /** Set aside: a text column past its limit (InferOptions.overLimit 'set-aside'); no longer read. */
  setAside = false;

  constructor(
    readonly name: string,
    readonly maxCategories: number,
  ) {}

  /** Returns false when the column has become a text column with too many categories. */
  add(value: string): boolean {
    this.present++;
    if (this.distinct) {
      this.distinct.add(value);
      if (this.distinct.size > this.maxCategories) this.distinct = undefined;
    }
    if (this.isNumber) {
      const x = parseNumber(value);
      if (x === undefined) this.isNumber = false;
      else {
        if (x < this.min) this.min = x;
        if (x > this.max) this.max = x;
        if (!Number.isInteger(x)) this.isInteger = false;
      }
    }
    return this.isNumber || this.distinct !== undefined;
  }

  toColumn(bins: number, numericCategoryLimit: number): Column {
    const base = { name: this.name, missing: this.hasMissing || this.present === 0 };
    const values = this.distinct ? [...this.distinct] : undefined;
    if (this.isNumber && this.present > 0 && (values === undefined || values.length > numericCategoryLimit)) {
      if (this.min < this.max) {
        const edges = equalWidthEdges(this.min, this.max, bins, this.isInteger);
        return { ...base, kind: 'numeric', edges, integer: this.isInteger };
      }
    }
    const categories = values ?? [];
    if (this.isNumber) categories.sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0));
    else categories.sort();
    return { ...base, kind: 'categorical', categories };
  }
}

/** Builds an inferred schema from rows fed one at a time (the first pass of a load). */
export class SchemaInferrer {
  private profiles: ColumnProfile[] = [];
  private readonly missing: ReadonlySet<string>;
  private readonly opts: Required<Omit<InferOptions, 'columnLimits'>>;
  private readonly limits: Readonly<Record<string, number>>;

  constructor(
    private readonly file: string,
    opts: InferOptions = {},
  ) {
    this.opts = {
      missingMarkers: opts.missingMarkers ?? DEFAULT_MISSING_MARKERS,
      maxCategories: opts.maxCategories ?? INFER_DEFAULTS.maxCategories,
      numericBins: opts.numericBins ?? INFER_DEFAULTS.numericBins,
      numericCategoryLimit: opts.numericCategoryLimit ?? INFER_DEFAULTS.numericCategoryLimit,
      overLimit: opts.overLimit ?? 'refuse',
    };
    this.limits = opts.columnLimits ?? {};
    this.missing = new Set(this.opts.missingMarkers);
  }

  start(names: readonly string[]): void {
    this.profiles = names.map((n) => new ColumnProfile(n, this.limits[n] ?? this.opts.maxCategories));
  }

  row(values: readonly string[], line: number): void {
    for (let c = 0; c < this.profiles.length; c++) {
      const profile = this.profiles[c];
      if (profile.setAside) continue;
      const v = values[c];
      if (this.missing.has(v)) profile.hasMissing = true;
      else if (!profile.add(v)) {
        if (this.opts.overLimit === 'refuse') throw this.tooManyCategories(profile, line);
        profile.setAside = true;
        profile.distinct = undefined;
      }
    }
  }

  /** The text columns set aside for passing their category limit (none with overLimit 'refuse'). */
  overLimit(): OverLimitColumn[] {
    return this.profiles.filter((p) => p.setAside).map((p) => ({ column: p.name, limit: p.maxCategories }));
  }

  schema(): Schema {
    const columns = this.profiles
      .filter((p) => !p.setAside)
      .map((p) => p.toColumn(this.opts.numericBins, this.opts.numericCategoryLimit));
    return { version: SCHEMA_VERSION, origin: 'inferred', columns };
  }

  private tooManyCategories(profile: ColumnProfile, line: number): InputError {
    const column = profile.name;
    return new InputError(
      `${this.file}, line ${line}, column "${column}": more than ${profile.maxCategories} distinct values. ` +
        'If the column is numeric, declare it numeric (with bounds) in a schema file; if it is an identifier, ' +
        'drop it; otherwise raise the category limit.',
      { file: this.file, line, column },
    );
  }
}

export interface InferResult {
  readonly schema: Schema;
  /** Text columns set aside for their category limit (InferOptions.overLimit 'set-aside'). */
  readonly overLimit: readonly OverLimitColumn[];
  readonly table: TableResult;
  readonly rejections: Rejections;
}

/** One pass over the file: the inferred schema plus what the reader learned (header, fingerprint). */
export async function inferSchema(
  file: string,
  opts: InferOptions & TableOptions = {},
): Promise<InferResult> {
  const inferrer = new SchemaInferrer(file, opts);
  const rejections = new Rejections();
  let usable = 0;
  const table = await readTable(
    file,
    {
      start: (shape) => inferrer.start(shape.header),
      row: (values, line) => {
        usable++;
        inferrer.row(values, line);
      },
    },
    rejections,
    opts,
  );
  if (usable === 0) throw noUsableRows(file, table.rowsRead, rejections);
  return { schema: inferrer.schema(), overLimit: inferrer.overLimit(), table, rejections };
}

/** Nothing can be inferred (or released) from zero usable rows. */
export function noUsableRows(file: string, rowsRead: number, rejections: Rejections): InputError {
  const top = [...rejections.list()].sort((a, b) => b.count - a.count)[0];
  const why = top
    ? `; most were rejected for: ${top.reason} (${top.count} rows, first at line ${top.firstLine})`
    : '';
  return new InputError(
    `${file}: none of the ${rowsRead} data rows could be loaded${why}.`,
    top ? { file, line: top.firstLine } : { file },
  );
}
