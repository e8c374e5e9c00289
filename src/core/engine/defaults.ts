/**
 * Default options, and the data-independent rule for the number of rounds T and queries per
 * round K. Choosing T and K by their error on the private data would spend privacy, so the rule
 * uses only public quantities: ε, δ, n, the number of thresholds and of queries.
 */
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { expectedMaxAbsNormal } from './gaussian-baseline.ts';
import { measurementSigma } from './measure.ts';
import { TABLE_CELL_LIMIT } from './table-mode/units.ts';
import type { RapOptions, TableStrategy } from './types.ts';

export const DEFAULT_ROWS = 1000;
/**
 * Samples per relaxed row in randomized rounding: n' = 1000 relaxed rows give 50,000 released
 * rows, about n for ADULT (48,842) — what users of other tools expect — and few enough that
 * rounding adds well under the noise. ADULT, 64 random 3-way marginals, ε = 1, direct plan,
 * seed 0: relaxed 0.0046; released 0.0094 with 5 samples (5,000 rows), 0.0045 with 50.
 */
export const DEFAULT_OVERSAMPLE = 50;

/**
 * Optimizer settings. Learning rate from ADULT runs (64 random 3-way marginals, default T/K,
 * seeds 1/2): ε = 1: lr 0.005 → .031/.028, 0.01 → .030/.027, 0.02 → .030/.028, 0.05 → .033;
 * ε = 0.1: 0.005 → .113/.142, 0.01 → .114/.144, 0.05 → .118/.147. Errors are flat in lr, but
 * larger steps spread each relaxed row over more categories (share of nonzero entries of D' 0.6
 * at 0.01, 0.85–0.99 at 0.02–0.05), and the all-query tables cost Σ_rows Π nnz: 0.01 keeps
 * selection about 5× cheaper than 0.05. Steps per round are few in practice: a round stops once
 * the fit reaches the measurement noise (projection.ts). Mini-batches start above 4,096
 * measured queries (T·K stays below that for ε ≲ 20 on ADULT-sized data).
 */
export const DEFAULT_TUNING = {
  learningRate: 0.01,
  maxSteps: 500,
  tolerance: 1e-3,
  batchSize: 4096,
} as const;

export interface RoundsRuleInput {
  readonly epsilon: number;
  readonly delta: number;
  /** Records of the private data (public under the replace-one model). */
  readonly n: number;
  readonly thresholds: number;
  /** Total workload queries m. */
  readonly queries: number | bigint;
}

export interface RoundsAndK {
  readonly rounds: number;
  readonly perRound: number;
}

/**
 * The rule, from grid runs on ADULT (n = 48,842, δ = 1/n², n' = 1000, lr 0.02; random 3-way
 * marginal workloads, two seeds each; present error = max over all queries, relaxed data):
 *
 *   16 thresholds, ε = 0.1 (ρ = 1.16e-4)      T\K    8      16     32     64
 *                                               2   .077/.071 .117/.076 .120/.132 .141/.130
 *                                               4   .076/.073 .125/.072 .141/.144 .209/.197
 *                                               8   .141/.114 .177/.130 .186/.172 .304/.299
 *                                              16   .159/.136 .179/.193 .347/.201
 *   16 thresholds, ε = 1 (ρ = 1.13e-2)        T\K   16      32      64     128
 *                                               4   .032/.023 .019/.019 .025/.020 .031/.027
 *                                               8   .019/.021 .023/.024 .032/.026 .035/.032
 *                                              16   .031/.020 .032/.026 .039/.035 .045/.046
 *   64 thresholds, ε = 0.1: (T,K) = (3,4) .184/.164, (3,7) .116/.146, (4,11) .133/.144,
 *                           (5,17) .184/.193
 *   64 thresholds, ε = 1:   (6,17) .029/.031, (8,26) .030/.028, (11,38) .040/.035
 *
 * The best total number of measured queries S = T·K grows about like √ρ·n (S ≈ 16–32 at
 * ε = 0.1, 100–250 at ε = 1, for 16 and for 64 thresholds alike): S = 0.04·√ρ·n. Measuring more
 * makes each measurement noisier (σ = √(S/ρ)/n) faster than the extra coverage helps. Rounds
 * grow with √S (T = √S / 1.5: 3 at ε = 0.1, 10 at ε = 1), capped at 20 because every round
 * scores all m queries. The number of thresholds did not move the optimum, so it enters only
 * through m: S ≤ m, and K ≤ m / T.
 */
