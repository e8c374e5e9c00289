import { describe, expect, it } from 'vitest';
import { ADULT_DOMAIN } from '../../../test/support/adult.ts';
import { schemaFromDomain } from '../data/benchmark.ts';
import type { EncodedDataset } from '../data/schema.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { randomWorkload } from '../workload/random.ts';
import {
  DIRECT_MAX_EXPECTED_ERROR,
  defaultOptions,
  defaultTableStrategy,
  directExpectedMaxError,
} from './defaults.ts';
import { expectedMaxAbsNormal } from './gaussian-baseline.ts';
import { measurementSigma } from './measure.ts';
import { planRun } from './plan.ts';
import { directTables } from './table-mode/direct.ts';

// ADULT's public schema and n; the dataset holds no values at all.
const n = 48_842;
const valueless: EncodedDataset = { schema: schemaFromDomain(ADULT_DOMAIN), n, codes: [] };
const untouchable = (): never => {
  throw new Error('the planner drew noise');
};
const noNoise: NoiseSource = {
  mode: 'secure',
  uniform: untouchable,
  normal: untouchable,
  gumbel: untouchable,
  exponential: untouchable,
  fillNormal: untouchable,
};
const sizes = Object.values(ADULT_DOMAIN);

function plan(epsilon: number, k: number, r: number) {
  const workload = randomWorkload({
    numFeatures: sizes.length,
    k,
    r,
    size: k === 3 && r === 3 ? 64 : 16,
    seed: 1,
  });
  const options = defaultOptions({ epsilon, delta: 1 / n ** 2, mode: 'table' });
  return { workload, plan: planRun({ data: valueless, workload, options, noise: noNoise }) };
}

describe('table-mode planner (public inputs only)', () => {
  it('runs on a dataset with no values: direct at ε = 1, mixed at ε = 0.1 (ADULT, 64 3-way marginals), adaptive for 2-of-4', () => {
    const high = plan(1, 3, 3).plan;
    const low = plan(0.1, 3, 3).plan;
    expect(high.kind === 'table' && high.strategy).toBe('direct');
    expect(low.kind === 'table' && low.strategy).toBe('mixed');
    const thresholds = plan(0.1, 4, 2).plan;
    expect(thresholds.kind === 'table' && thresholds.strategy).toBe('adaptive');
  });

  it('an explicit T₀ or K asks for rounds; tablePlan overrides the rule', () => {
    const workload = plan(0.1, 3, 3).workload;
    const run = (o: object) =>
      planRun({
        data: valueless,
        workload,
        options: defaultOptions({ epsilon: 0.1, delta: 1 / n ** 2, mode: 'table', ...o }),
        noise: noNoise,
      });
    for (const [o, strategy] of [
      [{ rounds: 8 }, 'adaptive'],
      [{ perRound: 2 }, 'adaptive'],
      [{ tablePlan: 'direct' }, 'direct'],
      [{ tablePlan: 'mixed', rounds: 8 }, 'mixed'],
    ] as const) {
      const p = run(o);
      expect(p.kind === 'table' && p.strategy).toBe(strategy);
    }
    expect(() => run({ tablePlan: 'both' })).toThrow(/tablePlan/);
    const oneWays = { thresholds: [{ features: [0], r: 1, weight: 1 }] };
    const options = defaultOptions({ epsilon: 0.1, delta: 1 / n ** 2, mode: 'table', tablePlan: 'mixed' });
    expect(() => planRun({ data: valueless, workload: oneWays, options, noise: noNoise })).toThrow(/mixed/);
  });

  it('picks direct for marginals whose GM on the direct tables is within the bound, else mixed, every table fitting; adaptive otherwise', () => {
    for (const [epsilon, k, r] of [
      [1, 3, 3],
      [0.1, 3, 3],
      [1, 4, 2],
      [1, 3, 1],
      [3, 2, 2],
    ] as const) {
      const { workload, plan: p } = plan(epsilon, k, r);
      if (p.kind !== 'table') throw new Error('table mode');
      const cells = directTables(workload, p.weights, sizes).map((t) => t.cells);
      const sigma = measurementSigma(p.rho, { tables: cells.length }, n);
      // σ is the stated sensitivity √(2N)/n over √(2ρ).
      expect(sigma).toBeCloseTo(Math.sqrt(2 * cells.length) / n / Math.sqrt(2 * p.rho), 15);
      const fits = cells.every((c) => c <= 1_000_000) && r === k;
      const expected = sigma * expectedMaxAbsNormal(cells.reduce((a, b) => a + b, 0));
      expect(directExpectedMaxError({ rho: p.rho, n, cells })).toBeCloseTo(expected, 15);
      const strategy = !fits ? 'adaptive' : expected <= DIRECT_MAX_EXPECTED_ERROR ? 'direct' : 'mixed';
      expect(p.strategy).toBe(strategy);
      const rule = { rho: p.rho, n, cells, marginals: r === k, multiway: true, equalWeights: true };
      expect(defaultTableStrategy(rule)).toBe(p.strategy);
      // A workload of one-way tables only has nothing for the mixed plan to measure.
      const oneWays = defaultTableStrategy({ ...rule, multiway: false });
      expect(oneWays).toBe(p.strategy === 'mixed' ? 'adaptive' : p.strategy);
      // Unequal weights never get the direct plan (its fit weighs tables by w).
      const weighted = defaultTableStrategy({ ...rule, equalWeights: false });
      expect(weighted).toBe(p.strategy === 'direct' ? 'mixed' : p.strategy);
    }
  });

  it('lists each distinct workload table once, plus the one-ways of features no table covers', () => {
    const workload = {
      thresholds: [
        { features: [2, 0], r: 1, weight: 1 },
        { features: [0, 2], r: 2, weight: 2 },
        { features: [1], r: 1, weight: 1 },
      ],
    };
    const tables = directTables(workload, Float64Array.from([0.5, 1, 0.5]), [3, 4, 5, 6]);
    expect(tables).toEqual([
      { features: [0, 2], cells: 15, weight: 1 },
      { features: [1], cells: 4, weight: 0.5 },
      { features: [3], cells: 6, weight: 1 },
    ]);
  });
});
