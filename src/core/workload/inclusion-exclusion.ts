/**
 * The linear map from product tables to r-of-k threshold answers, shared by the exact answers
 * (contingency tables), the surrogate answers (relaxed product tables) and the engine's table
 * mode.
 *
 * Plain form: with table_T(y_T) = share of rows matching y on every feature of T,
 *   answers = Σ_{i=r..k} (-1)^{i-r} C(i-1, i-r) Σ_{T⊆S,|T|=i} table_T broadcast over S.
 * Negated form: "at least r of k match" = 1 − "at least k−r+1 of k do NOT match", i.e. the plain
 * form for r' = k−r+1 over complement tables (products of 1 − x) subtracted from 1. Both are the
 * same multilinear polynomial in the one-hot (or relaxed) entries, so they agree exactly on any
 * relaxed data; the negated form only has fewer product terms when r ≤ k/2 (r = 1: two terms
 * instead of 2^k − 1).
 */
import { rowMajorStrides, tableSize } from './queries.ts';

/** One product table of the expansion: subset T of S (positions within S, ascending). */
export interface ProductTerm {
  readonly subset: readonly number[];
  readonly coefficient: number;
}

/**
 * 'plain': tables are products of x; 'negated': tables of non-empty subsets are products of the
 * complements 1 − x. The empty subset is the constant 1 in both forms.
 */
export type ExpansionForm = 'plain' | 'negated';

export interface ThresholdExpansion {
  readonly form: ExpansionForm;
  readonly terms: readonly ProductTerm[];
}

export type ExpansionChoice = ExpansionForm | 'auto';

