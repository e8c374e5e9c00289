/**
 * The schema model: what each column of the curator's table may contain.
 *
 * A schema is *declared* when it comes from the curator's public domain file (the DP guarantee
 * covers it) and *inferred* when it was read off the private data (categories seen, min/max):
 * an inferred schema leaks information about the data, so every screen and report that uses
 * it must say so until the curator confirms or edits it.
 */

import type { NumberFormat, TemporalFormat } from './formats.ts';
import type { Hierarchy } from './hierarchy.ts';

/**
 * Categories or bins of one column at most (including "missing"): the engine's and the schema
 * editor's cap, checked where a domain is parsed, before anything of that size is built (a domain
 * file saying 4·10⁹ once took the process down with V8 out of memory).
 */
export const MAX_DOMAIN_SIZE = 100_000;

export const SCHEMA_VERSION = 1 as const;

/**
 * 'discovered': built by private domain discovery (src/core/discovery); each column says in its
 * `provenance` whether the curator declared it or discovery released it, and at what cost.
 */
export type SchemaOrigin = 'declared' | 'inferred' | 'discovered';

/**
 * Where a column's domain came from: declared by the curator (public, free), discovered with
 * differential privacy (ρ-zCDP, plus δ for partition selection), or read off the data without
 * DP (leaks; only with the curator's explicit override).
 */
export type ColumnProvenance =
  | { readonly source: 'declared' }
  | { readonly source: 'discovered'; readonly rho: number; readonly delta: number }
  | { readonly source: 'not-dp' };

/**
 * A column the curator declared a date, a time or a datetime, written in `format` (e.g.
 * `MM/DD/YYYY`, `HH:MM`): public, free. The setting only; parsing and binning by it belong to the
 * temporal columns' own module.
 */
export interface TemporalDeclaration {
  readonly kind: 'date' | 'time' | 'datetime';
  readonly format: string;
}

export const TEMPORAL_KINDS = ['date', 'time', 'datetime'] as const;

interface ColumnBase {
  readonly name: string;
  /** Declared temporal type and format (optional; see TemporalDeclaration). */
  readonly temporal?: TemporalDeclaration;
  /**
   * When true the column has an extra, last category for missing values (the configured
   * missing markers such as `?`, empty or `NA`).
   */
  readonly missing: boolean;
  /**
   * How the missing category is written in the released CSV: the source's form (`?`, empty,
   * `NA`), chosen by discovery from its noisy per-marker counts, or declared. Absent: the first
   * missing marker, `?`.
   */
  readonly missingText?: string;
  /** Set by discovery (and by the release for declared / not-DP columns). */
  readonly provenance?: ColumnProvenance;
  /**
   * Discovered columns only: the code that holds a record whose value the released domain has no
   * place for when the column released neither "(other)" (categorical) nor a missing category —
   * their noisy counts did not pass the threshold (docs/privacy.md, "What the released domain
   * holds"). It is the category or bin of largest noisy mass, so no synthetic row gets a value
   * the release does not justify and no record is dropped. Absent: such a record goes to
   * "(other)" or the missing category as before (or is refused, for a declared column).
   */
  readonly fallbackCode?: number;
}

/** A column whose values are one of a finite list of strings. */
export interface CategoricalColumn extends ColumnBase {
  readonly kind: 'categorical';
  readonly categories: readonly string[];
  /**
   * Hierarchical codes (hierarchy.ts): the categories are keys of several levels (`C`, `C34`,
   * `C34.90`), and a value is encoded as its finest key among them.
   */
  readonly hierarchy?: Hierarchy;
}

/**
 * A numeric column discretized into bins by ascending edges e_0 < e_1 < … < e_b:
 * bin i is [e_i, e_{i+1}) and the last bin is closed, [e_{b-1}, e_b].
 */
