/**
 * The person as the unit of privacy: contribution bounding and the two person-level statistics
 * a release needs before anything else (docs/privacy.md, "The unit of privacy").
 *
 * Neighbouring relation at the person level: D′ is D with ONE PERSON's rows added, removed or
 * replaced by another person's rows (whatever their number). Every sensitivity below is the larger
 * of the add/remove and the replace one, so each mechanism is private under both relations.
 *
 * - `boundContributions`: at most k rows per person are kept; a person with more keeps a
 *   uniformly random k of them, drawn from the run's noise source (node:crypto in a release). The
 *   rows kept of a person depend only on that person's rows and fresh randomness, so after
 *   bounding, neighbours differ in at most k rows of one person (with the same randomness for
 *   everyone else; a mixture over the person's own draws keeps each Rényi divergence bound, by
 *   joint quasi-convexity). Uniformity is for fidelity, not privacy: any per-person rule would do.
 * - `chooseBound`: k chosen privately, as the smallest value of a public grid at or above the
 *   BOUND_QUANTILE quantile of rows per person, read off a Gaussian histogram of persons by their
 *   row count on the grid's buckets. A person falls in one bucket: ℓ2 sensitivity √2 (replace; 1
 *   under add/remove), ρ-zCDP with σ = √2/√(2ρ) = 1/√ρ; the choice is post-processing.
 * - `estimateRows`: the bounded row count n_k = Σ_p min(rows_p, k) depends on the data (one person
 *   moves it by up to k), so it is not public; it is measured with the Gaussian mechanism at ℓ2
 *   sensitivity k (σ = k/√(2ρ)), and every later normalisation uses this estimate n̂, rounded to an
 *   integer ≥ 1 (post-processing).
 */
import { gaussianMechanism } from './gaussian.ts';
import type { NoiseSource } from './noise.ts';

/** The public grid for a privately chosen k (rows per person). */
export const BOUND_GRID: readonly number[] = [1, 2, 4, 8, 16, 32, 64];
/**
 * k covers this share of persons (all of their rows): the 90th percentile, the rule DP tools offer
 * for an L0/L∞ bound (PipelineDP's and Tumult's guidance: a high quantile of contributions, not the
 * maximum, which one person sets alone).
 */
export const BOUND_QUANTILE = 0.9;

/** An integer in [0, m) from the secure uniform: bias at most m·2⁻⁵³ per value (m ≪ 2⁵³ here). */
function uniformIndex(noise: NoiseSource, m: number): number {
  return Math.min(m - 1, Math.floor(noise.uniform() * m));
}

export interface BoundedRows {
  /** keep[i] = 1 when record i enters the release. */
  readonly keep: Uint8Array;
  /** Records kept: Σ_p min(rows_p, k). Private. */
  readonly kept: number;
  /** Distinct persons. Private. */
  readonly persons: number;
  /** Records of person p in order of first appearance (record indices, kept ones first k). Private. */
  readonly order: Int32Array;
  /** order[start[p] .. start[p] + min(rows_p, k)) are person p's kept records. Private. */
  readonly start: Int32Array;
  readonly taken: Int32Array;
}

/** Dense person indices (0…P−1, in order of first appearance) for the records' identifiers. */
export function personIndices(ids: readonly string[]): {
  readonly person: Int32Array;
  readonly persons: number;
} {
  const index = new Map<string, number>();
  const person = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    let p = index.get(ids[i]);
    if (p === undefined) {
      p = index.size;
      index.set(ids[i], p);
    }
    person[i] = p;
  }
  return { person, persons: index.size };
}

/**
 * At most k records per person, a uniform k-subset (partial Fisher–Yates on the secure source)
 * for a person with more. `person[i]` is record i's person index in [0, persons).
 */
export function boundContributions(
  person: Int32Array,
  persons: number,
  k: number,
  noise: NoiseSource,
): BoundedRows {
  if (!Number.isSafeInteger(k) || k < 1)
    throw new RangeError(`rows per person must be an integer >= 1, got ${k}`);
  const rows = new Int32Array(persons);
  for (let i = 0; i < person.length; i++) rows[person[i]]++;
  const start = new Int32Array(persons + 1);
  for (let p = 0; p < persons; p++) start[p + 1] = start[p] + rows[p];
  const fill = start.slice(0, persons);
  const order = new Int32Array(person.length);
  for (let i = 0; i < person.length; i++) order[fill[person[i]]++] = i;
  const keep = new Uint8Array(person.length);
  const taken = new Int32Array(persons);
  let kept = 0;
  for (let p = 0; p < persons; p++) {
    const s = start[p];
    const r = rows[p];
    const t = Math.min(r, k);
    if (r > k) {
      // The first t places become a uniform t-subset of the person's r records.
      const picks = sampleRanks(r, k, noise);
      for (let j = 0; j < t; j++) {
        const pick = s + picks[j];
        const tmp = order[s + j];
        order[s + j] = order[pick];
        order[pick] = tmp;
      }
    }
    for (let j = 0; j < t; j++) keep[order[s + j]] = 1;
    taken[p] = t;
    kept += t;
  }
  return { keep, kept, persons, order, start, taken };
}