function assertKR(k: number, r: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be an integer >= 1, got ${k}`);
  if (!Number.isInteger(r) || r < 1 || r > k)
    throw new RangeError(`r must be an integer in 1..${k}, got ${r}`);
}

/** Binomial coefficient C(n, m) for the small n of threshold sizes (exact below 2^53). */
export function binomial(n: number, m: number): number {
  if (m < 0 || m > n) return 0;
  m = Math.min(m, n - m);
  let c = 1;
  for (let i = 1; i <= m; i++) c = (c * (n - m + i)) / i;
  return Math.round(c);
}

/** All size-m subsets of 0..k−1, each ascending, in lexicographic order. */
export function subsetsOfSize(k: number, m: number): number[][] {
  const out: number[][] = [];
  const cur: number[] = [];
  const rec = (start: number): void => {
    if (cur.length === m) {
      out.push([...cur]);
      return;
    }
    for (let p = start; p <= k - (m - cur.length); p++) {
      cur.push(p);
      rec(p + 1);
      cur.pop();
    }
  };
  rec(0);
  return out;
}

/** The plain inclusion–exclusion terms of "at least r of k", subsets by size then lexicographic. */
export function thresholdTerms(k: number, r: number): ProductTerm[] {
  assertKR(k, r);
  const terms: ProductTerm[] = [];
  for (let i = r; i <= k; i++) {
    const coefficient = (i - r) % 2 === 0 ? binomial(i - 1, i - r) : -binomial(i - 1, i - r);
    for (const subset of subsetsOfSize(k, i)) terms.push({ subset, coefficient });
  }
  return terms;
}

/**
 * The negated-form terms: 1 − Σ (plain terms of r' = k − r + 1); the tables of the non-empty
 * subsets are over the complements 1 − x.
 */
export function negatedThresholdTerms(k: number, r: number): ProductTerm[] {
  assertKR(k, r);
  const rest = thresholdTerms(k, k - r + 1).map((t) => ({ subset: t.subset, coefficient: -t.coefficient }));
  return [{ subset: [], coefficient: 1 }, ...rest];
}

/** Whether the negation trick has fewer terms: exactly when r ≤ k/2. */
export function prefersNegation(k: number, r: number): boolean {
  return 2 * r <= k;
}

export function thresholdExpansion(
  k: number,
  r: number,
  choice: ExpansionChoice = 'auto',
): ThresholdExpansion {
  const form: ExpansionForm = choice === 'auto' ? (prefersNegation(k, r) ? 'negated' : 'plain') : choice;
  return { form, terms: form === 'plain' ? thresholdTerms(k, r) : negatedThresholdTerms(k, r) };
}

/**
 * out[y] += coefficient · table[y_T] for every y in the row-major table over dims, where table is
 * row-major over the dims of `subset` (positions within dims, ascending).
 */
export function broadcastAdd(
  out: Float64Array,
  dims: readonly number[],
  subset: readonly number[],
  table: Float64Array,
  coefficient: number,
): void {
  const subDims = subset.map((p) => dims[p]);
  if (table.length !== tableSize(subDims)) {
    throw new RangeError(
      `table for subset [${subset}] has ${table.length} cells, expected ${tableSize(subDims)}`,
    );
  }
  if (out.length !== tableSize(dims))
    throw new RangeError(`output has ${out.length} cells, expected ${tableSize(dims)}`);
  if (subset.length === 0) {
    const v = coefficient * table[0];
    for (let i = 0; i < out.length; i++) out[i] += v;
    return;
  }
  const runs = mergeRuns(dims, subset);
  const inner = runs[runs.length - 1];
  const outer = runs.slice(0, -1);
  const counter = new Array<number>(outer.length).fill(0);
  let base = 0;
  for (let o = 0; o < out.length; o += inner.size) {
    if (inner.tableStride === 0) {
      const v = coefficient * table[base];
      for (let i = 0; i < inner.size; i++) out[o + i] += v;
    } else {
      for (let i = 0; i < inner.size; i++) out[o + i] += coefficient * table[base + i];
    }
    // Odometer over the outer runs, updating the table offset incrementally.
    for (let j = outer.length - 1; j >= 0; j--) {
      const run = outer[j];
      base += run.tableStride;
      if (++counter[j] < run.size) break;
      base -= run.tableStride * run.size;
      counter[j] = 0;
    }
  }
}

interface Run {
  readonly size: number;
  /** Stride of the run in the subset table: 0 for positions outside the subset. */
  readonly tableStride: number;
}

/**
 * Consecutive positions that are all in the subset (or all outside it) merge into one axis:
 * inside a run of members the subset-table index is contiguous, outside it is constant. This
 * keeps the inner loop long even when the last feature has 2 categories.
 */
function mergeRuns(dims: readonly number[], subset: readonly number[]): Run[] {
  const member = dims.map(() => false);
  for (const p of subset) member[p] = true;
  const strides = rowMajorStrides(subset.map((p) => dims[p]));
  const strideAt = new Map(subset.map((p, i) => [p, strides[i]]));
  const runs: { size: number; tableStride: number; member: boolean }[] = [];
  for (let j = dims.length - 1; j >= 0; j--) {
    const first = runs[0];
    if (first !== undefined && first.member === member[j]) first.size *= dims[j];
    else runs.unshift({ size: dims[j], tableStride: member[j] ? strideAt.get(j)! : 0, member: member[j] });
  }
  return runs;
}

/**
 * Σ_terms coefficient · table_T broadcast over S: the answers of all queries of a threshold over
 * dims (k = dims.length). tableOf(subset) gives the row-major table over the subset's dims; the
 * empty subset is the constant 1 and is never asked for.
 */
export function combineTables(
  k: number,
  dims: readonly number[],
  terms: readonly ProductTerm[],
  tableOf: (subset: readonly number[]) => Float64Array,
): Float64Array {
  if (dims.length !== k) throw new RangeError(`combineTables: ${dims.length} dims for k = ${k}`);
  const out = new Float64Array(tableSize(dims));
  const one = new Float64Array([1]);
  for (const term of terms) {
    const table = term.subset.length === 0 ? one : tableOf(term.subset);
    broadcastAdd(out, dims, term.subset, table, term.coefficient);
  }
  return out;
}
