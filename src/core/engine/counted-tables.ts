/**
 * Exact tables of the private data, from either form (data/counted.ts): counted from the rows,
 * or read from a CountedDataset — transposed from its ascending-key table into the order the
 * caller lists the features in, or summed out of the smallest stored table over a superset
 * (table mode's units are sub-tables of the thresholds'). All arithmetic is on integer counts
 * (exact in float64 below 2^53), so both forms give the same numbers bit for bit.
 *
 * A table the counted data cannot give is an internal error naming the features (the counting
 * step missed a set that required-tables.ts lists): never a silent zero.
 */
import { type CountedDataset, isCounted, type PrivateData, tableKey } from '../data/counted.ts';
import { domainSize, type EncodedDataset } from '../data/schema.ts';
import { contingencyTable } from '../workload/exact.ts';
import { marginalize, rowMajorStrides, tableSize } from '../workload/table.ts';

/** Counts of every combination of the features' codes, row-major over `features` as listed (a fresh array). */
export function exactCounts(data: PrivateData, features: readonly number[]): Float64Array {
  return isCounted(data) ? countedTable(data, features) : contingencyTable(data, features);
}

/** The counted data's table over `features` (any order, distinct), a fresh array. */
export function countedTable(data: CountedDataset, features: readonly number[]): Float64Array {
  const sorted = [...features].sort((a, b) => a - b);
  const { table, over } = storedTableOver(data, sorted);
  const dims = over.map((f) => domainSize(data.schema.columns[f]));
  const keep = sorted.map((f) => over.indexOf(f));
  // A fresh array either way: summed out, transposed, or copied (the stored table stays as it is).
  const summed = over.length === sorted.length ? table : marginalize(table, dims, keep);
  const out = transpose(summed, sorted, features, (f) => domainSize(data.schema.columns[f]));
  return out === table ? Float64Array.from(table) : out;
}

/**
 * The stored cell count of one combination, the target's codes listed in `features`' order, when
 * the table over exactly these features is stored (no copy); undefined otherwise.
 */
export function storedCell(
  data: CountedDataset,
  features: readonly number[],
  target: readonly number[],
): number | undefined {
  const sorted = [...features].sort((a, b) => a - b);
  const table = data.tables.get(tableKey(sorted));
  if (!table) return undefined;
  const strides = rowMajorStrides(sorted.map((f) => domainSize(data.schema.columns[f])));
  let index = 0;
  features.forEach((f, j) => {
    index += target[j] * strides[sorted.indexOf(f)];
  });
  return table[index];
}

/** The stored table over `sorted`, or over its smallest stored superset. */
function storedTableOver(
  data: CountedDataset,
  sorted: readonly number[],
): { table: Float64Array; over: readonly number[] } {
  const exact = data.tables.get(tableKey(sorted));
  if (exact) return { table: exact, over: sorted };
  let best: { table: Float64Array; over: number[] } | undefined;
  for (const [key, table] of data.tables) {
    const over = key.split(',').map(Number);
    if (!sorted.every((f) => over.includes(f))) continue;
    if (!best || table.length < best.table.length) best = { table, over };
  }
  if (best) return best;
  const names = sorted.map((f) => data.schema.columns[f]?.name ?? `#${f}`);
  throw new Error(
    `internal: the counted data holds no exact table over features [${sorted.join(', ')}] ` +
      `(${names.join(', ')}) nor any superset of them: the counting step missed a table the engine ` +
      `needs (engine/required-tables.ts lists them)`,
  );
}

/** The row-major table over `from` (ascending) with its axes in the order `to` (itself if the same order). */
function transpose(
  table: Float64Array,
  from: readonly number[],
  to: readonly number[],
  size: (f: number) => number,
): Float64Array {
  if (from.every((f, j) => to[j] === f)) return table;
  const fromStrides = rowMajorStrides(from.map(size));
  const dims = to.map(size);
  const strides = to.map((f) => fromStrides[from.indexOf(f)]);
  const out = new Float64Array(tableSize(dims));
  const k = dims.length;
  const counter = new Array<number>(k).fill(0);
  const last = dims[k - 1];
  const lastStride = strides[k - 1];
  let source = 0;
  for (let c = 0; c < out.length; c += last) {
    for (let v = 0; v < last; v++) out[c + v] = table[source + v * lastStride];
    // Odometer over the leading axes, keeping the source offset in step.
    for (let j = k - 2; j >= 0; j--) {
      source += strides[j];
      if (++counter[j] < dims[j]) break;
      source -= strides[j] * dims[j];
      counter[j] = 0;
    }
  }
  return out;
}

/** The counted form of rows: the exact tables over the given feature sets (each ascending). */
export function countRows(data: EncodedDataset, featureSets: readonly (readonly number[])[]): CountedDataset {
  const tables = new Map<string, Float64Array>();
  for (const features of featureSets) tables.set(tableKey(features), contingencyTable(data, features));
  return { kind: 'counted', schema: data.schema, n: data.n, tables };
}
