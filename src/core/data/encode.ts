/**
 * Encoding rows into integer codes per column (compact typed arrays), against a schema. A row
 * with a value the schema cannot take is rejected whole and counted by reason; the codes of a
 * row are stored only once every column has accepted its value.
 */

import { formatTemporal } from './formats.ts';
import { finestCategory } from './hierarchy.ts';
import type { Rejections } from './rejections.ts';
import type {
  CategoricalColumn,
  CodeArray,
  Column,
  EncodedDataset,
  NumericColumn,
  Schema,
} from './schema.ts';
import { domainSize } from './schema.ts';
import { binOf, numericParser } from './values.ts';

/**
 * What to do with a value outside a declared domain: reject the row (default), or keep it as
 * `other`: the category OTHER_CATEGORY for categorical columns, the nearest bin (clamping) for
 * numeric ones.
 */
export type OutOfDomain = 'reject' | 'other';

/**
 * One rule for every column, or a rule per column: private discovery's load maps values outside
 * a DISCOVERED column's domain to 'other' but never touches a DECLARED column's domain, which is
 * used exactly (the release refuses a record it cannot hold before reserving; release.ts).
 */
export type OutOfDomainRule = OutOfDomain | ((column: Column) => OutOfDomain);

/** The rule for one column. */
export function outOfDomainFor(rule: OutOfDomainRule, column: Column): OutOfDomain {
  return typeof rule === 'function' ? rule(column) : rule;
}

/** The catch-all category added to every categorical column when outOfDomain is 'other'. */
export const OTHER_CATEGORY = '(other)';

/** A code, or the reason for rejecting the row (a constant string per column: no allocation). */
type Encode = (value: string) => number | string;

export interface EncodeOptions {
  readonly missingMarkers: readonly string[];
  readonly outOfDomain: OutOfDomainRule;
}

/**
 * The schema a load with outOfDomain 'other' produces: OTHER_CATEGORY appended to every
 * categorical column (whose rule is 'other') that lacks it. Every such column gets it, whether or
 * not the data needs it, so the domain stays independent of the private rows.
 */
export function withOtherCategory(schema: Schema, rule: OutOfDomainRule = 'other'): Schema {
  const columns = schema.columns.map((c): Column => {
    if (c.kind !== 'categorical' || c.categories.includes(OTHER_CATEGORY)) return c;
    // Discovery decided the column's domain has no "(other)" (its noisy count did not pass).
    if (c.fallbackCode !== undefined) return c;
    if (outOfDomainFor(rule, c) !== 'other') return c;
    return { ...c, categories: [...c.categories, OTHER_CATEGORY] };
  });
  return { ...schema, columns };
}

function missingReason(column: Column): string {
  return `missing value in column "${column.name}", whose schema has no missing category`;
}

function categoricalEncoder(
  column: CategoricalColumn,
  missing: ReadonlySet<string>,
  rule: OutOfDomain,
): Encode {
  const index = new Map(column.categories.map((c, i) => [c, i]));
  const { hierarchy } = column;
  const other = rule === 'other' ? (index.get(OTHER_CATEGORY) ?? column.fallbackCode) : undefined;
  // With 'other', a missing value in a column without a missing category is 'other' too: the
  // record is kept (n stays the number of records).
  const onMissing = column.missing ? column.categories.length : (other ?? missingReason(column));
  const outside = other ?? `value outside the declared categories of column "${column.name}"`;
  if (hierarchy) {
    // A code is held by its finest released key (C34.90 → C34 when only the category passed).
    return (value) =>
      index.get(value) ??
      (missing.has(value) ? onMissing : (finestCategory(hierarchy, value, index) ?? outside));
  }
  return (value) => index.get(value) ?? (missing.has(value) ? onMissing : outside);
}

function numericEncoder(column: NumericColumn, missing: ReadonlySet<string>, rule: OutOfDomain): Encode {
  const { edges } = column;
  const lower = edges[0];
  const lastBin = edges.length - 2;
  // With 'other', a discovered column without a missing category keeps the record in its
  // fallback bin (the missing count did not pass discovery's threshold).
  const fallback = rule === 'other' ? column.fallbackCode : undefined;
  const onMissing = column.missing ? lastBin + 1 : (fallback ?? missingReason(column));
  // With 'other', text in a numeric column with a missing category is missing (record kept).
  const notNumber =
    rule === 'other' && column.missing
      ? lastBin + 1
      : (fallback ??
        (column.temporal
          ? `value that is not a valid ${column.temporal.kind} in the format ${column.temporal.format} in column "${column.name}"`
          : `non-numeric value in numeric column "${column.name}"`));
  const bound = (x: number) => (column.temporal ? formatTemporal(column.temporal, x) : x);
  const outside = `value outside the declared range [${bound(lower)}, ${bound(edges[lastBin + 1])}] of column "${column.name}"`;
  const clamp = rule === 'other';
  const parse = numericParser(column);
  return (value) => {
    if (missing.has(value)) return onMissing;
    const x = parse(value);
    if (x === undefined) return notNumber;
    const bin = binOf(edges, x);
    if (bin >= 0) return bin;
    if (clamp) return x < lower ? 0 : lastBin;
    return outside;
  };
}

export function columnEncoder(column: Column, opts: EncodeOptions): Encode {
  const missing = new Set(opts.missingMarkers);
  const rule = outOfDomainFor(opts.outOfDomain, column);
  return column.kind === 'categorical'
    ? categoricalEncoder(column, missing, rule)
    : numericEncoder(column, missing, rule);
}

/** A typed array just wide enough for codes 0..size−1. */
export function codeArray(size: number, length: number): CodeArray {
  if (size <= 0x100) return new Uint8Array(length);
  if (size <= 0x10000) return new Uint16Array(length);
  return new Uint32Array(length);
}

/** A growable code column: doubling, trimmed to length at the end. */
class CodeColumn {
  private data: CodeArray;
  length = 0;

  constructor(private readonly size: number) {
    this.data = codeArray(size, 1024);
  }

  push(code: number): void {
    if (this.length === this.data.length) {
      const bigger = codeArray(this.size, this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = code;
  }

  finish(): CodeArray {
    return this.data.slice(0, this.length);
  }
}

export class DatasetEncoder {
  private readonly encoders: Encode[];
  private readonly columns: CodeColumn[];
  private readonly pending: Uint32Array;
  private n = 0;

  /** `sources[j]` is the table column that feeds schema column j. */
  constructor(
    private readonly schema: Schema,
    private readonly sources: readonly number[],
    opts: EncodeOptions,
    private readonly rejections: Rejections,
  ) {
    this.encoders = schema.columns.map((c) => columnEncoder(c, opts));
    this.columns = schema.columns.map((c) => new CodeColumn(domainSize(c)));
    this.pending = new Uint32Array(schema.columns.length);
  }

  get rows(): number {
    return this.n;
  }

  add(values: readonly string[], line: number): void {
    const k = this.encoders.length;
    for (let j = 0; j < k; j++) {
      const code = this.encoders[j](values[this.sources[j]]);
      if (typeof code === 'string') {
        this.rejections.add(code, line);
        return;
      }
      this.pending[j] = code;
    }
    for (let j = 0; j < k; j++) this.columns[j].push(this.pending[j]);
    this.n++;
  }

  finish(): EncodedDataset {
    return { schema: this.schema, n: this.n, codes: this.columns.map((c) => c.finish()) };
  }
}
