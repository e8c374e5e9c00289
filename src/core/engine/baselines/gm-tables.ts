/**
 * The honest Gaussian-mechanism baseline (issue 19; the plain baseline of Liu et al.'s "marginal
 * trick"): measure each DISTINCT table of the workload — each feature set S of a threshold —
 * once with the Gaussian mechanism at the run's ρ, and answer every r-of-k query of a threshold
 * over S from its noisy k-way table. No synthetic data: this is the floor that measuring the
 * workload directly reaches, to compare a release's error with.
 *
 * Privacy map (replace-one, n public, answers as fractions of n): replacing one record moves one
 * cell of a table down by 1/n and one up by 1/n, so each table has ℓ2 sensitivity √2/n, and the
 * N distinct tables together √(2N)/n. The Gaussian mechanism with
 *   σ = (√(2N)/n) / √(2ρ) = √(N/ρ)/n   per cell, on fractions,
 * is ρ-zCDP (`measurementSigma(ρ, { tables: N }, n)`: the engine's one stated sensitivity for
 * whole tables, measure.ts).
 *
 * Answers from a noisy table, two linear estimators (`answers`):
 * - 'cell-sums' (default; the plain baseline): an answer is the sum of the noisy cells that match
 *   at least r of its k values, so its error is the sum of those cells' noise (variance |M|·σ²
 *   for |M| matching cells);
 * - 'total-n': the noisy table is first shifted to total exactly 1 (the least-squares projection
 *   onto tables of the public total n: subtract the mean excess from every cell), then summed the
 *   same way; error variance |M|(1 − |M|/C)·σ² ≤ min(|M|, C − |M|)·σ², never worse, and much
 *   better when most cells match (e.g. 1-of-3 over large domains).
 *
 * Its expected max error over the workload. Either way the answers are linear in the noise z, so
 * the errors are L·z — the same whatever the data — and the expected max error over all queries
 * is a public, data-independent number:
 * - exact (numerical integration, `expectedMaxAbsNormal`) for 'cell-sums' when every threshold is
 *   a marginal (r = k): the errors are then the cells' noise, iid N(0, σ²) over all C cells of
 *   the distinct tables, so E max = σ·E max_{i≤C} |Z_i|;
 * - otherwise by Monte-Carlo simulation with seeded (public, deterministic) simulation noise:
 *   repetitions until the standard error is at most `relativePrecision` of the mean (default 1%,
 *   i.e. ±2% at two standard errors), reported as mean ± standard error.
 * This holds only for answers that are linear in the noisy table as published — no clipping to
 * [0, 1], no projection onto consistent tables, no rounding to counts; any of those makes the
 * error depend on the data (and usually smaller). Simulation noise never touches private data,
 * so it need not come from node:crypto.
 */
import { thresholdAnswersFromTable } from '../../workload/exact.ts';
import { type Rng, seededRng } from '../../workload/prng.ts';
import { tableSize } from '../../workload/queries.ts';
import type { Workload } from '../../workload/types.ts';
import { expectedMaxAbsNormal } from '../gaussian-baseline.ts';
import { measurementSigma } from '../measure.ts';

/** ℓ2 sensitivity of N distinct tables over n records under replace-one: √(2N)/n. */
export function gmTablesSensitivity(tables: number, n: number): number {
  assertCounts(tables, n);
  return Math.sqrt(2 * tables) / n;
}

/** σ per cell (fractions) of N distinct tables measured together at ρ: √(2N)/n / √(2ρ). */
export function gmTablesSigma(rho: number, tables: number, n: number): number {
  assertCounts(tables, n);
  return measurementSigma(rho, { tables }, n);
}

/** One distinct table: its features (ascending column indices), domain sizes, and who reads it. */
export interface MeasuredTable {
  readonly features: readonly number[];
  readonly dims: readonly number[];
  readonly cells: number;
  /** The distinct r of the workload's thresholds over this feature set. */
  readonly rs: readonly number[];
}

/** The workload's distinct feature sets, in order of first appearance. */
export function distinctTables(workload: Workload, sizes: readonly number[]): MeasuredTable[] {
  const byKey = new Map<string, { features: number[]; rs: Set<number> }>();
  for (const t of workload.thresholds) {
    const features = [...t.features].sort((a, b) => a - b);
    const key = features.join(',');
    const entry = byKey.get(key) ?? { features, rs: new Set<number>() };
    entry.rs.add(t.r);
    byKey.set(key, entry);
  }
  return [...byKey.values()].map(({ features, rs }) => {
    const dims = features.map((f) => {
      const d = sizes[f];
      if (!Number.isInteger(d) || d < 1) throw new RangeError(`feature ${f} has no domain size in sizes`);
      return d;
    });
    return { features, dims, cells: tableSize(dims), rs: [...rs].sort((a, b) => a - b) };
  });
}

export interface ExpectedMaxError {
  /** E[max over all workload queries of |noisy answer − exact answer|]. */
  readonly mean: number;
  /** 0 for 'exact' (numerical integration, error < 1e-6 relative); else the Monte-Carlo SE. */
  readonly standardError: number;
  readonly method: 'exact' | 'simulation';
  /** Monte-Carlo repetitions (0 for 'exact'). */
  readonly repetitions: number;
}

export interface GmTablesBaseline {
  readonly rho: number;
  readonly n: number;
  /** N: distinct tables measured. */
  readonly tables: number;
  /** Cells of all distinct tables together. */
  readonly cells: number;
  /** √(2N)/n. */
  readonly l2Sensitivity: number;
  /** Noise per cell, on fractions. */
  readonly sigma: number;
  readonly expectedMaxError: ExpectedMaxError;
}

