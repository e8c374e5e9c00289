/**
 * `sota` (issue 11): table mode against AIM and query-level RAP, ADULT, δ = 1/n², n' = 1000,
 * default settings, 3 seeds (each seeds the workload draw and the noise):
 * - 64 random 3-way marginals, ε ∈ {0.1, 1}, table mode (AIM: 0.056 and 0.016; target ≤ 0.06
 *   and ≤ 0.017, each run ≤ 120 s);
 * - 16 random 2-of-4 and 16 random 1-of-3 thresholds at ε = 1, table mode and query mode
 *   (target: ≤ 1/3 of All-0 and below query mode).
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

const thresholds: CaseSpec[] = (['table', 'query'] as const).flatMap((mode) =>
  [
    { k: 4, r: 2, size: 16 },
    { k: 3, r: 1, size: 16 },
  ].map((workload) => ({ ...base, workload, epsilon: 1, mode, note: 'table vs query' })),
);

export const sota: Suite = {
  name: 'sota',
  description:
    "Table mode vs AIM and query mode: ADULT, δ = 1/n², n' = 1000, default settings; 64 random 3-way marginals at " +
    'ε ∈ {0.1, 1} (table mode); 16 random 2-of-4 and 16 random 1-of-3 thresholds at ε = 1 (table and query mode).',
  defaultSeeds: 3,
  budget: '≤ 120 s per run',
  cases: (seeds) => withSeeds('sota', [...marginals, ...thresholds], seeds),
};
