import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { certifiedAlpha, MarginScan, marginInterval, scanMargin } from './find-margin.ts';
import { seededNoise } from './noise.ts';
import {
  MonitorExhaustedError,
  RangeMonitor,
  type RangeMonitorParams,
  rangeMonitorScales,
} from './range-monitor.ts';

/** Wilson score interval of a binomial proportion at z standard errors. */
function wilson(successes: number, trials: number, z: number): [number, number] {
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

describe('rangeMonitorScales', () => {
  it('splits ε = √(2ρ) into ε₁ + ε₂ and states γ = (Δ/ε₁)ln(1/β) + (2cΔ/ε₂)ln(N/β)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 2, noNaN: true }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 1e9 }),
        fc.double({ min: 1e-4, max: 0.5, noNaN: true }),
        (rho, c, N, beta) => {
          const delta = 1 / 48842;
          const s = rangeMonitorScales({ rho, sensitivity: delta, maxOutside: c, maxTests: N, beta });
          expect(s.epsilon1 + s.epsilon2).toBeCloseTo(Math.sqrt(2 * rho), 12);
          expect(s.thresholdScale).toBeCloseTo(delta / s.epsilon1, 15);
          expect(s.testScale).toBeCloseTo((2 * c * delta) / s.epsilon2, 15);
          const gamma = s.thresholdScale * Math.log(1 / beta) + s.testScale * Math.log(N / beta);
          expect(s.accuracy).toBeCloseTo(gamma, 15);
        },
      ),
    );
  });

  it('picks the split of ε that minimises γ (against a scan of splits)', () => {
    const p: RangeMonitorParams = { rho: 0.01, sensitivity: 1e-3, maxOutside: 4, maxTests: 1e6, beta: 0.05 };
    const best = rangeMonitorScales(p).accuracy;
    const eps = Math.sqrt(2 * p.rho);
    for (let share = 0.001; share < 1; share += 0.001) {
      const e1 = share * eps;
      const e2 = eps - e1;
      const gamma =
        (p.sensitivity / e1) * Math.log(1 / p.beta) +
        ((2 * p.maxOutside * p.sensitivity) / e2) * Math.log(p.maxTests / p.beta);
      expect(gamma).toBeGreaterThanOrEqual(best * (1 - 1e-12));
    }
  });

  it('refuses bad parameters', () => {
    const ok: RangeMonitorParams = { rho: 0.1, sensitivity: 0.01, maxOutside: 1, maxTests: 10, beta: 0.05 };
    expect(() => rangeMonitorScales({ ...ok, rho: 0 })).toThrow(/rho/);
    expect(() => rangeMonitorScales({ ...ok, maxOutside: 0 })).toThrow(/maxOutside/);
    expect(() => rangeMonitorScales({ ...ok, beta: 1 })).toThrow(/beta/);
  });
});

