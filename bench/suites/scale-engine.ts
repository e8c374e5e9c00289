/**
 * `scale-engine`: the engine's throughput and memory at the paper's worst-case runtime point: LOANS domain (48
 * features, one-hot width 4,427), 42,535 synthetic rows (loans-generator.ts), 64 random 1-of-4
 * thresholds, T = 64, K = 4. Features are drawn among those with ≤ 64 categories: over all 48
 * features 64 random 1-of-4 thresholds are ~3·10^9 queries (zip_code alone has 1,001 values),
 * while this gives ~10^7, the scale of Avent & Korolova's 3.5·10^7.
 */
import { withSeeds } from '../lib/cases.ts';
import type { Suite } from '../lib/types.ts';

export const scaleEngine: Suite = {
  name: 'scale-engine',
  description:
    "Synthetic LOANS-domain data (42,535 rows, one-hot width 4,427), 64 random 1-of-4 thresholds over the features with ≤ 64 categories (~10^7 queries), ε = 1, δ = 1/n², n' = 1000: query mode at T = 64, K = 4, and table mode at its default T₀ and K.",
  defaultSeeds: 1,
  // Measured 2026-11-21 after the selection speedups: 64 rounds in 1,180 CPU s (2,550 s wall
  // with other benchmarks on the 2 cores); rounds slow down as D' densifies, so --max-rounds R
  // extrapolations are a lower bound.
  budget: '≈ 20 min of CPU on this 2-core machine; --max-rounds R extrapolates (a lower bound)',
  cases: (seeds) =>
    withSeeds(
      'scale-engine',
      [
        {
          dataset: 'loans-synthetic',
          workload: { k: 4, r: 1, size: 64, maxDomain: 64 },
          epsilon: 1,
          rows: 1000,
          rounds: 64,
          perRound: 4,
          mode: 'query',
        },
        // Table mode beside it (issue 20): the engine's default plan (T₀ and K by its rule).
        {
          dataset: 'loans-synthetic',
          workload: { k: 4, r: 1, size: 64, maxDomain: 64 },
          epsilon: 1,
          rows: 1000,
          mode: 'table',
        },
      ],
      seeds,
    ),
};
