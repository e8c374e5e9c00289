/**
 * `sota` (issues 11, 19): table mode (default settings, the public plan rule picks direct, mixed or
 * adaptive) against AIM and the GM baseline on the workload's tables; ADULT, δ = 1/n², 5 seeds
 * (each seeds the workload draw and the noise); the headline is the released CSV's error:
 * - 64 random 3-way marginals, ε ∈ {0.1, 1} (AIM: 0.056 and 0.0167; target ≤ 0.035 and
 *   ≤ 0.010, each run ≤ 60 s);
 * - 16 random 2-of-4 and 16 random 1-of-3 thresholds at ε = 1 (target: at or below the GM
 *   baseline). Query mode, 3–10× slower and far less accurate here, is left to `paper`.
 */
import { type CaseSpec, withSeeds } from '../lib/cases.ts';
import type { Suite } from '../lib/types.ts';

const base = { dataset: 'adult', rows: 1000 } as const;

const marginals: CaseSpec[] = [0.1, 1].map((epsilon) => ({
  ...base,
  workload: { k: 3, r: 3, size: 64 },
  epsilon,
  mode: 'table',
  note: 'vs AIM',
}));

const thresholds: CaseSpec[] = [
  { k: 4, r: 2, size: 16 },
  { k: 3, r: 1, size: 16 },
].map((workload) => ({ ...base, workload, epsilon: 1, mode: 'table', note: 'vs GM' }));

export const sota: Suite = {
  name: 'sota',
  description:
    "Table mode vs AIM and the GM baseline: ADULT, δ = 1/n², n' = 1000, default settings; 64 random 3-way " +
    'marginals at ε ∈ {0.1, 1}; 16 random 2-of-4 and 16 random 1-of-3 thresholds at ε = 1.',
  defaultSeeds: 5,
  budget: '≤ 60 s per run',
  cases: (seeds) => withSeeds('sota', [...marginals, ...thresholds], seeds),
};
