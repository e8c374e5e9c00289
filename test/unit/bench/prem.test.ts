import { describe, expect, it } from 'vitest';
import { type PremResult, premTable } from '../../../bench/lib/prem-run.ts';
import { PREM_SUITES } from '../../../bench/suites/index.ts';

describe('bench suite prem', () => {
  it('covers ADULT 3-way marginals and 2-of-3 thresholds at ε = 1 and 0.1, through the release pipeline', () => {
    const suite = PREM_SUITES.get('prem');
    expect(suite).toBeDefined();
    const cases = suite?.cases([0]) ?? [];
    expect(new Set(cases.map((c) => c.group))).toEqual(
      new Set([
        'prem/adult/3way/eps1',
        'prem/adult/3way/eps0.1',
        'prem/adult/2of3/eps1',
        'prem/adult/2of3/eps0.1',
      ]),
    );
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it('names the smallest ζ certified for ≥ 95% of the queries', () => {
    const result = (zeta: number, certifiedShare: number): PremResult =>
      ({
        case: {
          id: `g/z${zeta}`,
          group: 'g',
          epsilon: 1,
          zeta,
          share: 0.1,
          maxViolations: 3,
          workload: { k: 3, r: 3, size: 1 },
          seed: 0,
        },
        n: 1000,
        rho: 0.01,
        certificate: {
          zeta,
          alpha: 0.05,
          beta: 0.05,
          queries: 100,
          clean: certifiedShare === 1,
          certifiedShare,
          rho: 0.001,
          epsilon: 0.045,
          share: 0.1,
          maxViolations: 3,
          scans: 1,
          violationsFixed: 0,
          statement: '',
        },
        releasedShareAtCertificate: 1,
        certificateHolds: true,
        profileBefore: [],
        profileAfter: [],
        shareBeforeAtCertificate: 1,
        maxErrorReleased: 0.01,
        plan: 'direct',
        cpuSeconds: 1,
      }) as PremResult;
    const table = premTable([result(0.05, 0.9), result(0.25, 0.97), result(0.5, 1)]);
    expect(table).toContain('- g: ζ = 0.25 (c = 3), α = 0.05 (50 records), m = 100');
  });
});
