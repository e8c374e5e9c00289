/**
 * The synthetic table as it is written: the input's column order, values decoded from the
 * rounded codes, the CSV written atomically and hashed.
 */
import { writeCsv } from '../data/csv-write.ts';
import { decodedRows } from '../data/decode.ts';
import type { LoadResult } from '../data/load.ts';
import type { NoiseSpec } from '../engine/process/protocol.ts';
import type { RapResult } from '../engine/types.ts';
import { secureNoise, seededNoise } from '../privacy/noise.ts';

/**
 * The synthetic table in the input's column order (header equal to the input's header, less
 * columns the schema leaves out); schema order for a file without a header.
 */
function outputTable(loaded: LoadResult, result: RapResult) {
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
  loaded: LoadResult,
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
  await writeCsv(file, table.header, rows, opts);
  return { path: file, rows: result.synthetic.n, header: table.header };
}