export interface NumericColumn extends ColumnBase {
  readonly kind: 'numeric';
  readonly edges: readonly number[];
  /** Integers stay integers when decoded. */
  readonly integer: boolean;
  /**
   * The shape inside the bins, from private discovery: ascending disjoint pieces [lo, hi) (a
   * single value when lo = hi) with weights summing to 1, each inside one bin. Decoding picks a
   * piece of the bin by weight, then a value inside it. Absent: uniform over the bin.
   */
  readonly pieces?: readonly NumericPiece[];
  /**
   * Private discovery released the column value by value: each bin holds one integer (its
   * single-point piece), so decoded values are exactly the released integers, nothing between.
   */
  readonly valueByValue?: boolean;
  /**
   * A date, time or datetime column (formats.ts): its values are the format's internal units
   * (days since 1970-01-01, seconds of the day, seconds since the epoch), parsed in and written
   * back in `format`. Declared by the curator or discovered privately.
   */
  readonly temporal?: TemporalColumnFormat;
  /** Numbers written with a locale's separators or affixes (formats.ts), read and written so. */
  readonly numberFormat?: NumberFormat;
}

/**
 * A temporal column's format and, when discovered, the noisy shares (summing to 1) of the days of
 * the week (Monday first; dates and datetimes) and of the hours of the day (datetimes): decoding
 * draws a value inside its piece with these weights (post-processing; docs/privacy.md).
 */
export interface TemporalColumnFormat extends TemporalFormat {
  readonly weekdays?: readonly number[];
  readonly hours?: readonly number[];
}

export interface NumericPiece {
  readonly lo: number;
  readonly hi: number;
  readonly weight: number;
}

export type Column = CategoricalColumn | NumericColumn;

export interface Schema {
  readonly version: typeof SCHEMA_VERSION;
  readonly origin: SchemaOrigin;
  readonly columns: readonly Column[];
  /**
   * Set when the curator confirmed an inferred schema (origin is then 'declared'): from then on
   * it is treated as public, but its categories and ranges were read from the private data, a
   * leak that confirming does not undo. Reports may say so.
   */
  readonly confirmedFromInferred?: boolean;
  /**
   * Columns the curator marked as hierarchical codes without declaring their categories (a schema
   * file's column with a `hierarchy` and no `categories`): discovered privately, level by level.
   */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
}

/** One line for screens and reports saying where the schema came from and what that means. */
export function describeSchemaOrigin(schema: Schema): string {
  if (schema.origin === 'inferred') {
    return 'inferred from the private data: it leaks which categories occur and the value ranges; declare or confirm it';
  }
  if (schema.origin === 'discovered') {
    return 'discovered with differential privacy (columns the curator declared are used as declared)';
  }
  if (schema.confirmedFromInferred) {
    const declared = schema.columns.filter((c) => c.provenance?.source === 'declared').length;
    if (declared > 0) {
      return (
        `edited from an inferred schema: ${declared} of ${schema.columns.length} columns declared by the curator ` +
        "(edited); the others' categories and ranges were read from the private data"
      );
    }
    return 'declared (confirmed from an inferred schema: its categories and ranges were read from the private data)';
  }
  return 'declared (public domain file)';
}

/** Number of categories (codes) a column takes, including the missing category. */
export function domainSize(column: Column): number {
  const base = column.kind === 'categorical' ? column.categories.length : column.edges.length - 1;
  return base + (column.missing ? 1 : 0);
}

export function domainSizes(schema: Schema): number[] {
  return schema.columns.map(domainSize);
}

/** Integer codes per column for the rows of a dataset, compact typed arrays. */
export type CodeArray = Uint8Array | Uint16Array | Uint32Array;

/**
 * The private dataset after encoding: codes[c][i] is the category index (0..size_c − 1) of row
 * i in column c. Holds private values: never log it or send it anywhere but the curator.
 */
export interface EncodedDataset {
  readonly schema: Schema;
  readonly n: number;
  readonly codes: readonly CodeArray[];
}
