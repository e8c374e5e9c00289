/** `quick` (< 5 min): ADULT, 16 random 3-way marginals, ε ∈ {0.1, 1}, default T/K. */
import { type CaseSpec, withSeeds } from '../lib/cases.ts';
import type { Suite } from '../lib/types.ts';

const specs: CaseSpec[] = [0.1, 1].map((epsilon) => ({
  dataset: 'adult',
  workload: { k: 3, r: 3, size: 16 },
  epsilon,
  rows: 1000,
  mode: 'query',
}));

export const quick: Suite = {
  name: 'quick',
  description: "ADULT, 16 random 3-way marginals, ε ∈ {0.1, 1}, δ = 1/n², n' = 1000, default T/K.",
  defaultSeeds: 1,
  budget: '< 5 min',
  cases: (seeds) => withSeeds('quick', specs, seeds),
};