describe('RangeMonitor', () => {
  it('halts after c answers outside and refuses more tests than declared', () => {
    const noise = seededNoise('halts');
    const m = new RangeMonitor(
      { rho: 0.5, sensitivity: 1e-6, maxOutside: 2, maxTests: 100, beta: 0.05 },
      noise,
    );
    expect(m.check(0.5, 0, 1)).toBe('inside');
    expect(m.check(0.5, 0.9, 1)).toBe('below');
    expect(m.check(0.5, 0, 0.1)).toBe('above');
    expect(m.halted).toBe(true);
    expect(() => m.check(0.5, 0, 1)).toThrow(MonitorExhaustedError);
    const few = new RangeMonitor(
      { rho: 0.5, sensitivity: 1e-6, maxOutside: 2, maxTests: 2, beta: 0.05 },
      noise,
    );
    few.check(0.5, 0, 1);
    expect(() => few.check(0.5, 0, 1)).toThrow(/declared for 2 tests/);
  });

  /**
   * Privacy on neighbouring datasets. A stream of three triples, bounds [0, 0], values v(D) = 0
   * and v(D′) = Δ = 1 (every value moves by the sensitivity, as all counts may under replace-one).
   * The transcripts' probabilities are estimated from 200,000 runs on each dataset; for every
   * transcript seen ≥ 200 times, DP requires P_D(o) ≤ e^ε·P_D′(o) both ways, and the test rejects
   * only when the Wilson lower bound of one side exceeds e^ε times the upper bound of the other
   * (z = 5 each: a false alarm below 1e-6 per comparison).
   * Power: the same test, run on a monitor whose noise is that of ε′ = 3ε while claiming ε, rejects
   * (the ratio it reaches, computed below, is ≥ 1.5·e^ε on some transcript, far outside the
   * intervals' width at this sample size).
   */
  function transcripts(rho: number, values: readonly number[], seed: string, runs: number) {
    const noise = seededNoise(seed);
    const counts = new Map<string, number>();
    for (let r = 0; r < runs; r++) {
      const m = new RangeMonitor({ rho, sensitivity: 1, maxOutside: 1, maxTests: 6, beta: 0.05 }, noise);
      let key = '';
      for (const v of values) {
        const a = m.check(v, 0, 0);
        key += a[0];
        if (m.halted) break;
      }
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  function worstRatio(a: Map<string, number>, b: Map<string, number>, runs: number, epsilon: number) {
    let violated = false;
    let maxRatio = 0;
    for (const key of new Set([...a.keys(), ...b.keys()])) {
      const ca = a.get(key) ?? 0;
      const cb = b.get(key) ?? 0;
      if (Math.max(ca, cb) < 200) continue;
      const [loA, hiA] = wilson(ca, runs, 5);
      const [loB, hiB] = wilson(cb, runs, 5);
      if (loA > Math.exp(epsilon) * hiB || loB > Math.exp(epsilon) * hiA) violated = true;
      maxRatio = Math.max(maxRatio, ca / Math.max(cb, 1), cb / Math.max(ca, 1));
    }
    return { violated, maxRatio };
  }

  it('is ε-DP on neighbouring datasets (statistical test), and the test detects a 3ε monitor', () => {
    const runs = 200_000;
    const epsilon = 1;
    const rho = (epsilon * epsilon) / 2;
    const honest = worstRatio(
      transcripts(rho, [0, 0, 0], 'D', runs),
      transcripts(rho, [1, 1, 1], 'D′', runs),
      runs,
      epsilon,
    );
    expect(honest.violated).toBe(false);
    expect(honest.maxRatio).toBeLessThan(Math.exp(epsilon));
    // A monitor with the noise of 3ε claiming ε: the test must see it.
    const leaky = 9 * rho;
    const broken = worstRatio(
      transcripts(leaky, [0, 0, 0], 'D', runs),
      transcripts(leaky, [1, 1, 1], 'D′', runs),
      runs,
      epsilon,
    );
    expect(broken.maxRatio).toBeGreaterThan(1.5 * Math.exp(epsilon));
    expect(broken.violated).toBe(true);
  });
});

describe('FindMarginExample (MarginScan)', () => {
  it('marginInterval holds exactly the t with |s − t| ≤ ζt + α', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 0.9, noNaN: true }),
        fc.double({ min: 0, max: 0.1, noNaN: true }),
        (s, t, zeta, alpha) => {
          const [lo, hi] = marginInterval(s, zeta, alpha);
          const slack = 1e-12;
          const within = Math.abs(s - t) <= zeta * t + alpha;
          if (within) expect(t >= lo - slack && t <= hi + slack).toBe(true);
          if (t >= lo + slack && t <= hi - slack)
            expect(Math.abs(s - t) <= zeta * t + alpha + slack).toBe(true);
        },
      ),
    );
  });

  /**
   * Accuracy by brute force: a dataset of 40 records over two columns (sizes 3 and 4), the 12 cells
   * of its 2-way table counted by hand as the true answers; candidates are the true table
   * perturbed. Over 400 scans (fresh monitors): every query passed satisfies
   * |s − t| ≤ ζt + certifiedAlpha, and no query with |s − t| ≤ ζt is reported — failures of either
   * are allowed only with the monitor's β = 0.05 per scan; we see none (the union bound is loose).
   */
  it('passed queries are within the certified margin and good ones are never reported (brute force)', () => {
    const noise = seededNoise('margin-brute');
    const n = 40;
    const zeta = 0.2;
    let failures = 0;
    for (let run = 0; run < 400; run++) {
      const rows = Array.from({ length: n }, () => [
        Math.floor(noise.uniform() * 3),
        Math.floor(noise.uniform() * 4),
      ]);
      const exact = new Float64Array(12);
      for (const [a, b] of rows) exact[a * 4 + b] += 1 / n;
      const candidate = exact.map((t) => Math.max(0, t + (noise.uniform() - 0.5) * 0.6 * (run % 4) * 0.1));
      const params = { rho: 2, sensitivity: 1 / n, maxOutside: 3, maxTests: 24, beta: 0.05 };
      const monitor = new RangeMonitor(params, noise);
      const gamma = monitor.scales.accuracy;
      const scan = new MarginScan(monitor, zeta, scanMargin(zeta, gamma));
      scan.scan(exact, candidate, 0);
      const reported = new Set(scan.violations.map((v) => v.index));
      const alpha = certifiedAlpha(zeta, gamma);
      let failed = false;
      for (let i = 0; i < scan.checked; i++) {
        const err = Math.abs(candidate[i] - exact[i]);
        if (!reported.has(i) && err > zeta * exact[i] + alpha) failed = true;
        if (reported.has(i) && err <= zeta * exact[i]) failed = true;
      }
      expect(scan.inside + scan.violations.length).toBe(scan.checked);
      if (failed) failures++;
    }
    // ≤ β per scan; with 400 scans, ≥ 40 failures would reject β = 0.05 at z ≈ 3.
    expect(failures).toBeLessThan(40);
  });

  it('reports the side: below when the candidate is too high, above when too low', () => {
    const noise = seededNoise('sides');
    const monitor = new RangeMonitor(
      { rho: 50, sensitivity: 1e-4, maxOutside: 2, maxTests: 10, beta: 0.05 },
      noise,
    );
    const scan = new MarginScan(monitor, 0.1, scanMargin(0.1, monitor.scales.accuracy));
    scan.scan(Float64Array.from([0.5, 0.1, 0.5]), Float64Array.from([0.5, 0.4, 0.1]), 7);
    expect(scan.violations).toEqual([
      { index: 8, side: 'below' },
      { index: 9, side: 'above' },
    ]);
    expect(scan.clean).toBe(false);
  });
});
