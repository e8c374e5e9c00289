/**
 * The private format test of an undeclared column: is it dates, times, datetimes, or numbers
 * written the way a locale writes them — and in which of the PUBLIC candidate formats
 * (data/formats.ts)?
 *
 * Each cell falls in exactly one class, the first that takes it in this public order: missing;
 * each temporal candidate (TEMPORAL_FORMATS; `%Y%m%d` before plain numbers, so 20230115 is a
 * date); a plain number; each number candidate (NUMBER_FORMATS); other text. The class histogram
 * gets Gaussian noise: a record falls in one class, so under replace-one the vector moves by at
 * most √2 (k√2 when a person holds up to k rows), σ_f = Δ/√(2ρ_f), ρ_f-zCDP, no δ. The choice
 * is post-processing (`chooseFormat`):
 * - temporal when the temporal classes together outnumber the numbers and the texts, in the
 *   temporal candidate of largest noisy count, which must pass SIGNIFICANT_SIGMAS·σ_f
 *   (a day-first file puts its ambiguous days ≤ 12 under `%m/%d/%Y`, the first candidate, and its
 *   other 61% under `%d/%m/%Y`, which wins);
 * - a locale number format when the numbers (plain and formatted) outnumber the texts and one
 *   number candidate passes SIGNIFICANT_SIGMAS·σ_f (its largest);
 * - otherwise nothing: the column goes on as plain numbers or categories (numeric.ts, categorical.ts).
 * A chosen column is profiled again with its format's parser (discover.ts), and values that do
 * not parse in it are text there (missing, or the fallback).
 */
import {
  NUMBER_FORMATS,
  type NumberFormat,
  parseFormattedNumber,
  parseTemporal,
  TEMPORAL_FORMATS,
  type TemporalFormat,
} from '../data/formats.ts';
import { parseNumber } from '../data/values.ts';
import { makeGaussianCounts, measureCounts } from '../privacy/counts.ts';
import type { NoiseSource } from '../privacy/noise.ts';

/** A candidate passes when its noisy count exceeds this many σ_f (Q(4) = 3·10⁻⁵ per empty one). */
export const SIGNIFICANT_SIGMAS = 4;

export const FORMAT_SENSITIVITY = Math.SQRT2;

/** Class indices: missing, the temporal candidates, plain, the number candidates, text. */
export const MISSING_CLASS = 0;
const TEMPORAL_FIRST = 1;
export const PLAIN_CLASS = TEMPORAL_FIRST + TEMPORAL_FORMATS.length;
const NUMBER_FIRST = PLAIN_CLASS + 1;
export const TEXT_CLASS = NUMBER_FIRST + NUMBER_FORMATS.length;
export const FORMAT_CLASSES = TEXT_CLASS + 1;

/** Cells that can be nothing but text or plain numbers skip the candidates' parsers. */
const MAYBE_TEMPORAL = /^\d{1,4}[-/:]|^\d{8}$/;
const HAS_DIGIT = /\d/;

/** The class of a non-missing cell (see the file comment). */
export function formatClass(value: string): number {
  if (MAYBE_TEMPORAL.test(value)) {
    for (let i = 0; i < TEMPORAL_FORMATS.length; i++)
      if (parseTemporal(TEMPORAL_FORMATS[i], value) !== undefined) return TEMPORAL_FIRST + i;
  }
  if (parseNumber(value) !== undefined) return PLAIN_CLASS;
  if (HAS_DIGIT.test(value)) {
    for (let i = 0; i < NUMBER_FORMATS.length; i++)
      if (parseFormattedNumber(NUMBER_FORMATS[i], value) !== undefined) return NUMBER_FIRST + i;
  }
  return TEXT_CLASS;
}

/** A column's chosen format: the cells' parser for the rest of its discovery. */
export type ColumnFormat =
  | { readonly temporal: TemporalFormat; readonly numberFormat?: undefined }
  | { readonly numberFormat: NumberFormat; readonly temporal?: undefined };

export interface FormatTest {
  readonly sigma: number;
  readonly rho: number;
  readonly noisy: Float64Array;
  readonly choice: ColumnFormat | undefined;
}

/** The Gaussian class histogram (ρ-zCDP, ℓ2 sensitivity bound·√2) and the choice it implies. */
export function testFormats(classes: Float64Array, rho: number, noise: NoiseSource, bound = 1): FormatTest {
  const mech = makeGaussianCounts(rho, bound * FORMAT_SENSITIVITY);
  const noisy = measureCounts(mech, classes, noise);
  return { sigma: mech.sigma, rho, noisy, choice: chooseFormat(noisy, mech.sigma) };
}

/** Post-processing of the noisy class histogram (see the file comment). */
export function chooseFormat(noisy: ArrayLike<number>, sigma: number): ColumnFormat | undefined {
  const sum = (from: number, to: number) => {
    let s = 0;
    for (let i = from; i < to; i++) s += noisy[i];
    return s;
  };
  const argmax = (from: number, to: number) => {
    let best = from;
    for (let i = from + 1; i < to; i++) if (noisy[i] > noisy[best]) best = i;
    return best;
  };
  const temporal = sum(TEMPORAL_FIRST, PLAIN_CLASS);
  const numbers = sum(PLAIN_CLASS, TEXT_CLASS);
  const text = noisy[TEXT_CLASS];
  const bar = SIGNIFICANT_SIGMAS * sigma;
  const t = argmax(TEMPORAL_FIRST, PLAIN_CLASS);
  if (temporal > numbers && temporal > text && noisy[t] > bar) {
    return { temporal: TEMPORAL_FORMATS[t - TEMPORAL_FIRST] };
  }
  const f = argmax(NUMBER_FIRST, TEXT_CLASS);
  if (numbers > text && numbers > temporal && noisy[f] > bar) {
    return { numberFormat: NUMBER_FORMATS[f - NUMBER_FIRST] };
  }
  return undefined;
}
