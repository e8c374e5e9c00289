import { describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { seededNoise } from '../privacy/noise.ts';
import { rangeMonitorScales } from '../privacy/range-monitor.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { randomDataset } from '../workload/test-data.ts';
import type { Workload } from '../workload/types.ts';
import { certifyPlan } from './certify.ts';
import { defaultOptions } from './defaults.ts';
import { planRun } from './plan.ts';
import { publicPlan } from './public-plan.ts';
import { runRap } from './rap.ts';
import type { RapInput, RapOptions } from './types.ts';

const SIZES = [3, 2, 4, 2];
const workload: Workload = {
  thresholds: [
    { features: [0, 1], r: 2, weight: 1 },
    { features: [1, 2, 3], r: 3, weight: 1 },
    { features: [0, 2], r: 2, weight: 1 },
  ],
};
const m = 6 + 16 + 12;

function options(overrides: Partial<RapOptions> = {}): RapOptions {
  return defaultOptions({
    epsilon: 5,
    delta: 1e-6,
    mode: 'query',
    rows: 25,
    rounds: 3,
    perRound: 6,
    maxSteps: 40,
    threads: 1,
    backend: 'cpu',
    certify: { zeta: 0.25, share: 0.5 },
    ...overrides,
  });
}

/** Clopper–Pearson upper bound of a binomial proportion (k of n) at confidence 1 − a. */
function clopperPearsonUpper(k: number, n: number, a: number): number {
  if (k >= n) return 1;
  const cdf = (p: number) => {
    let sum = 0;
    let term = (1 - p) ** n;
    for (let i = 0; i <= k; i++) {
      sum += term;
      term *= ((n - i) / (i + 1)) * (p / (1 - p));
    }
    return sum;
  };
  let lo = k / n;
  let hi = 1;
  for (let it = 0; it < 100; it++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) > a) lo = mid;
    else hi = mid;
  }
  return hi;
}

describe('the relative-error pass: plan', () => {
  const data = randomDataset(SIZES, 2000, 3);
  const input = (o: RapOptions): RapInput => ({ data, workload, options: o, noise: seededNoise(0) });

  it("takes its share out of the run's ρ: the synthesis gets the rest, the ledger the whole ρ(ε, δ)", () => {
    const total = rhoFromEpsilon(5, 1e-6);
    const plan = planRun(input(options()));
    expect(plan.totalRho).toBe(total);
    expect(plan.certify?.rho).toBeCloseTo(0.5 * total, 15);
    expect(plan.rho + (plan.certify?.rho ?? 0)).toBeCloseTo(total, 15);
    expect(publicPlan(options(), data.schema, data.n, workload).rho).toBe(total);
    expect(planRun(input(options({ certify: undefined }))).rho).toBe(total);
  });

  it('states α = 2(1 + ζ)γ from the monitor over N = 2m(c + 1) tests at Δ = 1/n, ε = √(2ρ_c)', () => {
    const c = certifyPlan({ zeta: 0.25, share: 0.2, beta: 0.05, maxViolations: 3 }, 0.01, 48842, 1000);
    const s = rangeMonitorScales({
      rho: 0.002,
      sensitivity: 1 / 48842,
      maxOutside: 3,
      maxTests: 2 * 1000 * 4,
      beta: 0.05,
    });
    expect(c.scales.epsilon).toBeCloseTo(Math.sqrt(0.004), 15);
    expect(c.alpha).toBeCloseTo(2 * 1.25 * s.accuracy, 15);
    expect(c.margin).toBeCloseTo(1.25 * s.accuracy, 15);
  });

  it('refuses ζ, share or β outside (0, 1)', () => {
    expect(() => planRun(input(options({ certify: { zeta: 1, share: 0.1 } })))).toThrow(/certify.zeta/);
    expect(() => planRun(input(options({ certify: { zeta: 0.1, share: 0 } })))).toThrow(/certify.share/);
    expect(() => planRun(input(options({ certify: { zeta: 0.1, share: 0.1, beta: 2 } })))).toThrow(
      /certify.beta/,
    );
  });
});