export interface GmTablesOptions {
  /** How answers are read off a noisy table (see the module comment); default 'cell-sums'. */
  readonly answers?: 'cell-sums' | 'total-n';
  /** Stop when standardError ≤ relativePrecision·mean (default 0.01: ±2% at 2 SE). */
  readonly relativePrecision?: number;
  readonly minRepetitions?: number;
  readonly maxRepetitions?: number;
  /** At most this many simulated cells in all (repetitions × cells), never below minRepetitions. */
  readonly cellBudget?: number;
  /** Seed of the simulation noise (public; default 0, so the figure is reproducible). */
  readonly seed?: number;
}

/**
 * The GM baseline of `workload` at the run's ρ over n records (`sizes`: domain size per column).
 * Data-independent: reads only public quantities.
 */
export function gmTablesBaseline(
  input: {
    readonly rho: number;
    readonly n: number;
    readonly sizes: readonly number[];
    readonly workload: Workload;
  },
  options: GmTablesOptions = {},
): GmTablesBaseline {
  const { rho, n, sizes, workload } = input;
  const tables = distinctTables(workload, sizes);
  if (tables.length === 0) throw new RangeError('the workload has no thresholds');
  const sigma = gmTablesSigma(rho, tables.length, n);
  const cells = tables.reduce((s, t) => s + t.cells, 0);
  const allMarginals = tables.every((t) => t.rs.length === 1 && t.rs[0] === t.dims.length);
  const expectedMaxError: ExpectedMaxError =
    allMarginals && (options.answers ?? 'cell-sums') === 'cell-sums'
      ? { mean: sigma * expectedMaxAbsNormal(cells), standardError: 0, method: 'exact', repetitions: 0 }
      : simulateMaxError(tables, sigma, options);
  return {
    rho,
    n,
    tables: tables.length,
    cells,
    l2Sensitivity: gmTablesSensitivity(tables.length, n),
    sigma,
    expectedMaxError,
  };
}

/**
 * Monte-Carlo E[max error]: per repetition, one noise table per distinct table (shared by every
 * threshold over it), each threshold's answer errors from it, the max over all of them.
 */
export function simulateMaxError(
  tables: readonly MeasuredTable[],
  sigma: number,
  options: GmTablesOptions = {},
): ExpectedMaxError {
  const precision = options.relativePrecision ?? 0.01;
  const minReps = options.minRepetitions ?? 30;
  const cells = tables.reduce((sum, t) => sum + t.cells, 0);
  const byBudget = Math.floor((options.cellBudget ?? Number.POSITIVE_INFINITY) / cells);
  const maxReps = Math.max(minReps, Math.min(options.maxRepetitions ?? 10_000, byBudget));
  if (!(precision > 0) || !(minReps >= 2) || !(maxReps >= minReps))
    throw new RangeError('need relativePrecision > 0 and 2 ≤ minRepetitions ≤ maxRepetitions');
  const normal = standardNormals(seededRng(options.seed ?? 0));
  const totalN = options.answers === 'total-n';
  // thresholdAnswersFromTable(z, dims, r, 1) = c + Σ_{≥r matches} z − c·Σz with c = its value on
  // the zero table (1 when it counts the complement, 0 when it sums the matches directly).
  const offsets = tables.map((t) =>
    t.rs.map((r) => thresholdAnswersFromTable(new Float64Array(t.cells), t.dims, r, 1)),
  );
  let sum = 0;
  let sumSq = 0;
  let reps = 0;
  for (;;) {
    let max = 0;
    tables.forEach((t, i) => {
      const z = new Float64Array(t.cells);
      let total = 0;
      for (let c = 0; c < z.length; c++) {
        z[c] = normal();
        total += z[c];
      }
      if (totalN) {
        const mean = total / z.length;
        for (let c = 0; c < z.length; c++) z[c] -= mean;
        total = 0;
      }
      t.rs.forEach((r, j) => {
        if (r === t.dims.length) {
          for (let c = 0; c < z.length; c++) max = Math.max(max, Math.abs(z[c]));
          return;
        }
        // The error of each answer: Σ_{≥r matches} z = f(z) − c·(1 − Σz), f over n = 1.
        const answers = thresholdAnswersFromTable(z, t.dims, r, 1);
        const offset = offsets[i][j];
        for (let c = 0; c < answers.length; c++)
          max = Math.max(max, Math.abs(answers[c] - offset[c] * (1 - total)));
      });
    });
    const x = sigma * max;
    sum += x;
    sumSq += x * x;
    reps++;
    if (reps < minReps) continue;
    const mean = sum / reps;
    const variance = Math.max(0, (sumSq - reps * mean * mean) / (reps - 1));
    const standardError = Math.sqrt(variance / reps);
    if (standardError <= precision * mean || reps >= maxReps)
      return { mean, standardError, method: 'simulation', repetitions: reps };
  }
}

/** Standard normals by Box–Muller from a seeded uniform source (simulation noise only). */
function standardNormals(rng: Rng): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    // 1 − u with u on a 2^-64 grid: R stays finite and the tail is resolved far past any max.
    const radius = Math.sqrt(-2 * Math.log(1 - (rng() + rng() * 2 ** -32)));
    const angle = 2 * Math.PI * rng();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

function assertCounts(tables: number, n: number): void {
  if (!Number.isSafeInteger(tables) || tables < 1)
    throw new RangeError(`tables must be an integer >= 1, got ${String(tables)}`);
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`n must be an integer >= 1, got ${String(n)}`);
}
