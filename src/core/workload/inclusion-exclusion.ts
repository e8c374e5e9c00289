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
import { broadcastAdd, tableSize } from './table.ts';

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
