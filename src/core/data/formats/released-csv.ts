/**
 * What every converter of a released CSV (write-xlsx.ts, write-sav.ts, write-dta.ts) reads of it:
 * its header and rows as papaparse reads our own CSV writer's output (RFC 4180), and the one rule
 * for when a Table Schema integer/number column may be written as numbers: every value prints
 * back (JavaScript's shortest text of the number, as our .xlsx, .sav and .dta readers print a
 * number) as exactly the CSV's text.
 */
import { readFile } from 'node:fs/promises';
import Papa from 'papaparse';

/** The released CSV's header and rows (every field as text; '' is missing). */
export async function readReleasedCsv(
  csv: string,
): Promise<{ readonly header: string[]; readonly rows: string[][] }> {
  const parsed = Papa.parse<string[]>(await readFile(csv, 'utf8'), { header: false, skipEmptyLines: true });
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
