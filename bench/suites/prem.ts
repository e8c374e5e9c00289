/**
 * `prem` (issue 30): the relative-error pass and its accuracy certificate, through the release
 * pipeline (bench/lib/prem-run.ts), on ADULT: 64 random 3-way marginals and 32 random 2-of-3
 * thresholds, ε ∈ {1, 0.1} (δ = 1/n²), the pass at the default share 0.1 of ρ, β = 0.05,
 * (ζ, c) ∈ {(0.05, 3), (0.25, 3), (0.05, 1)} (c = 3 the default): the smallest ζ whose certificate covers ≥ 95% of the m queries, α, the
 * pass's cost, and the relative-error profile before and after the pass (released CSV).
 */
import { DEFAULT_CERTIFY_SHARE } from '../../src/core/engine/certify.ts';
import type { PremCase, PremSuite } from '../lib/prem-run.ts';

/** (ζ, c): the default c = 3 at two margins, and c = 1 (no fix round; α about 2.5× smaller). */
const VARIANTS = [
  [0.05, 3],
  [0.25, 3],
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
    `(temporary ledger, seeded insecure noise): ADULT, 64 random 3-way marginals and 32 random 2-of-3 thresholds, ε ∈ {1, 0.1}, δ = 1/n², pass share ${DEFAULT_CERTIFY_SHARE} of ρ, β = 0.05, (ζ, c) ∈ {(0.05, 3), (0.25, 3), (0.05, 1)}.`,
  defaultSeeds: 1,
  budget: '≤ 3 min CPU per run',
  cases(seeds) {
    const out: PremCase[] = [];
    for (const w of WORKLOADS) {
      for (const epsilon of [1, 0.1]) {
        const group = `prem/adult/${w.name}/eps${epsilon}`;
        for (const [zeta, c] of VARIANTS) {
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
      }
    }
    return out;
  },
};
