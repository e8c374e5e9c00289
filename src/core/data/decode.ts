/**
 * Decoding synthetic codes back to the original schema: categories to their strings, numeric
 * bins to a value inside the bin (uniform draw or midpoint; integer columns give integers), the
 * missing category to the first missing marker.
 *
 * The uniform draw is not privacy noise (the synthetic codes are already private; this only
 * spreads values inside a public bin), so any [0, 1) source will do; inject one for
 * reproducible output.
 */
import type { Column, NumericColumn, Schema } from './schema.ts';
import { domainSize } from './schema.ts';
import { binOf, DEFAULT_MISSING_MARKERS, integerRange } from './values.ts';

export { writeCsv } from './csv-write.ts';

export interface DecodeOptions {
  /** Value for a numeric bin: a uniform draw inside it (default) or its midpoint. */
  readonly numeric?: 'uniform' | 'midpoint';
  /** Uniform [0, 1) source for 'uniform'; default Math.random. */
  readonly random?: () => number;
  /** Text of the missing category; default the first default missing marker, '?'. */
  readonly missingMarker?: string;
}

/** The shortest decimal text of x that still falls in bin `bin`. */
function shortText(edges: readonly number[], bin: number, x: number): string {
  for (let digits = 6; digits < 17; digits++) {
    const y = Number(x.toPrecision(digits));
    if (binOf(edges, y) === bin) return String(y);
  }
  return String(x);
}

function decodeBin(column: NumericColumn, bin: number, opts: DecodeOptions): string {
  const { edges } = column;
  const uniform = (opts.numeric ?? 'uniform') === 'uniform';
  const u = uniform ? (opts.random ?? Math.random)() : 0.5;
  if (column.integer) {
    const { low, high } = integerRange(edges, bin);
    const v = uniform ? Math.min(high, low + Math.floor(u * (high - low + 1))) : Math.floor((low + high) / 2);
    return String(v);
  }
  const lo = edges[bin];
  const hi = edges[bin + 1];
  let x = lo + u * (hi - lo);
  // Rounding can land on the open upper edge; the lower edge is always inside.
  if (binOf(edges, x) !== bin) x = lo;
  return shortText(edges, bin, x);
}

/** The text for code `code` of `column`. */
export function decodeValue(column: Column, code: number, opts: DecodeOptions = {}): string {
  const size = domainSize(column);
  if (!Number.isInteger(code) || code < 0 || code >= size) {
    throw new RangeError(`code ${code} is outside column "${column.name}" (domain size ${size})`);
  }
  if (column.missing && code === size - 1) return opts.missingMarker ?? DEFAULT_MISSING_MARKERS[0];
  return column.kind === 'categorical' ? column.categories[code] : decodeBin(column, code, opts);
}

/** Rows of text, one at a time, from codes per column: `codes[j][i]` is row i's code for column j. */
export function* decodedRows(
  schema: Schema,
  codes: readonly ArrayLike<number>[],
  n: number,
  opts: DecodeOptions = {},
): Generator<string[]> {
  if (codes.length !== schema.columns.length) {
    throw new RangeError(`decode: ${codes.length} code columns for a schema of ${schema.columns.length}`);
  }
  for (let i = 0; i < n; i++) yield schema.columns.map((c, j) => decodeValue(c, codes[j][i], opts));
}

/** All decoded rows at once (small tables; stream decodedRows into writeCsv for large ones). */
export function decodeRows(
  schema: Schema,
  codes: readonly ArrayLike<number>[],
  n: number,
  opts: DecodeOptions = {},
): string[][] {
  return [...decodedRows(schema, codes, n, opts)];
}