describe('the relative-error pass: certificate', () => {
  it('reports a certificate with its cost and the shares before and after the pass', async () => {
    const data = randomDataset(SIZES, 20_000, 5);
    const { report } = await runRap({ data, workload, options: options(), noise: seededNoise(1) });
    const cert = report.certificate;
    expect(cert).toBeDefined();
    if (!cert) return;
    expect(cert.queries).toBe(m);
    expect(cert.rho).toBeCloseTo(0.5 * rhoFromEpsilon(5, 1e-6), 15);
    expect(cert.epsilon).toBeCloseTo(Math.sqrt(2 * cert.rho), 15);
    expect(cert.statement).toMatch(
      cert.clean ? /every one of the workload's 34 queries/ : /of the workload's 34/,
    );
    expect(report.rho).toBe(rhoFromEpsilon(5, 1e-6));
    expect(report.relativeErrorBefore).toHaveLength(2);
    expect(report.relativeErrorAtCertificate?.after).toBeGreaterThanOrEqual(0);
  });

  it('feeds violations back when the data misses the margin, and certifies the share it can', async () => {
    // 200,000 records: α = 0.0013 at ζ = 0.1, far below what 10 relaxed rows and 3 steps reach.
    const data = randomDataset(SIZES, 200_000, 5);
    const o = options({ rows: 10, maxSteps: 3, certify: { zeta: 0.1, share: 0.5 } });
    const { report } = await runRap({ data, workload, options: o, noise: seededNoise(1) });
    const cert = report.certificate;
    if (!cert) throw new Error('no certificate');
    expect(cert.clean).toBe(false);
    expect(cert.scans).toBe(2);
    expect(cert.violationsFixed).toBe(2);
    expect(cert.certifiedShare).toBeLessThan(1);
    expect(cert.statement).toMatch(/ended before every query was certified/);
  });

  /**
   * Coverage. 200 runs (seeds 0–199) on one dataset of 20,000 records with known answers
   * (counted here from the data); a run's certificate is violated when it is clean and some query
   * of the released data is outside (1 ± ζ)·q(D) ± α, and — conservatively, since which queries a
   * partial certificate covers is not published — whenever it is not clean. The share of violated
   * runs must have a 95% Clopper–Pearson upper bound ≤ β = 0.05 (with 200 runs: at most 4 violated).
   */
  it('is violated by the true answers in at most β of 200 runs (95% upper bound)', async () => {
    const data = randomDataset(SIZES, 20_000, 11);
    const truth = workload.thresholds.map((t) => exactThresholdAnswers(data, t));
    const runs = 200;
    let violated = 0;
    let clean = 0;
    let tightest = 0;
    for (let seed = 0; seed < runs; seed++) {
      const { report, synthetic } = await runRap({
        data,
        workload,
        options: options({ maxSteps: 20 }),
        noise: seededNoise(seed),
      });
      const cert = report.certificate;
      if (!cert) throw new Error('no certificate');
      if (!cert.clean) {
        violated++;
        continue;
      }
      clean++;
      const released = { schema: data.schema, n: synthetic.n, codes: synthetic.codes };
      let bad = false;
      workload.thresholds.forEach((t, ti) => {
        const s = exactThresholdAnswers(released, t);
        for (let i = 0; i < s.length; i++) {
          const excess = Math.abs(s[i] - truth[ti][i]) - cert.zeta * truth[ti][i];
          tightest = Math.max(tightest, excess / cert.alpha);
          if (excess > cert.alpha) bad = true;
        }
      });
      if (bad) violated++;
    }
    const upper = clopperPearsonUpper(violated, runs, 0.05);
    expect(clean).toBeGreaterThan(0);
    expect(upper).toBeLessThanOrEqual(0.05);
    // The closest a query came to its certified bound, as a share of α (a check that α is not vacuous).
    expect(tightest).toBeGreaterThan(0);
  }, 240_000);
});
