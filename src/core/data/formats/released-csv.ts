/**
 * What every converter of a released CSV (write-xlsx.ts, write-sav.ts, write-dta.ts) reads of it:
 * its header and rows as papaparse reads our own CSV writer's output (RFC 4180), and the one rule
 * for when a Table Schema integer/number column may be written as numbers: every value prints
 * back (JavaScript's shortest text of the number, as our .xlsx, .sav and .dta readers print a
 * number) as exactly the CSV's text.
 */
import { readFile } from 'node:fs/promises';
import Papa from 'papaparse';
import type { WrittenColumn } from './write-parquet.ts';

/** The released CSV's header and rows (every field as text; '' is missing). */
export async function readReleasedCsv(
  csv: string,
): Promise<{ readonly header: string[]; readonly rows: string[][] }> {
  // Every line is a record: a one-column release writes a missing value as an empty line (so no
  // empty line is skipped); only the final line break ends the last record.
  const text = (await readFile(csv, 'utf8')).replace(/\r?\n$/, '');
  const parsed = Papa.parse<string[]>(text, {
    header: false,
    delimiter: ',', // our writer's: never guessed (a one-column release has none to guess from)
    skipEmptyLines: false,
  });
  if (parsed.errors.length > 0)
    throw new Error(`the release's CSV did not parse: ${parsed.errors[0].message}`);
  const [header = [], ...rows] = parsed.data;
  return { header, rows };
}

/** Whether `text` is exactly what a reader prints for the number it holds (an integer: a safe one). */
export function numberRoundTrips(text: string, integer: boolean): boolean {
  const n = Number(text);
  if (!Number.isFinite(n) || String(n) !== text) return false;
  return !integer || Number.isSafeInteger(n);
}

/**
 * Per column, whether it is written as numbers: the Table Schema calls it integer or number and
 * every non-empty value passes `numberRoundTrips` and `fits` (a format's own limits).
 */
export function numericColumns(
  types: readonly string[],
  rows: readonly (readonly string[])[],
  fits: (x: number) => boolean = () => true,
): boolean[] {
  return types.map(
    (type, j) =>
      (type === 'integer' || type === 'number') &&
      rows.every((r) => r[j] === '' || (numberRoundTrips(r[j], type === 'integer') && fits(Number(r[j])))),
  );
}

/**
 * A column written as an SPSS/Stata input's codes (`column.codes`): each value's code, missing
 * (null) for the empty field and the column's missing texts; undefined when a value is neither a
 * category's text nor missing (the column is then written as text).
 */
export function codedValues(column: WrittenColumn, texts: readonly string[]): (number | null)[] | undefined {
  if (!column.codes) return undefined;
  const code = new Map(column.codes.map((c) => [c.text, c.value]));
  const missing = new Set(['', ...(column.missing ?? [])]);
  const out: (number | null)[] = [];
  for (const t of texts) {
    const c = code.get(t);
    if (c !== undefined) out.push(c);
    else if (missing.has(t)) out.push(null);
    else return undefined;
  }
  return out;
}

/**
 * The SPSS and Stata writers' numeric columns: per column, its values as numbers (null missing)
 * where `numericColumns` would write it as numbers once its missing texts (the Table Schema's
 * missingValues, such as "?") are taken as missing; undefined for a column written as text.
 */
export function numericValues(
  columns: readonly WrittenColumn[],
  rows: readonly (readonly string[])[],
  fits: (x: number) => boolean,
): ((number | null)[] | undefined)[] {
  return columns.map((column, j) => {
    if (column.type !== 'integer' && column.type !== 'number') return undefined;
    const missing = new Set(['', ...(column.missing ?? [])]);
    const out: (number | null)[] = [];
    for (const r of rows) {
      const t = r[j];
      if (missing.has(t)) out.push(null);
      else if (numberRoundTrips(t, column.type === 'integer') && fits(Number(t))) out.push(Number(t));
      else return undefined;
    }
    return out;
  });
}
