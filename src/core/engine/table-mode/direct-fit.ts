/**
 * How far and how fast the direct plan's one projection fits (table-mode/direct.ts), from public
 * quantities only: the tables' weights, the measurement's σ per cell, n' and the oversampling m.
 *
 * The released data is not D' but its randomized rounding (rounding.ts): N = n'·m rows, each
 * feature of each sample drawn from its relaxed row's block. A released cell's share is then
 * f_c = (1/N) Σ_{i,s} 1[sample (i, s) in c], with mean the relaxed answer q̂_c and variance
 * (1/N)·(1/n') Σ_i p_ic(1 − p_ic) ≤ q̂_c(1 − q̂_c)/N; summed over a table's cells (a partition,
 * grouped or not) that is at most (1 − Σ_c q̂_c²)/N < 1/N. So rounding adds a squared error of up
 * to 1/N to every table, whatever n and ε are; a relaxed fit whose residual is well under it has
 * nothing left to give the released data. At large n the measurement noise (σ² per cell) is far
 * under that floor, and the fit would otherwise run its whole step budget chasing it.
 */
import type { TableTarget } from '../kernels/session.ts';

/**
 * The fit is done once its weighted residual Σ_t w_t Σ_c (q̂ − ã)² is under
 * ROUNDING_FLOOR_SHARE² · Σ_t w_t / N: the relaxed error's energy at most this share squared of
 * what rounding adds (κ = 1/3: ≤ 11% more squared error, ≤ 5.4% more RMS error than a perfect fit).
 * At n = 32,561 (adult.data, ε = 1, 32 random 3-way marginals; σ·√N ≈ 0.36) the measurement
 * noise alone keeps the residual far above it (≈ 0.03 against 7e-5) and the fit runs as before;
 * at adult.data × 30 the rule ends it where the residual reaches the noise (measured with
 * DIRECT_LR_BOOST, below).
 */
export const ROUNDING_FLOOR_SHARE = 1 / 3;

/** Σ_t w_t · (κ²/N): the direct plan's loss at which its fit stops (public). */
export function roundingFloorLoss(
  tables: readonly Pick<TableTarget, 'weight'>[],
  rows: number,
  oversample: number,
): number {
  const weight = tables.reduce((s, t) => s + t.weight, 0);
  return (ROUNDING_FLOOR_SHARE ** 2 * weight) / (rows * oversample);
}

/**
 * Where the measurement's σ per cell is far under the rounding's per-cell noise scale 1/√N
 * (σ·√N < DIRECT_FAST_BELOW), the fit's target is sharp and the loss surface the same at any
 * such n: a larger Adam step reaches the rounding floor in fewer steps. Above, the mode's rate
 * (TABLE_TUNING), as measured there. `rap-studio synth`, adult.data × 30 (976,830 rows, σ·√N ≈
 * 0.014), 32 random 3-way marginals, ε = 1, seeds 1 / 2 / 3, relaxed / released max error, steps,
 * CPU s of the whole release:
 * - lr 0.03, 600 steps (before): .00126 / .00216, .00138 / .00322, .00118 / .00417; 600; 45–49 s
 *   (the rounding floor alone: still 600 steps, loss 1.1e-4 > 7.1e-5 at step 600);
 * - lr 0.1 with the floor: .00109 / .00275, .00098 / .00224, .00097 / .00275; 313 / 354 / 261
 *   steps; 34–38 s.
 * - lr 0.2 with the floor (boost 20/3): .00084 / .00555, .00111 / .00228; 166 / 193 steps — the
 *   relaxed fit as close, but a D' from larger steps rounds worse on some seeds (the lead's
 *   seed-1 sweep too: lr 0.2, 100 steps, .0015 / .0048), so the boost stays at 10/3.
 * adult.data × 300 (9.77M rows, σ·√N ≈ 0.0015), seeds 1 / 2: before 600 steps, .00096 / .00248
 * and .00111 / .00194, 103.5 / 92.2 CPU s; after 178 / 185 steps, .00117 / .00207 and
 * .00138 / .00230, 77.4 / 75.6 CPU s (the relaxed fit stops looser, by design; the released
 * error is rounding's, mean .0022 both). adult.data at ε = 10 (σ·√N ≈ 0.036, seed 1; the floor not reached, 600 steps both):
 * .00130 / .00266 before, .00077 / .00195 after.
 * The released error is rounding's draw (.0021–.0042 over seeds at the same fit); the relaxed fit
 * is as close in a third to a half of the steps. At adult.data ε = 1 (σ·√N ≈ 0.36) and the
 * integer-coded ADULT (0.23) nothing changes: the same released CSV, byte for byte.
 */
export const DIRECT_FAST_BELOW = 0.1;
export const DIRECT_LR_BOOST = 10 / 3;

/** The direct plan's Adam step: the mode's, times DIRECT_LR_BOOST where σ·√N is small. */
export function directLearningRate(base: number, sigma: number, rows: number, oversample: number): number {
  return sigma * Math.sqrt(rows * oversample) < DIRECT_FAST_BELOW ? base * DIRECT_LR_BOOST : base;
}
