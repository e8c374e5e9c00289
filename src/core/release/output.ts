/**
 * The synthetic table as it is written: the input's column order, values decoded from the
 * rounded codes, the CSV written atomically and hashed.
 */
import { writeCsv } from '../data/csv-write.ts';
import { decodedRows } from '../data/decode.ts';
import type { Schema } from '../data/schema.ts';
import { parseNumber } from '../data/values.ts';
import type { NoiseSpec } from '../engine/process/protocol.ts';
import type { RapResult } from '../engine/types.ts';
import { secureNoise, seededNoise } from '../privacy/noise.ts';

/**
 * CSV injection (OWASP): a spreadsheet opens a cell starting with =, +, -, @, tab or carriage
 * return as a formula. A released categorical value that starts so and is not a number is
 * written with a leading apostrophe, which spreadsheets show as text. Post-processing of the
 * released domain; numbers (-3, +4.5) and numeric columns are left as they are.
 */
export const FORMULA_ESCAPE_NOTE =
  "categorical values starting with =, +, -, @, tab or carriage return (and not numbers) are written with a leading ' so that spreadsheets do not run them as formulas";

const FORMULA_START = /^[=+\-@\t\r]/;

export function escapeFormula(value: string): string {
  return FORMULA_START.test(value) && parseNumber(value) === undefined ? `'${value}` : value;
}

/** The schema a released CSV is read back with (evaluate, scoring): categories as written. */
export function asWrittenSchema(schema: Schema): Schema {
  return {
    ...schema,
    columns: schema.columns.map((c) =>
      c.kind === 'categorical' ? { ...c, categories: c.categories.map(escapeFormula) } : c,
    ),
  };
}

function* escapedRows(
  rows: Iterable<readonly string[]>,
  categorical: readonly boolean[],
): Generator<readonly string[]> {
  for (const row of rows) yield row.map((v, j) => (categorical[j] ? escapeFormula(v) : v));
}

/**
 * The synthetic table in the input's column order (header equal to the input's header, less
 * columns the schema leaves out); schema order for a file without a header.
 */
/** What the output reads of the private source (a load's, or a counted source's, counted-source.ts). */
export interface SourceShape {
  readonly dataset: { readonly schema: Schema };
  readonly summary: { readonly hasHeader: boolean };
  readonly header: readonly string[];
}

function outputTable(loaded: SourceShape, result: RapResult) {
  const { schema } = loaded.dataset;
  const names = schema.columns.map((c) => c.name);
  if (!loaded.summary.hasHeader) return { schema, header: names, codes: result.synthetic.codes };
  const index = new Map(names.map((n, j) => [n, j]));
  const order = loaded.header.filter((h) => index.has(h)).map((h) => index.get(h)!);
  return {
    schema: { ...schema, columns: order.map((j) => schema.columns[j]) },
    header: order.map((j) => names[j]),
    codes: order.map((j) => result.synthetic.codes[j]),
  };
}

/** The written CSV: its path, SHA-256, row count and header. */
export interface WrittenCsv {
  readonly path: string;
  readonly sha256: string;
  readonly rows: number;
  readonly header: readonly string[];
}

/** Decodes and writes the synthetic rows (temp file + fsync + rename); errors are the caller's. */
export async function writeSyntheticCsv(
  file: string,
  loaded: SourceShape,
  result: RapResult,
  noise: NoiseSpec,
  opts: { readonly mode?: number; readonly fresh?: boolean } = {},
): Promise<Omit<WrittenCsv, 'sha256'>> {
  const table = outputTable(loaded, result);
  // Values inside a numeric bin are spread uniformly. Not privacy noise (the codes are already
  // private), but drawn from the privacy module's sources anyway so that a seeded run is
  // byte-for-byte reproducible and a secure run uses no predictable generator.
  const source = noise.mode === 'secure' ? secureNoise() : seededNoise(`${noise.seed}/decode`);
  const rows = decodedRows(table.schema, table.codes, result.synthetic.n, { random: () => source.uniform() });
  const categorical = table.schema.columns.map((c) => c.kind === 'categorical');
  await writeCsv(file, table.header, escapedRows(rows, categorical), opts);
  return { path: file, rows: result.synthetic.n, header: table.header };
}