export function defaultRoundsAndK(p: RoundsRuleInput): RoundsAndK {
  const m = Number(p.queries);
  const rho = rhoFromEpsilon(p.epsilon, p.delta);
  const total = Math.min(m, Math.max(1, Math.round(MEASURED_PER_SQRT_RHO_N * Math.sqrt(rho) * p.n)));
  const rounds = Math.min(MAX_DEFAULT_ROUNDS, Math.max(1, Math.round(Math.sqrt(total) / 1.5)));
  const perRound = Math.max(1, Math.min(Math.round(total / rounds), Math.floor(m / rounds)));
  return { rounds: Math.min(rounds, m), perRound };
}

export const MEASURED_PER_SQRT_RHO_N = 0.04;
export const MAX_DEFAULT_ROUNDS = 20;

/**
 * Table mode's T₀ and K (table-mode/): a round measures K tables before one fit, and the first
 * measurements each get 1/(T₀·K) of what the one-way start leaves (annealing raises that as the
 * model stops moving), so T₀ bounds the rounds. AIM uses T = 16·d
 * measurements with K = 1; RAP's fit is dearer than AIM's, so the bound grows with the workload
 * and stays within reach. Only public quantities enter: ρ, n and the number of thresholds N.
 *
 * Measured on ADULT (64 random 3-way marginals, n' = 1000, present error, seeds 0 / 1 / 2; M
 * the measurement bound T₀·K):
 * - ε = 0.1 (√ρ·n ≈ 530): K = 1, M = 32 → .050 / .049 / .054 (20–40 CPU s); K = 4, M = 32 →
 *   .050 / .076 / .052. Few measurements are affordable, and each choice is best made on a
 *   freshly fitted D'.
 * - ε = 1 (√ρ·n ≈ 5,000): K = 1, M = 32 → .024 / .016 / — in 130–150 CPU s; K = 4, M = 32 →
 *   .021 / .016 / .014 (67 s); K = 8, M = 64 → .020 / .019 / .019 (47 s); K = 8, M = 96 →
 *   .019 / .015 / .015 (54–67 s); K = 16, M = 128 → .020 (seed 0). Many measurements pay, and
 *   batching them makes them affordable.
 * So below √ρ·n = TABLE_BATCH_SIGNAL (between the two): K = 1 and T₀ = clamp(N/2, 8, 32);
 * above it K = 8 and M three times that clamp (T₀ = M / K rounds, rounded up).
 */
export function defaultTablePlan(p: { rho: number; n: number; thresholds: number }): {
  roundBound: number;
  perRound: number;
} {
  const base = Math.min(TABLE_ROUNDS_MAX, Math.max(TABLE_ROUNDS_MIN, Math.round(p.thresholds / 2)));
  if (Math.sqrt(p.rho) * p.n < TABLE_BATCH_SIGNAL) return { roundBound: base, perRound: 1 };
  return { roundBound: Math.ceil((TABLE_BATCH_BOUND * base) / TABLES_PER_ROUND), perRound: TABLES_PER_ROUND };
}

/**
 * Table mode's plan (issue 19), from public quantities only (ρ, n, the workload's distinct tables
 * and their cells). For marginal workloads whose every table fits the cell limit: measure every
 * table directly when the Gaussian mechanism on them all would already be accurate — its
 * expected max error over their cells, σ·E max|Z| with σ = √(2N/(2ρ))/n, at most
 * DIRECT_MAX_EXPECTED_ERROR — and otherwise the mixed plan: MIXED_DIRECT_SHARE of ρ measures
 * every table, the rest selects adaptively (table-mode/rho-schedule.ts). Measured on ADULT (64 random
 * 3-way marginals, released CSV, tight ρ, mean of seeds 0–4):
 *
 *   ε (GM expected)   direct    mixed (0.5)   adaptive
 *   1    (0.0073)     0.0055    0.0057 / 0.0066 (seeds 0–1; direct 0.0045 / 0.0053)   0.015–0.019 (0–2)
 *   0.1  (0.067)      0.0488    0.0334        0.0416
 *   0.05 (0.131)      —         0.0534        0.0563
 *
 * Direct wins while every table's own measurement is sharp; below that, a coarse measurement of
 * every table keeps an unselected table from drifting (the adaptive plan's worst seed, 0.058,
 * was one table the rounds never measured), and the rounds sharpen the worst. The bound 0.03
 * sits between the regimes. The direct plan also needs every threshold at the same weight: its
 * one fit weighs each table by w/σ², so a table of weight ¼ is fitted to ~2× its noise and the
 * GM bound no longer describes it (california-housing, raw suite's 32 3-way marginals + every
 * 2-way at weight ¼, ε = 1, seed 0, GM 0.017: direct 0.027 with the max in the weight-¼ tables
 * (their own GM 0.010) and ocean_proximity TV 0.05; mixed 0.015 / 0.005; adaptive 0.013 / 0.003).
 * Otherwise adaptive: for r < k an answer sums many cells, and the
 * direct fit's zeroed small cells (measure.ts, fitTarget) add up (16 random 1-of-3, ε = 1, seed
 * 1: direct 0.064, adaptive 0.023); the mixed plan is not measured there.
 */
