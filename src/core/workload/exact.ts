/**
 * Exact threshold answers on the private data, by counting. The k-way contingency table of S is
 * counted once (O(n)); for r < k the subset tables are its marginals, combined by
 * inclusion–exclusion (factorized axis by axis, see exactThresholdAnswers). All arithmetic is
 * on integer counts, so the result is exact until the final division by n. Never one-hot
 * products: those cost O(n · table).
 *
 * The answers are exact statistics of the private data: never log them or release them.
 */

import { domainSize, type EncodedDataset } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { atLeastRMatches, cheaperSide } from './at-least-r.ts';
import { thresholdTerms } from './inclusion-exclusion.ts';
import { broadcastAdd, sumOut, tableSize } from './table.ts';
import type { Threshold, Workload } from './types.ts';

/**
 * Largest table this module allocates (2^28 cells = 2 GiB of float64). Bigger thresholds must be
 * answered query by query.
 */
export const MAX_TABLE_CELLS = 2 ** 28;

export function assertTableFits(dims: readonly number[], what: string): void {
  const size = tableSize(dims);
  if (size > MAX_TABLE_CELLS) {
    throw new InputError(
      `${what} has ${size} queries (domain sizes ${dims.join(' × ')}); whole-threshold tables are limited to ` +
        `2^28 = ${MAX_TABLE_CELLS} cells. Use fewer or smaller features in this threshold.`,
    );
  }
}

function featureDims(data: EncodedDataset, features: readonly number[]): number[] {
  return features.map((f) => {
    const codes = data.codes[f];
    const column = data.schema.columns[f];
    if (codes === undefined || column === undefined) {
      throw new RangeError(`feature index ${f} is outside the dataset's ${data.codes.length} columns`);
    }
    return domainSize(column);
  });
}

/** Counts of every combination of the features' codes, row-major over the listed features. */
export function contingencyTable(data: EncodedDataset, features: readonly number[]): Float64Array {
  const dims = featureDims(data, features);
  assertTableFits(dims, `the table over features [${features.join(', ')}]`);
  // Cell index per row, built column by column (sequential access to each code array).
  const cell = new Float64Array(data.n);
  features.forEach((f, j) => {
    const codes = data.codes[f];
    const d = dims[j];
    for (let i = 0; i < data.n; i++) {
      const c = codes[i];
      if (c >= d) throw new RangeError(`column ${f} has code ${c} outside its domain 0..${d - 1}`);
      cell[i] = cell[i] * d + c;
    }
  });
  const counts = new Float64Array(tableSize(dims));
  for (let i = 0; i < data.n; i++) counts[cell[i]]++;
  return counts;
}

/**
 * Marginals of the full table for the given subsets (positions, ascending), each computed from
 * its cheapest already-known superset by summing out one axis at a time.
 */
function marginals(
  full: Float64Array,
  dims: readonly number[],
  subsets: readonly (readonly number[])[],
): Map<number, Float64Array> {
  const k = dims.length;
  const fullMask = (1 << k) - 1;
  const known = new Map<number, Float64Array>([[fullMask, full]]);
  const positions = (mask: number): number[] => dims.map((_, p) => p).filter((p) => mask & (1 << p));
  const get = (mask: number): Float64Array => {
    const hit = known.get(mask);
    if (hit) return hit;
    // Parent: add back the missing position with the smallest domain (the cheapest sum).
    let best = -1;
    for (let p = 0; p < k; p++) if (!(mask & (1 << p)) && (best < 0 || dims[p] < dims[best])) best = p;
    const parentMask = mask | (1 << best);
    const parentPositions = positions(parentMask);
    const table = sumOut(
      get(parentMask),
      parentPositions.map((p) => dims[p]),
      parentPositions.indexOf(best),
    );
    known.set(mask, table);
    return table;
  };
  const out = new Map<number, Float64Array>();
  for (const s of subsets) {
    const mask = s.reduce((m, p) => m | (1 << p), 0);
    out.set(mask, get(mask));
  }
  return out;
}

function assertRows(data: EncodedDataset): void {
  if (data.n === 0) {
    throw new InputError('the dataset has no rows: threshold answers (fractions of rows) are undefined');
  }
}

/** Divides counts by n in place (not × 1/n: each answer is count / n correctly rounded). */
function toFractions(counts: Float64Array, n: number): Float64Array {
  for (let i = 0; i < counts.length; i++) counts[i] /= n;
  return counts;
}

