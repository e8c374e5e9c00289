/**
 * The engine on exact tables (data/counted.ts) instead of rows: a seeded run gives the same
 * synthetic codes and the same report, number for number, in every mode and plan.
 */
import { describe, expect, it } from 'vitest';
import type { CountedDataset } from '../data/counted.ts';
import { seededNoise } from '../privacy/noise.ts';
import { randomDataset } from '../workload/test-data.ts';
import type { Workload } from '../workload/types.ts';
import { defaultOptions } from './defaults.ts';
import { runRap } from './rap.ts';
import { requiredFeatureSets } from './required-tables.ts';
import { bruteCounted } from './testing.ts';
import type { RapInput, RapOptions, RapReport } from './types.ts';

const SIZES = [3, 2, 4, 2, 3];
const data = randomDataset(SIZES, 300, 11);
// Features out of column order: the tables are stored ascending and transposed on the way out.
const workload: Workload = {
  thresholds: [
    { features: [1, 0], r: 2, weight: 1 },
    { features: [3, 1, 2], r: 2, weight: 2 },
    { features: [4, 0, 2], r: 1, weight: 1 },
  ],
};
const evalWorkload: Workload = { thresholds: [{ features: [2, 4], r: 1, weight: 1 }] };
const evalWorkloads: Workload[] = [
  {
    thresholds: [
      { features: [0, 3, 4], r: 3, weight: 1 },
      { features: [1], r: 1, weight: 1 },
    ],
  },
];

type Case = [string, Partial<RapOptions>, { evaluate?: boolean }];

const cases: Case[] = [
  ['query mode, adaptive', { mode: 'query', rounds: 3, perRound: 4 }, { evaluate: true }],
  ['query mode, non-adaptive (every query at once)', { mode: 'query', rounds: 1, perRound: 100 }, {}],
  [
    'query mode with the relative-error pass',
    { mode: 'query', rounds: 2, perRound: 4, certify: { zeta: 0.25, share: 0.3 } },
    {},
  ],
  [
    'query mode, person level',
    { mode: 'query', rounds: 2, perRound: 4, unit: { bound: 2, normaliser: 297 } },
    { evaluate: true },
  ],
  ['table mode, direct', { mode: 'table', tablePlan: 'direct' }, { evaluate: true }],
  ['table mode, mixed', { mode: 'table', tablePlan: 'mixed', rounds: 3, perRound: 2 }, {}],
  [
    'table mode, adaptive',
    { mode: 'table', tablePlan: 'adaptive', rounds: 3, perRound: 2 },
    { evaluate: true },
  ],
  [
    'table mode, adaptive, person level',
    { mode: 'table', tablePlan: 'adaptive', rounds: 3, perRound: 2, unit: { bound: 3, normaliser: 310 } },
    { evaluate: true },
  ],
  [
    'table mode, direct, person level',
    { mode: 'table', tablePlan: 'direct', unit: { bound: 2, normaliser: 290 } },
    {},
  ],
];

function input(d: RapInput['data'], o: Partial<RapOptions>, evaluate: boolean): RapInput {
  return {
    data: d,
    workload,
    options: defaultOptions({ epsilon: 4, delta: 1e-6, mode: 'query', rows: 30, maxSteps: 30, ...o }),
    noise: seededNoise(5),
    ...(evaluate ? { evalWorkload, evalWorkloads } : {}),
  };
}

/** The report without wall-clock fields (the run's numbers stay). */
function numbers(report: RapReport): Partial<RapReport> {
  return {
    ...report,
    secondsTotal: 0,
    secondsSelection: 0,
    secondsProjection: 0,
    msPerStep: 0,
    timings: undefined,
  };
}

function counted(evaluate: boolean): CountedDataset {
  const needs = { schema: data.schema, workload, ...(evaluate ? { evalWorkload, evalWorkloads } : {}) };
  return bruteCounted(data, requiredFeatureSets(needs));
}

describe('a run on exact tables instead of rows', () => {
  it.each(cases)('%s: the same synthetic codes and report as from the rows', async (_name, o, {
    evaluate = false,
  }) => {
    const fromRows = await runRap(input(data, o, evaluate));
    const fromTables = await runRap(input(counted(evaluate), o, evaluate));
    expect(fromTables.synthetic.n).toBe(fromRows.synthetic.n);
    expect(fromTables.synthetic.codes).toEqual(fromRows.synthetic.codes);
    expect(numbers(fromTables.report)).toEqual(numbers(fromRows.report));
    if (o.mode === 'query') expect(fromRows.report.adaptive).toBe(o.perRound !== 100);
    if (o.tablePlan) expect(fromRows.report.tableMode?.strategy).toBe(o.tablePlan);
  });

  it("with discovery's paid one-ways (table mode skips measuring them): the same as from the rows", async () => {
    const paid = (size: number) => ({
      values: Float64Array.from({ length: size }, (_, i) => (i + 1) / ((size * (size + 1)) / 2)),
      variances: new Float64Array(size).fill(1e-4),
    });
    const paidOneWays = [paid(3), null, paid(4), null, paid(3)];
    for (const tablePlan of ['direct', 'adaptive'] as const) {
      const o = { mode: 'table' as const, tablePlan, rounds: 3, perRound: 2 };
      const fromRows = await runRap({ ...input(data, o, false), paidOneWays });
      const fromTables = await runRap({ ...input(counted(false), o, false), paidOneWays });
      expect(fromTables.synthetic.codes).toEqual(fromRows.synthetic.codes);
      expect(numbers(fromTables.report)).toEqual(numbers(fromRows.report));
    }
  });

  it('refuses, before any noise, counted data missing a table the run reads, naming it', async () => {
    const partial = bruteCounted(data, requiredFeatureSets({ schema: data.schema, workload }));
    await expect(runRap(input(partial, { mode: 'table' }, true))).rejects.toThrow(
      /internal: the counted data lacks the exact table over features \[0, 3, 4\] \(f0, f3, f4\):/,
    );
  });

  it('asks for no table outside requiredFeatureSets (brute force: every subset stored, every lookup recorded)', async () => {
    const needs = requiredFeatureSets({ schema: data.schema, workload, evalWorkload, evalWorkloads });
    const all: number[][] = [];
    for (let mask = 1; mask < 1 << SIZES.length; mask++)
      all.push(SIZES.flatMap((_, f) => (mask & (1 << f) ? [f] : [])));
    const full = bruteCounted(data, all);
    const asked = new Set<string>();
    const tables = new (class extends Map<string, Float64Array> {
      override get(key: string): Float64Array | undefined {
        asked.add(key);
        return super.get(key);
      }
    })(full.tables);
    for (const [, o, { evaluate = false }] of cases) {
      await runRap({ ...input({ ...full, tables }, o, evaluate), evalWorkload, evalWorkloads });
    }
    const covered = (key: string) => {
      const set = key.split(',').map(Number);
      return needs.some((need) => set.every((f) => need.includes(f)));
    };
    expect(asked.size).toBeGreaterThan(needs.length);
    expect([...asked].filter((k) => !covered(k))).toEqual([]);
    // Every required set is read by some run (none listed for nothing).
    expect(needs.filter((s) => !asked.has(s.join(',')))).toEqual([]);
  }, 60_000);
});
