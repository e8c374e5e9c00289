/**
 * What users type, parsed and checked in one place: the CLI's flags and the app's fields use the
 * same rules and the same messages. Each check throws an InputError (CLI exit 2) naming the
 * flag or field and the value.
 */
import { InputError } from '../errors.ts';

/** Number(text), but blank text is NaN rather than 0. */
export function numberOf(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

/** Whole-number text ("12", " 7 ": no sign, point, exponent or hex, exactly representable) >= min. */
export function integerAtLeast(text: string, min: number): number | undefined {
  const x = Number(text);
  return /^\s*\d+\s*$/.test(text) && Number.isSafeInteger(x) && x >= min ? x : undefined;
}

export function parseEpsilon(flag: string, text: string): number {
  const x = numberOf(text);
  if (!(Number.isFinite(x) && x > 0))
    throw new InputError(`${flag} must be a finite number > 0, got "${text}"`);
  return x;
}

export function parseDelta(flag: string, text: string): number {
  const x = numberOf(text);
  if (!(x > 0 && x < 1)) throw new InputError(`${flag} must be a number with 0 < δ < 1, got "${text}"`);
  return x;
}

export function parseCount(flag: string, text: string): number {
  const x = integerAtLeast(text, 1);
  if (x === undefined) throw new InputError(`${flag} must be an integer >= 1, got "${text}"`);
  return x;
}

/** A seed: an integer >= 0. */
export function parseSeed(label: string, text: string): number {
  const x = integerAtLeast(text, 0);
  if (x === undefined) throw new InputError(`${label} must be an integer >= 0, got "${text}"`);
  return x;
}

/** Any finite number (the ledger checks ranges itself, with its own messages). */
export function parseFinite(flag: string, text: string): number {
  const x = numberOf(text);
  if (!Number.isFinite(x))
    throw new InputError(`${flag} must be a number, got ${JSON.stringify(text)}`, { field: flag });
  return x;
}

export function parseNonNegative(flag: string, text: string): number {
  const x = numberOf(text);
  if (!(Number.isFinite(x) && x >= 0))
    throw new InputError(`${flag} must be a finite number >= 0, got "${text}"`);
  return x;
}

export function parseChoice<T extends string>(flag: string, text: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text)) {
    throw new InputError(`${flag} must be one of ${choices.join(', ')}, got "${text}"`);
  }
  return text as T;
}