export function defaultTableStrategy(p: {
  rho: number;
  n: number;
  cells: readonly number[];
  /** Every threshold is a marginal (r = k). */
  marginals: boolean;
  /** Some threshold has two or more features (else the mixed plan has no table to measure). */
  multiway: boolean;
  /** Every threshold has the same importance weight. */
  equalWeights: boolean;
}): TableStrategy {
  if (!p.marginals || p.cells.some((c) => c > TABLE_CELL_LIMIT)) return 'adaptive';
  if (p.equalWeights && directExpectedMaxError(p) <= DIRECT_MAX_EXPECTED_ERROR) return 'direct';
  return p.multiway ? 'mixed' : 'adaptive';
}

/** The GM on the N direct tables at the whole ρ: σ·E max|Z| over their cells (public). */
export function directExpectedMaxError(p: { rho: number; n: number; cells: readonly number[] }): number {
  const sigma = measurementSigma(p.rho, { tables: p.cells.length }, p.n);
  return sigma * expectedMaxAbsNormal(p.cells.reduce((a, b) => a + b, 0));
}

export const DIRECT_MAX_EXPECTED_ERROR = 0.03;

export const TABLE_ROUNDS_MIN = 8;
export const TABLE_ROUNDS_MAX = 32;
/** √ρ·n from which table mode batches K = TABLES_PER_ROUND tables per round. */
export const TABLE_BATCH_SIGNAL = 1600;
export const TABLES_PER_ROUND = 8;
export const TABLE_BATCH_BOUND = 3;

/**
 * Table mode's optimizer settings. A round refits D' to all measured tables from a warm start,
 * so it needs fewer steps than a query-mode round, and whole tables tolerate larger steps.
 * Measured on ADULT (64 random 3-way marginals, seed 1, n' = 1000): lr 0.01 with 500 steps a
 * round 0.020 at ε = 1 in 240 s; lr 0.03 with 150 steps 0.020 in ~100 s.
 */
export const TABLE_TUNING = {
  learningRate: 0.03,
  maxSteps: 150,
} as const;

/**
 * The softmax relaxation's learning rate, as a multiple of the mode's: Adam moves logits there,
 * and a step of lr in a logit moves a probability by only about p·(1−p)·lr. Measured on ADULT
 * (16 random 3-way marginals, n' = 500, ε = 1, seed 1, query mode, present error relaxed /
 * rounded, steps, CPU s): sparsemax 0.023 / 0.029, 284 steps, 4 s; softmax × 1: 0.106 / 0.111
 * (2,600 steps, 38 s); × 3: 0.025 / 0.026 (5,000, 62 s); × 10: 0.025 / 0.025 (3,670, 46 s);
 * × 30: 0.023 / 0.025 (2,465, 32 s); × 100: 0.025 / 0.024 (1,244, 20 s). Table mode, same case:
 * sparsemax 0.022 / 0.027 (16 s), softmax × 10 and × 30 0.028 / 0.026–0.027 (32 s). Softmax rows
 * are dense (no exact zeros), so each step costs more than sparsemax's.
 */
export const SOFTMAX_LR_SCALE = 30;

/** Full options from the required ε, δ and any overrides (the mode picks its tuning). */
export function defaultOptions(
  overrides: Partial<RapOptions> & Pick<RapOptions, 'epsilon' | 'delta'>,
): RapOptions {
  const mode = overrides.mode ?? DEFAULT_MODE;
  const tuning = { ...DEFAULT_TUNING, ...(mode === 'table' ? TABLE_TUNING : {}) };
  return {
    rows: DEFAULT_ROWS,
    oversample: DEFAULT_OVERSAMPLE,
    mode,
    selection: 'oneshot',
    ...tuning,
    ...(overrides.relaxation === 'softmax' ? { learningRate: tuning.learningRate * SOFTMAX_LR_SCALE } : {}),
    ...overrides,
  };
}

export const DEFAULT_MODE: RapOptions['mode'] = 'table';
