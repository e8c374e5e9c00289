/**
 * REFERENCE surrogate answers on a relaxed dataset D' (n' rows × d' columns, row-major, each
 * feature block a point of the simplex): the threshold query as the multilinear polynomial in
 * the one-hot entries, expanded into product tables (plain inclusion–exclusion, or the negation
 * trick for r ≤ k/2). On the exact one-hot encoding it equals the counting answers.
 *
 * This is the correctness oracle for the engine's fast kernels: clear and exact (float64
 * accumulation) rather than fast, but O(n' · table) and never exponential in n'.
 */
import type { OneHotLayout } from '../data/onehot.ts';
import {
  combineTables,
  type ExpansionChoice,
  type ThresholdExpansion,
  thresholdExpansion,
} from './inclusion-exclusion.ts';
import { localIndexToTarget, tableSize, thresholdSizes } from './queries.ts';
import type { Threshold } from './types.ts';

export interface SurrogateOptions {
  /** Which expansion to evaluate; 'auto' (default) uses the negation trick when r ≤ k/2. */
  readonly form?: ExpansionChoice;
}

/** One selected query with its coefficient in the objective Σ coeff_i · q̂_i(D'). */
export interface SelectedQuery {
  readonly threshold: Threshold;
  /** Local index, row-major over threshold.features. */
  readonly local: number;
  readonly coeff: number;
}

function assertShape(D: Float32Array, nRows: number, layout: OneHotLayout): void {
  if (!Number.isInteger(nRows) || nRows < 1)
    throw new RangeError(`nRows must be an integer >= 1, got ${nRows}`);
  if (D.length !== nRows * layout.width) {
    throw new RangeError(`relaxed data has ${D.length} entries, expected ${nRows} × ${layout.width}`);
  }
}

/**
 * The threshold's polynomial as every surrogate evaluates it: its expansion under `options.form`,
 * and whether the variables are the complements 1 − x (the negation trick). One place, so
 * answers and gradients always expand the same polynomial.
 */
function polynomialOf(
  t: Threshold,
  options: SurrogateOptions,
): { expansion: ThresholdExpansion; complement: boolean } {
  const expansion = thresholdExpansion(t.features.length, t.r, options.form);
  return { expansion, complement: expansion.form === 'negated' };
}

/**
 * (1/n') Σ_rows ⊗_{f ∈ features} block_f(row), row-major over the features: the product table of
 * the blocks (or of their complements 1 − x).
 */
export function referenceProductTable(
  D: Float32Array,
  nRows: number,
  layout: OneHotLayout,
  features: readonly number[],
  complement: boolean,
): Float64Array {
  assertShape(D, nRows, layout);
  const dims = features.map((f) => layout.sizes[f]);
  const offsets = features.map((f) => layout.offsets[f]);
  const acc = new Float64Array(tableSize(dims));
  const k = features.length;
  let rowBase = 0;
  // Row-wise outer product, depth-first; a zero factor prunes its whole sub-block (one-hot rows).
  const accumulate = (level: number, index: number, product: number): void => {
    if (level === k) {
      acc[index] += product;
      return;
    }
    const start = rowBase + offsets[level];
    for (let v = 0; v < dims[level]; v++) {
      const x = D[start + v];
      const factor = complement ? 1 - x : x;
      if (factor !== 0) accumulate(level + 1, index * dims[level] + v, product * factor);
    }
  };
  for (let row = 0; row < nRows; row++) {
    rowBase = row * layout.width;
    accumulate(0, 0, 1);
  }
  for (let i = 0; i < acc.length; i++) acc[i] /= nRows;
  return acc;
}

/** Surrogate answers of ALL queries of a threshold, row-major over t.features. */
export function surrogateThresholdAnswers(
  D: Float32Array,
  nRows: number,
  layout: OneHotLayout,
  t: Threshold,
  options: SurrogateOptions = {},
): Float64Array {
  assertShape(D, nRows, layout);
  const k = t.features.length;
  const { expansion, complement } = polynomialOf(t, options);
  return combineTables(k, thresholdSizes(t, layout.sizes), expansion.terms, (subset) =>
    referenceProductTable(
      D,
      nRows,
      layout,
      subset.map((p) => t.features[p]),
      complement,
    ),
  );
}

