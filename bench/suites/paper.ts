/**
 * `paper` (< 60 min target): the settings of the RAP papers' figures on ADULT, δ = 1/n²,
 * n' = 1000:
 * - error vs |W|: 3-way marginals, |W| ∈ {1, 4, 16, 64, 256}, ε ∈ {0.01, 0.1, 1}, default T/K;
 * - a T × K grid, T ∈ {1, 4, 16, 64}, K ∈ {4, 16, 64, 256}, at |W| = 64 3-way marginals, ε = 0.1;
 * - r-of-4 thresholds, r ∈ {1, 2, 3, 4}, |W| = 64, ε = 0.1, default T/K.
 */
import { type CaseSpec, grid, withSeeds } from '../lib/cases.ts';
import type { Suite, WorkloadSpec } from '../lib/types.ts';

const base = { dataset: 'adult', rows: 1000, mode: 'query' } as const;
const marginals = (size: number): WorkloadSpec => ({ k: 3, r: 3, size });

export const PAPER_SIZES = [1, 4, 16, 64, 256];
export const PAPER_EPSILONS = [0.01, 0.1, 1];
export const PAPER_ROUNDS = [1, 4, 16, 64];
export const PAPER_PER_ROUND = [4, 16, 64, 256];

const errorVsSize: CaseSpec[] = grid(PAPER_SIZES, PAPER_EPSILONS).map(([size, epsilon]) => ({
  ...base,
  workload: marginals(size),
  epsilon,
  note: 'error vs |W|',
}));

const roundsGrid: CaseSpec[] = grid(PAPER_ROUNDS, PAPER_PER_ROUND).map(([rounds, perRound]) => ({
  ...base,
  workload: marginals(64),
  epsilon: 0.1,
  rounds,
  perRound,
  note: 'T × K grid',
}));

const thresholds: CaseSpec[] = [1, 2, 3, 4].map((r) => ({
  ...base,
  workload: { k: 4, r, size: 64 },
  epsilon: 0.1,
  note: 'r-of-4',
}));

export const paper: Suite = {
  name: 'paper',
  description:
    "ADULT, δ = 1/n², n' = 1000: 3-way marginals with |W| ∈ {1, 4, 16, 64, 256} × ε ∈ {0.01, 0.1, 1} (default T/K); " +
    'a T × K grid (T ∈ {1, 4, 16, 64}, K ∈ {4, 16, 64, 256}) at |W| = 64, ε = 0.1; r-of-4 thresholds, r ∈ {1, 2, 3, 4}, |W| = 64, ε = 0.1.',
  defaultSeeds: 3,
  budget: '< 60 min',
  cases: (seeds) => withSeeds('paper', [...errorVsSize, ...roundsGrid, ...thresholds], seeds),
};
