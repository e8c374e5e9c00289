/**
 * Cell-level rules shared by inference, encoding and decoding: what counts as missing, what
 * counts as a number, and how numeric values fall into bins.
 */

import { type NumberFormat, parseFormattedNumber, parseTemporal, type TemporalFormat } from './formats.ts';

/** Markers read as a missing value unless a schema lists them as a category. */
export const DEFAULT_MISSING_MARKERS: readonly string[] = ['?', '', 'NA'];

/** Plain decimal or scientific notation; no thousands separators, no `Infinity`, no hex. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a cell holds, or undefined when the text is not a finite number. */
export function parseNumber(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * Index of the bin holding x for ascending edges e_0 < … < e_b (bin i is [e_i, e_{i+1}), the last
 * bin is closed), or -1 when x lies outside [e_0, e_b].
 */
export function binOf(edges: readonly number[], x: number): number {
  const last = edges.length - 1;
  if (!(x >= edges[0] && x <= edges[last])) return -1;
  let lo = 0;
  let hi = last - 1;
  // Invariant: the answer is in [lo, hi]; find the largest i ≤ last − 1 with edges[i] ≤ x.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (edges[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The integers a bin holds: [low, high], empty when low > high. */
export function integerRange(edges: readonly number[], bin: number): { low: number; high: number } {
  const isLast = bin === edges.length - 2;
  const low = Math.ceil(edges[bin]);
  const high = isLast ? Math.floor(edges[bin + 1]) : Math.ceil(edges[bin + 1]) - 1;
  return { low, high };
}

/**
 * Equal-width edges from lower to upper. For integer columns the edges are integers and every
 * bin holds at least one integer, so the bin count is capped at upper − lower.
 */
export function equalWidthEdges(lower: number, upper: number, bins: number, integer: boolean): number[] {
  if (!(lower < upper)) throw new RangeError(`bin edges need lower < upper, got ${lower} and ${upper}`);
  if (!Number.isInteger(bins) || bins < 1)
    throw new RangeError(`bin count must be a positive integer, got ${bins}`);
  if (integer) {
    if (!Number.isInteger(lower) || !Number.isInteger(upper)) {
      throw new RangeError(`integer bins need integer bounds, got ${lower} and ${upper}`);
    }
    const k = Math.min(bins, upper - lower);
    const edges = Array.from({ length: k }, (_, i) => lower + Math.floor((i * (upper - lower)) / k));
    edges.push(upper);
    return edges;
  }
  const width = (upper - lower) / bins;
  // The first edge is `lower` itself (lower + 0·width would turn −0 into +0).
  const edges = Array.from({ length: bins }, (_, i) => (i === 0 ? lower : lower + i * width));
  edges.push(upper);
  if (!isStrictlyAscending(edges))
    throw new RangeError(`range [${lower}, ${upper}] is too narrow for ${bins} bins`);
  return edges;
}

export function isStrictlyAscending(xs: readonly number[]): boolean {
  for (let i = 1; i < xs.length; i++) if (!(xs[i] > xs[i - 1])) return false;
  return true;
}

/**
 * The parser of a numeric column's cells: its temporal format, its locale number format, or
 * plain numbers (formats.ts).
 */
export function numericParser(column: {
  readonly temporal?: TemporalFormat;
  readonly numberFormat?: NumberFormat;
}): (text: string) => number | undefined {
  const { temporal, numberFormat } = column;
  if (temporal) return (text) => parseTemporal(temporal, text);
  if (numberFormat) return (text) => parseFormattedNumber(numberFormat, text);
  return parseNumber;
}
