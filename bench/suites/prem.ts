/**
 * `prem` (issue 30): the relative-error pass and its accuracy certificate, through the release
 * pipeline (bench/lib/prem-run.ts), on ADULT: 64 random 3-way marginals and 32 random 2-of-3
 * thresholds, ε ∈ {1, 0.1} (δ = 1/n²), the pass at the default share 0.1 of ρ, β = 0.05,
 * ζ = 0.25 with the default c = 3, and (ζ, c) ∈ {(0.05, 3), (0.05, 1)} on the 3-way marginals at
 * ε = 1: the smallest ζ whose certificate covers ≥ 95% of the m queries, α, the
 * pass's cost, and the relative-error profile before and after the pass (released CSV).
 */
import { DEFAULT_CERTIFY_SHARE } from '../../src/core/engine/certify.ts';
import type { PremCase, PremSuite } from '../lib/prem-run.ts';

/** Extra (ζ, c) on the 3-way marginals at ε = 1: a smaller margin, and c = 1 (no fix round; α about 2.5× smaller). */
const EXTRA = [
  [0.05, 3],
  [0.05, 1],
] as const;

const WORKLOADS = [
  { name: '3way', k: 3, r: 3, size: 64 },
  { name: '2of3', k: 3, r: 2, size: 32 },
] as const;

export const prem: PremSuite = {
  kind: 'prem',
  name: 'prem',
  description:
    'Relative-error pass (PREM RangeMonitor + FindMarginExample) after RAP, through the release pipeline ' +
    `(throwaway ledger, seeded insecure noise): ADULT, 64 random 3-way marginals and 32 random 2-of-3 thresholds, ε ∈ {1, 0.1}, δ = 1/n², pass share ${DEFAULT_CERTIFY_SHARE} of ρ, β = 0.05; ζ = 0.25 with the default c = 3 everywhere, then ζ = 0.05 with c = 3 and c = 1 on the 3-way marginals at ε = 1.`,
  defaultSeeds: 1,
  budget: '≤ 3 min CPU per run',
  cases(seeds) {
    const out: PremCase[] = [];
    // The default variant for every workload and ε first (a resumed run fills the table in that order).
    const groups = WORKLOADS.flatMap((w) => [1, 0.1].map((epsilon) => ({ w, epsilon })));
    const variants = [
      ...groups.map((g) => ({ ...g, zeta: 0.25, c: 3 })),
      ...EXTRA.map(([zeta, c]) => ({ ...groups[0], zeta, c })),
    ];
    for (const { w, epsilon, zeta, c } of variants) {
      const group = `prem/adult/${w.name}/eps${epsilon}`;
      for (const seed of seeds) {
        out.push({
          id: `${group}/zeta${zeta}/c${c}/s${seed}`,
          group,
          epsilon,
          zeta,
          share: DEFAULT_CERTIFY_SHARE,
          maxViolations: c,
          workload: { k: w.k, r: w.r, size: w.size },
          seed,
        });
      }
    }
    return out;
  },
};