/**
 * The exact answers of all queries of a threshold: fractions of rows with at least r of the k
 * listed features equal to the target, row-major over t.features.
 *
 * Inclusion–exclusion over the marginals, in factorized form: the sum over subsets T ⊆ S of
 * broadcast marginals is a product of one operator per axis, so it is applied axis by axis to
 * the contingency table (see at-least-r.ts). Same numbers as
 * {@link exactAnswersByInclusionExclusion}, in O(n + table · k · min(r, k−r+1)) instead of
 * O(n + table · 2^k): 1-of-4 on ADULT's largest domains (10^8 queries) takes 4 passes instead
 * of 15 broadcasts.
 */
export function exactThresholdAnswers(data: EncodedDataset, t: Threshold): Float64Array {
  assertRows(data);
  const dims = featureDims(data, t.features);
  return matchCountTransform(contingencyTable(data, t.features), dims, t.r, data.n);
}

/**
 * The answers of an r-of-k threshold from its k-way table of counts over n rows (row-major over
 * the threshold's features, domain sizes `dims`), leaving the table as it was. The map is affine
 * in the table (linear plus n), so a table with additive noise gives answers with additive noise
 * that does not depend on the table: what the Gaussian-mechanism baseline
 * (engine/baselines/gm-tables.ts) relies on.
 */
export function thresholdAnswersFromTable(
  table: Float64Array,
  dims: readonly number[],
  r: number,
  n: number,
): Float64Array {
  if (table.length !== tableSize(dims))
    throw new RangeError(`table has ${table.length} cells, dims ${dims.join(' × ')} need ${tableSize(dims)}`);
  if (!Number.isInteger(r) || r < 1 || r > dims.length)
    throw new RangeError(`r must be an integer in 1..${dims.length}, got ${r}`);
  return matchCountTransform(Float64Array.from(table), dims, r, n);
}

/**
 * {@link exactThresholdAnswers} from the threshold's contingency table of integer counts over n
 * rows (row-major over t.features, `dims`), which it consumes: the same numbers bit for bit, for
 * private data held as exact tables (data/counted.ts) rather than rows.
 */
export function exactAnswersFromCounts(
  counts: Float64Array,
  dims: readonly number[],
  r: number,
  n: number,
): Float64Array {
  if (n === 0)
    throw new InputError('the dataset has no rows: threshold answers (fractions of rows) are undefined');
  if (counts.length !== tableSize(dims))
    throw new RangeError(
      `table has ${counts.length} cells, dims ${dims.join(' × ')} need ${tableSize(dims)}`,
    );
  return matchCountTransform(counts, dims, r, n);
}

/**
 * From the contingency table C[z] (overwritten) to the answers: the rows with at least r matches
 * of each target (at-least-r.ts, on the side with fewer classes: min(r, k − r + 1) tables; r = k
 * needs no pass, the contingency table is the answer), divided by n. The counts are integers, so
 * either side gives them exactly; division (not multiplication by 1/n) so that each answer is
 * count / n correctly rounded.
 */
function matchCountTransform(
  full: Float64Array,
  dims: readonly number[],
  r: number,
  n: number,
): Float64Array {
  const out = atLeastRMatches(full, dims, r, { side: cheaperSide(dims.length, r), total: n });
  for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}

/**
 * The same answers by the literal formula: answers = Σ_{i=r..k} (−1)^{i−r} C(i−1, i−r)
 * Σ_{|T|=i} C_T broadcast over S, with every marginal C_T summed out of the contingency table
 * and combined by broadcast-adds. O(n + table · 2^k): kept as the readable reference that
 * {@link exactThresholdAnswers} is checked against.
 */
export function exactAnswersByInclusionExclusion(data: EncodedDataset, t: Threshold): Float64Array {
  assertRows(data);
  const k = t.features.length;
  const dims = featureDims(data, t.features);
  const full = contingencyTable(data, t.features);
  const terms = thresholdTerms(k, t.r);
  const fullTerm = terms[terms.length - 1]; // the only size-k subset, listed last
  const rest = terms.slice(0, -1);
  const tables = marginals(
    full,
    dims,
    rest.map((term) => term.subset),
  );
  // Reuse the full table as the output: scale it by its own coefficient, then add the rest.
  for (let i = 0; i < full.length; i++) full[i] *= fullTerm.coefficient;
  for (const term of rest) {
    const mask = term.subset.reduce((m, p) => m | (1 << p), 0);
    broadcastAdd(full, dims, term.subset, tables.get(mask)!, term.coefficient);
  }
  return toFractions(full, data.n);
}

/**
 * Exact answers threshold by threshold, in workload order; memory is one threshold's tables at a
 * time (the callback must copy what it keeps).
 */
export function streamExactAnswers(
  data: EncodedDataset,
  w: Workload,
  cb: (thresholdIndex: number, answers: Float64Array, threshold: Threshold) => void,
): void {
  w.thresholds.forEach((t, i) => {
    cb(i, exactThresholdAnswers(data, t), t);
  });
}