/**
 * The draws of one person's uniform k-subset of r > k records (partial Fisher–Yates; called only for
 * r > k: a person within k keeps every record and draws nothing): picks[j] is
 * the place in [j, r) swapped into place j, for j < k, each `uniformIndex(noise, r − j)` in this
 * order. `keptRanks` turns them into the kept records' ranks. boundContributions draws through
 * this, and so does the SQL bounding (counting/person-table.ts), so one noise stream gives both
 * the same records.
 */
export function sampleRanks(r: number, k: number, noise: NoiseSource): Int32Array {
  const picks = new Int32Array(Math.min(r, k));
  for (let j = 0; j < picks.length; j++) picks[j] = j + uniformIndex(noise, r - j);
  return picks;
}

/**
 * The ranks (0-based, in the person's record order) of the records `picks` keep: the first k
 * places after the swaps, applied to the identity order 0…r−1.
 */
export function keptRanks(r: number, picks: Int32Array): Int32Array {
  // Only the places swapped matter: a sparse identity.
  const moved = new Map<number, number>();
  const at = (i: number) => moved.get(i) ?? i;
  for (let j = 0; j < picks.length; j++) {
    const a = at(j);
    moved.set(j, at(picks[j]));
    moved.set(picks[j], a);
  }
  return Int32Array.from({ length: Math.min(r, picks.length) }, (_, j) => at(j));
}

/** Rows per person (private), from the person indices. */
export function rowsPerPerson(person: Int32Array, persons: number): Int32Array {
  const rows = new Int32Array(persons);
  for (let i = 0; i < person.length; i++) rows[person[i]]++;
  return rows;
}

/** The bucket of a row count on the grid: bucket b holds (grid[b−1], grid[b]]; the last, > max. */
export function gridBucket(rows: number, grid: readonly number[] = BOUND_GRID): number {
  for (let b = 0; b < grid.length; b++) if (rows <= grid[b]) return b;
  return grid.length;
}

export interface ChosenBound {
  readonly k: number;
  readonly rho: number;
  readonly sigma: number;
  readonly grid: readonly number[];
  /** The noisy histogram of persons by bucket (public: a Gaussian output). */
  readonly noisyPersons: readonly number[];
}

/** The histogram `chooseBound` adds noise to: persons per grid bucket (exact, private). */
export function boundHistogram(rows: ArrayLike<number>, grid: readonly number[] = BOUND_GRID): Float64Array {
  const h = new Float64Array(grid.length + 1);
  for (let p = 0; p < rows.length; p++) h[gridBucket(rows[p], grid)]++;
  return h;
}

/** ℓ2 sensitivity of boundHistogram: one person leaves one bucket and/or enters another. */
export const BOUND_HISTOGRAM_SENSITIVITY = Math.SQRT2;

/** k at ρ-zCDP: the smallest grid value whose noisy cumulative share of persons ≥ BOUND_QUANTILE. */
export function chooseBound(
  rows: ArrayLike<number>,
  rho: number,
  noise: NoiseSource,
  grid: readonly number[] = BOUND_GRID,
): ChosenBound {
  if (!(rho > 0 && Number.isFinite(rho))) throw new RangeError(`rho must be > 0, got ${rho}`);
  return chooseBoundFromHistogram(boundHistogram(rows, grid), rho, noise, grid);
}

/** chooseBound on boundHistogram's counts (persons per grid bucket), however they were counted. */
export function chooseBoundFromHistogram(
  histogram: Float64Array,
  rho: number,
  noise: NoiseSource,
  grid: readonly number[] = BOUND_GRID,
): ChosenBound {
  if (!(rho > 0 && Number.isFinite(rho))) throw new RangeError(`rho must be > 0, got ${rho}`);
  if (histogram.length !== grid.length + 1) throw new RangeError('internal: one count per grid bucket');
  const sigma = BOUND_HISTOGRAM_SENSITIVITY / Math.sqrt(2 * rho);
  const noisy = gaussianMechanism(histogram, sigma, noise);
  // Post-processing: negative noisy counts count as 0.
  const clipped = Array.from(noisy, (x) => Math.max(0, x));
  const total = clipped.reduce((a, b) => a + b, 0);
  let k = grid[grid.length - 1];
  let cumulative = 0;
  for (let b = 0; b < grid.length; b++) {
    cumulative += clipped[b];
    if (total > 0 && cumulative >= BOUND_QUANTILE * total) {
      k = grid[b];
      break;
    }
  }
  return { k, rho, sigma, grid, noisyPersons: Array.from(noisy) };
}

export interface RowEstimate {
  readonly rho: number;
  readonly sigma: number;
  /** n̂: the noisy bounded row count, rounded, at least 1 (public). */
  readonly rows: number;
}

/** ℓ2 sensitivity of the bounded row count: one person's rows, at most k. */
export function rowCountSensitivity(k: number): number {
  return k;
}

/** n̂ = round(n_k + N(0, σ²)) ≥ 1 with σ = k/√(2ρ): ρ-zCDP. */
export function estimateRows(kept: number, k: number, rho: number, noise: NoiseSource): RowEstimate {
  if (!(rho > 0 && Number.isFinite(rho))) throw new RangeError(`rho must be > 0, got ${rho}`);
  const sigma = rowCountSensitivity(k) / Math.sqrt(2 * rho);
  const [noisy] = gaussianMechanism(Float64Array.of(kept), sigma, noise);
  return { rho, sigma, rows: Math.max(1, Math.round(noisy)) };
}