/** The polynomial's variables for one row: z_j = x or 1 − x at the target's column of block j. */
function rowVariables(
  D: Float32Array,
  rowBase: number,
  columns: readonly number[],
  complement: boolean,
  z: Float64Array,
): void {
  for (let j = 0; j < columns.length; j++) {
    const x = D[rowBase + columns[j]];
    z[j] = complement ? 1 - x : x;
  }
}

/** Σ_terms c_T Π_{j∈T} z_j. */
function evaluateExpansion(expansion: ThresholdExpansion, z: Float64Array): number {
  let sum = 0;
  for (const term of expansion.terms) {
    let p = term.coefficient;
    for (const j of term.subset) p *= z[j];
    sum += p;
  }
  return sum;
}

/** grad[j] = ∂/∂z_j Σ_terms c_T Π_{l∈T} z_l = Σ_{T∋j} c_T Π_{l∈T, l≠j} z_l. */
function expansionGradient(expansion: ThresholdExpansion, z: Float64Array, grad: Float64Array): void {
  grad.fill(0);
  for (const term of expansion.terms) {
    for (const j of term.subset) {
      let p = term.coefficient;
      for (const l of term.subset) if (l !== j) p *= z[l];
      grad[j] += p;
    }
  }
}

/** One-hot columns of the target of a local index. */
function targetColumns(layout: OneHotLayout, t: Threshold, local: number): number[] {
  const target = localIndexToTarget(local, thresholdSizes(t, layout.sizes));
  return t.features.map((f, j) => layout.offsets[f] + target[j]);
}

/** Surrogate answers of the listed queries (local indices) of one threshold. */
export function surrogateSelectedAnswers(
  D: Float32Array,
  nRows: number,
  layout: OneHotLayout,
  t: Threshold,
  localIndices: ArrayLike<number>,
  options: SurrogateOptions = {},
): Float64Array {
  assertShape(D, nRows, layout);
  const k = t.features.length;
  const { expansion, complement } = polynomialOf(t, options);
  const z = new Float64Array(k);
  const out = new Float64Array(localIndices.length);
  for (let q = 0; q < localIndices.length; q++) {
    const columns = targetColumns(layout, t, localIndices[q]);
    let sum = 0;
    for (let row = 0; row < nRows; row++) {
      rowVariables(D, row * layout.width, columns, complement, z);
      sum += evaluateExpansion(expansion, z);
    }
    out[q] = sum / nRows;
  }
  return out;
}

/** ∂/∂D' of Σ_i coeff_i · q̂_i(D'), row-major n' × d' like D'. */
export function surrogateSelectedGradient(
  D: Float32Array,
  nRows: number,
  layout: OneHotLayout,
  queries: readonly SelectedQuery[],
  options: SurrogateOptions = {},
): Float32Array {
  assertShape(D, nRows, layout);
  const grad = new Float64Array(D.length);
  for (const { threshold: t, local, coeff } of queries) {
    const k = t.features.length;
    const { expansion, complement } = polynomialOf(t, options);
    // d(1 − x)/dx = −1 in the negated form.
    const sign = complement ? -1 : 1;
    const columns = targetColumns(layout, t, local);
    const z = new Float64Array(k);
    const g = new Float64Array(k);
    const scale = (sign * coeff) / nRows;
    for (let row = 0; row < nRows; row++) {
      const rowBase = row * layout.width;
      rowVariables(D, rowBase, columns, complement, z);
      expansionGradient(expansion, z, g);
      for (let j = 0; j < k; j++) grad[rowBase + columns[j]] += scale * g[j];
    }
  }
  return Float32Array.from(grad);
}
