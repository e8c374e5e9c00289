/**
 * Decoding synthetic codes back to the original schema: categories to their strings, numeric
 * bins to a value inside the bin (uniform draw or midpoint; integer columns give integers), the
 * missing category to the first missing marker.
 *
 * The draw inside a bin is post-processing of the private codes, but it comes from the secure
 * source all the same (node:crypto via src/core/privacy) unless a caller injects one for
 * reproducible output. A column with discovered `pieces` is decoded by their noisy shape: a piece
 * of the bin by weight, then a value inside the piece.
 */
import { secureNoise } from '../privacy/noise.ts';
import { formatNumberText, formatTemporal, hourOf, weekdayOf } from './formats.ts';
import { leavesUnder } from './hierarchy.ts';
import type { CategoricalColumn, Column, NumericColumn, NumericPiece, Schema } from './schema.ts';
import { domainSize } from './schema.ts';
import { binOf, DEFAULT_MISSING_MARKERS, integerRange } from './values.ts';

export { writeCsv } from './csv-write.ts';

export interface DecodeOptions {
  /** Value for a numeric bin: a uniform draw inside it (default) or its midpoint. */
  readonly numeric?: 'uniform' | 'midpoint';
  /** Uniform (0, 1) source for 'uniform'; default the secure source of src/core/privacy. */
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

let secureUniform: (() => number) | undefined;
function defaultRandom(): () => number {
  if (!secureUniform) {
    const noise = secureNoise();
    secureUniform = () => noise.uniform();
  }
  return secureUniform;
}

const piecesByBin = new WeakMap<NumericColumn, NumericPiece[][]>();

/** The column's pieces grouped by the bin holding them. */
function binPieces(column: NumericColumn): NumericPiece[][] {
  let byBin = piecesByBin.get(column);
  if (!byBin) {
    byBin = Array.from({ length: column.edges.length - 1 }, () => []);
    for (const p of column.pieces ?? []) {
      const b = binOf(column.edges, p.lo);
      if (b >= 0 && p.weight > 0) byBin[b].push(p);
    }
    piecesByBin.set(column, byBin);
  }
  return byBin;
}

/**
 * The piece at fraction `f` ∈ [0, 1) of the pieces' total weight: a draw by weight when `f` is
 * uniform. Numeric and temporal decoding share it so both pick pieces the same way (the last
 * piece when rounding leaves `f · total` unspent). Post-processing.
 */
function pieceAt(pieces: readonly NumericPiece[], f: number): NumericPiece {
  let total = 0;
  for (const p of pieces) total += p.weight;
  let u = f * total;
  for (const p of pieces) {
    u -= p.weight;
    if (u < 0) return p;
  }
  return pieces[pieces.length - 1];
}

function decodePiece(
  column: NumericColumn,
  bin: number,
  pieces: NumericPiece[],
  random: () => number,
): string {
  const piece = pieceAt(pieces, random());
  if (piece.hi <= piece.lo) return String(piece.lo + 0);
  const v = random();
  if (column.integer) return String(Math.min(piece.hi - 1, piece.lo + Math.floor(v * (piece.hi - piece.lo))));
  let x = piece.lo + v * (piece.hi - piece.lo);
  if (binOf(column.edges, x) !== bin) x = piece.lo;
  return shortText(column.edges, bin, x);
}

/** Draws of a value inside a piece before one is kept anyway (weights that nearly vanish). */
const TEMPORAL_TRIES = 64;

/**
 * A temporal column's value in bin `bin`: a piece by weight (or the bin's integers), then an
 * integer inside it, kept with probability w(weekday)·w(hour) / max (rejection sampling), so
 * the released days of the week and hours follow the discovered shares. Post-processing.
 */
function decodeTemporal(column: NumericColumn, bin: number, opts: DecodeOptions): string {
  const temporal = column.temporal!;
  const uniform = (opts.numeric ?? 'uniform') === 'uniform';
  const random = opts.random ?? defaultRandom();
  let lo: number;
  let hi: number;
  const pieces = column.pieces ? binPieces(column)[bin] : [];
  if (pieces.length > 0) {
    const piece = pieceAt(pieces, uniform ? random() : 0.5);
    lo = Math.ceil(piece.lo);
    hi = Math.max(lo, Math.ceil(piece.hi) - 1);
  } else {
    const r = integerRange(column.edges, bin);
    lo = r.low;
    hi = Math.max(r.low, r.high);
  }
  if (!uniform) return formatTemporal(temporal, Math.floor((lo + hi) / 2));
  const { weekdays, hours } = temporal;
  const wMax = weekdays ? Math.max(...weekdays) : 1;
  const hMax = hours ? Math.max(...hours) : 1;
  let x = lo;
  for (let t = 0; t < TEMPORAL_TRIES; t++) {
    x = Math.min(hi, lo + Math.floor(random() * (hi - lo + 1)));
    if (!weekdays && !hours) break;
    const w =
      (weekdays ? weekdays[weekdayOf(temporal.kind, x)] / wMax : 1) *
      (hours ? hours[hourOf(temporal.kind, x)] / hMax : 1);
    if (random() < w) break;
  }
  return formatTemporal(temporal, x);
}

function decodeBin(column: NumericColumn, bin: number, opts: DecodeOptions): string {
  if (column.temporal) return decodeTemporal(column, bin, opts);
  const text = decodePlainBin(column, bin, opts);
  return column.numberFormat ? formatNumberText(column.numberFormat, text) : text;
}

function decodePlainBin(column: NumericColumn, bin: number, opts: DecodeOptions): string {
  const { edges } = column;
  const uniform = (opts.numeric ?? 'uniform') === 'uniform';
  const random = opts.random ?? defaultRandom();
  if (uniform && column.pieces) {
    const pieces = binPieces(column)[bin];
    if (pieces.length > 0) return decodePiece(column, bin, pieces, random);
  }
  const u = uniform ? random() : 0.5;
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

const leavesByColumn = new WeakMap<CategoricalColumn, number[][]>();

/**
 * A hierarchical column whose curator asked for full-length codes: a released prefix becomes a
 * released leaf under it, uniformly (post-processing of the released domain; hierarchy.ts); a
 * prefix with no released leaf under it stays itself (no code the release did not publish).
 */
function decodeCategory(column: CategoricalColumn, code: number, opts: DecodeOptions): string {
  if (!column.hierarchy?.fullCodes) return column.categories[code];
  let leaves = leavesByColumn.get(column);
  if (!leaves) {
    leaves = leavesUnder(column.hierarchy, column.categories);
    leavesByColumn.set(column, leaves);
  }
  const under = leaves[code];
  if (under.length === 0) return column.categories[code];
  const random = opts.random ?? defaultRandom();
  return column.categories[under[Math.min(under.length - 1, Math.floor(random() * under.length))]];
}

/** The text for code `code` of `column`. */
export function decodeValue(column: Column, code: number, opts: DecodeOptions = {}): string {
  const size = domainSize(column);
  if (!Number.isInteger(code) || code < 0 || code >= size) {
    throw new RangeError(`code ${code} is outside column "${column.name}" (domain size ${size})`);
  }
  if (column.missing && code === size - 1)
    return column.missingText ?? opts.missingMarker ?? DEFAULT_MISSING_MARKERS[0];
  return column.kind === 'categorical' ? decodeCategory(column, code, opts) : decodeBin(column, code, opts);
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
