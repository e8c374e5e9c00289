/**
 * Does the first row name the columns? UCI files such as adult.data ship without a header, most
 * exports have one; the curator can say which (`header: true | false`), otherwise it is guessed
 * from a sample of the first rows (see looksLikeHeader).
 */
import { InputError } from '../errors.ts';
import { parseNumber } from './values.ts';

export type HeaderMode = boolean | 'auto';

/**
 * Heuristic for `header: 'auto'` with no declared schema:
 * 1. a row with a number in it is data (numbers are not column names);
 * 2. otherwise, if some column holds only numbers below the first row, the first row is a header;
 * 3. otherwise (all-text table) it is a header when none of its cells recurs in its own column
 *    among the sampled rows, as data values of a categorical column would;
 * a lone all-text row counts as a header (and then the table has no data: an error that says
 * to pass `header: false` if the row is data).
 */
export function looksLikeHeader(
  first: readonly string[],
  rest: readonly (readonly string[])[],
  missing: ReadonlySet<string>,
): boolean {
  const isNumber = (v: string) => !missing.has(v) && parseNumber(v) !== undefined;
  if (first.some(isNumber)) return false;
  if (rest.length === 0) return true;
  for (let c = 0; c < first.length; c++) {
    const below = rest.map((r) => r[c]).filter((v) => v !== undefined && !missing.has(v));
    if (below.length > 0 && below.every(isNumber)) return true;
  }
  return first.every((v, c) => !rest.some((r) => r[c] === v));
}

/** With a declared schema the question has a sharp answer: does the row hold every declared name? */
export function holdsNames(first: readonly string[], names: readonly string[]): boolean {
  const cells = new Set(first);
  return names.every((n) => cells.has(n));
}

/**
 * Column names must be non-empty and unique. `where(c)` says where column c's name came from,
 * e.g. "adult.csv, line 1, column 3".
 */
export function checkColumnNames(names: readonly string[], where: (column: number) => string): void {
  const seen = new Map<string, number>();
  names.forEach((name, c) => {
    if (name === '') {
      throw new InputError(`${where(c)}: empty column name; give every column a name.`, { column: c + 1 });
    }
    const before = seen.get(name);
    if (before !== undefined) {
      throw new InputError(
        `${where(c)}: duplicate column name "${name}" (also column ${before + 1}); column names must be unique.`,
        { column: c + 1 },
      );
    }
    seen.set(name, c);
  });
}

/**
 * Names for a table without a header: column_1 … column_N. Public: they depend on the width only,
 * never on a value of the file.
 */
export function defaultColumnNames(width: number): string[] {
  return Array.from({ length: width }, (_, c) => `column_${c + 1}`);
}
