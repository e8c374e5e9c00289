/**
 * The private data as exact contingency tables over its codes, with no rows: what a counting
 * engine (DuckDB, a database) hands the engine instead of an `EncodedDataset`. Every exact answer
 * the engine needs is a function of the marginal tables over each threshold's features (r-of-k
 * answers come from the k-way table through workload/at-least-r.ts), so these tables are all it
 * holds — memory is the tables', whatever the row count.
 *
 * Holds private values (exact counts): never log it or send it anywhere but the engine.
 */
import { domainSize, type EncodedDataset, type Schema } from './schema.ts';

/** The private data as exact contingency tables over its codes — no rows. */
export interface CountedDataset {
  readonly kind: 'counted';
  readonly schema: Schema;
  readonly n: number;
  /**
   * Exact counts, row-major over the features' domains (domainSize), features in ASCENDING column
   * order (the last one varying fastest); key = tableKey(features).
   */
  readonly tables: ReadonlyMap<string, Float64Array>;
}

/** What the engine accepts as the private data: the encoded rows or their exact tables. */
export type PrivateData = EncodedDataset | CountedDataset;

export function isCounted(d: PrivateData): d is CountedDataset {
  return (d as Partial<CountedDataset>).kind === 'counted';
}

/** The key of a table over `sortedFeatures` (column indices, ascending): "0,3,7". */
export function tableKey(sortedFeatures: readonly number[]): string {
  return sortedFeatures.join(',');
}

/** Each feature set ascending, each set once (the counted data's tables, keyed by tableKey). */
export function uniqueTableFeatures(sets: readonly (readonly number[])[]): number[][] {
  const seen = new Map<string, number[]>();
  for (const s of sets) {
    const sorted = [...new Set(s)].sort((a, b) => a - b);
    seen.set(tableKey(sorted), sorted);
  }
  return [...seen.values()];
}

/** The features of a table key (inverse of tableKey), or undefined when the key is not one. */
export function parseTableKey(key: string): number[] | undefined {
  if (!/^\d+(,\d+)*$/.test(key)) return undefined;
  const features = key.split(',').map(Number);
  return tableKey(features) === key && isAscending(features) ? features : undefined;
}

function isAscending(features: readonly number[]): boolean {
  for (let j = 1; j < features.length; j++) if (!(features[j] > features[j - 1])) return false;
  return true;
}

/**
 * What is wrong with a counted dataset's shape, or undefined if nothing: every key names
 * ascending, distinct columns of the schema; every table has one cell per combination of their
 * codes; every cell is a count (an integer ≥ 0) and every table sums to n. O(cells).
 */
export function countedProblem(d: CountedDataset): string | undefined {
  const columns = d.schema.columns;
  if (!(Number.isSafeInteger(d.n) && d.n >= 0)) return `n must be a count, got ${d.n}`;
  for (const [key, table] of d.tables) {
    const features = parseTableKey(key);
    if (!features) return `table key "${key}" is not ascending column indices joined by commas`;
    const outside = features.find((f) => f >= columns.length);
    if (outside !== undefined) {
      return `table [${key}] names column ${outside}, outside the schema's ${columns.length} columns`;
    }
    if (!(table instanceof Float64Array)) return `table [${key}] is not a Float64Array`;
    const cells = features.reduce((p, f) => p * domainSize(columns[f]), 1);
    if (table.length !== cells) {
      return `table [${key}] has ${table.length} cells; its columns' domains need ${cells}`;
    }
    let sum = 0;
    for (let i = 0; i < table.length; i++) {
      const c = table[i];
      if (!(Number.isInteger(c) && c >= 0)) return `table [${key}] cell ${i} is ${c}, not a count`;
      sum += c;
    }
    if (sum !== d.n) return `table [${key}] counts ${sum} rows, not n = ${d.n}`;
  }
  return undefined;
}
