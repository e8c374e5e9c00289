import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { seededNoise } from '../privacy/noise.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { randomDataset } from '../workload/test-data.ts';
import type { Workload } from '../workload/types.ts';
import { defaultOptions } from './defaults.ts';
import { runRap } from './rap.ts';
import { MIXED_DIRECT_SHARE } from './table-mode/rho-schedule.ts';
import type { AdaptiveTableTrace, ProgressEvent, RapInput, RapOptions, RapReport } from './types.ts';

const SIZES = [3, 2, 4, 2];
const data = randomDataset(SIZES, 400, 7);
const workload: Workload = {
  thresholds: [
    { features: [0, 1], r: 2, weight: 1 },
    { features: [1, 2, 3], r: 2, weight: 2 },
    { features: [0, 2, 3], r: 1, weight: 1 },
  ],
};
const m = 6 + 16 + 24;

function input(overrides: Partial<RapOptions> = {}, seed = 1): RapInput {
  return {
    data,
    workload,
    options: defaultOptions({
      epsilon: 5,
      delta: 1e-6,
      mode: 'query',
      rows: 25,
      rounds: 3,
      perRound: 4,
      maxSteps: 40,
      ...overrides,
    }),
    noise: seededNoise(seed),
  };
}

function withoutTimings(report: RapReport): Partial<RapReport> {
  const timed = { secondsTotal: 0, secondsSelection: 0, secondsProjection: 0, msPerStep: 0 };
  return { ...report, ...timed, timings: undefined };
}

describe('runRap', () => {
  it('is reproducible with a seeded noise source and differs across seeds', async () => {
    const a = await runRap(input());
    const b = await runRap(input());
    const c = await runRap(input({}, 2));
    expect(a.synthetic.codes).toEqual(b.synthetic.codes);
    expect(withoutTimings(a.report)).toEqual(withoutTimings(b.report));
    expect(a.synthetic.codes).not.toEqual(c.synthetic.codes);
  });

  it('reports consistent metrics for the rounded data it returns', async () => {
    const { report, synthetic } = await runRap(input());
    expect(report.backend).toBe('cpu');
    expect(report.seedMode).toBe('insecure-seed');
    expect(report.numQueries).toBe(m);
    expect([report.rounds, report.perRound, report.rows, report.oversample]).toEqual([3, 4, 25, 50]);
    expect(synthetic.n).toBe(1250);
    synthetic.codes.forEach((codes, j) => {
      expect(codes.length).toBe(1250);
      expect(Math.max(...codes)).toBeLessThan(SIZES[j]);
    });
    const syntheticData = { schema: data.schema, n: synthetic.n, codes: synthetic.codes };
    let rounded = 0;
    let all0 = 0;
    workload.thresholds.forEach((t, ti) => {
      const e = exactThresholdAnswers(data, t);
      const s = exactThresholdAnswers(syntheticData, t);
      let tMax = 0;
      e.forEach((x, y) => {
        tMax = Math.max(tMax, Math.abs(x - s[y]));
        all0 = Math.max(all0, x);
      });
      expect(report.perThresholdError[ti]).toBeCloseTo(tMax, 12);
      rounded = Math.max(rounded, tMax);
    });
    expect(report.roundedPresentError).toBeCloseTo(rounded, 12);
    expect(report.all0Error).toBe(all0);
    expect(report.presentError).toBeLessThan(report.all0Error);
    expect(report.meanError).toBeLessThanOrEqual(report.presentError);
    expect(report.gmError).toBeGreaterThan(0);
    expect(report.relativeErrorProfile.map((p) => p.zeta)).toEqual([0.1, 0.25]);
    expect(report.relativeErrorProfile[0].share).toBeLessThanOrEqual(report.relativeErrorProfile[1].share);
  });

  it('learns the data at a generous budget', async () => {
    const { report } = await runRap(
      input({ epsilon: 1000, rounds: 6, perRound: 7, maxSteps: 300, learningRate: 0.05 }),
    );
    expect(report.presentError).toBeLessThan(report.all0Error / 4);
  });

  it('evaluates a second workload as future error', async () => {
    const evalWorkload: Workload = { thresholds: [{ features: [2, 3], r: 1, weight: 1 }] };
    const { report } = await runRap({ ...input(), evalWorkload });
    expect(report.futureError).toBeGreaterThanOrEqual(0);
    expect(report.futureError).toBeLessThan(1);
  });

  it('runs non-adaptively when one round measures every query', async () => {
    const { report } = await runRap(input({ rounds: 1, perRound: m }));
    expect(report.adaptive).toBe(false);
    expect(report.perRound).toBe(m);
    expect(report.presentError).toBeLessThan(report.all0Error);
  });

  it('runs in table mode: one-way start, tables each round until ρ is spent, σ and thresholds shown', async () => {
    const events: ProgressEvent[] = [];
    const { report } = await runRap({
      ...input({ mode: 'table', tablePlan: 'adaptive', rounds: 4, perRound: 1 }),
      onProgress: (e) => events.push(e),
    });
    expect(report.mode).toBe('table');
    const trace = report.tableMode;
    if (trace?.strategy !== 'adaptive') throw new Error('an adaptive table-mode report has its trace');
    expect(trace.oneWay.features).toBe(SIZES.length);
    expect(trace.roundBound).toBe(4);
    expect(trace.measurements.length).toBeGreaterThanOrEqual(1);
    expect(report.rounds).toBe(trace.measurements.length);
    // Every ρ is spent: one-way share + Σ rounds = ρ.
    const spent = trace.oneWay.rho + trace.measurements.reduce((a, r) => a + r.rhoSelect + r.rhoMeasure, 0);
    expect(spent / report.rho).toBeCloseTo(1, 12);
    expect(trace.rhoSpent / report.rho).toBeCloseTo(1, 12);
    // σ only shrinks before the last round (which spends what is left, possibly less), and each
    // round's progress names the thresholds of its table.
    for (let i = 1; i < trace.measurements.length - 1; i++) {
      expect(trace.measurements[i].sigma).toBeLessThanOrEqual(trace.measurements[i - 1].sigma * (1 + 1e-12));
    }
    const shown = events.filter((e) => e.selectedThresholds);
    expect(new Set(shown.map((e) => e.round))).toEqual(new Set(trace.measurements.map((r) => r.round)));
    for (const e of shown) expect(e.sigma).toBe(trace.measurements[e.round - 1].sigma);
    expect(report.presentError).toBeLessThan(report.all0Error);
    expect(report.secondsSelection).toBeGreaterThan(0);
  });

  it('in table mode measures up to perRound distinct tables per round, then fits once', async () => {
    const { report } = await runRap(input({ mode: 'table', tablePlan: 'adaptive', rounds: 6, perRound: 3 }));
    const trace = report.tableMode;
    if (trace?.strategy !== 'adaptive') throw new Error('an adaptive table-mode report has its trace');
    expect(report.perRound).toBe(3);
    const byRound = new Map<number, AdaptiveTableTrace['measurements'][number][]>();
    for (const r of trace.measurements) byRound.set(r.round, [...(byRound.get(r.round) ?? []), r]);
    expect(report.rounds).toBe(byRound.size);
    for (const records of byRound.values()) {
      expect(records.length).toBeLessThanOrEqual(3);
      expect(new Set(records.map((r) => r.features.join(','))).size).toBe(records.length);
      // One annealing decision per round.
      expect(new Set(records.map((r) => r.annealed)).size).toBe(1);
    }
    // Every round but the last measures the full three (the last may run out of budget).
    for (const [round, records] of byRound) if (round < byRound.size) expect(records).toHaveLength(3);
    expect(trace.measurements.map((r) => r.measurement)).toEqual(trace.measurements.map((_, i) => i + 1));
    await expect(runRap(input({ mode: 'table', perRound: 0 }))).rejects.toThrow(/perRound/);
  });

  it('in table mode plans direct: every workload table measured once at √(2N)/n, fitted to the noise', async () => {
    const { report } = await runRap(input({ mode: 'table', tablePlan: 'direct', epsilon: 20 }));
    const trace = report.tableMode;
    if (trace?.strategy !== 'direct') throw new Error('a direct table-mode report has its trace');
    const { direct } = trace;
    // Three distinct tables; every feature is covered, so no extra one-way.
    expect(direct.tables).toBe(3);
    expect(direct.oneWay.rho + direct.rho).toBeCloseTo(report.rho, 12);
    expect(direct.sigma).toBeCloseTo(Math.sqrt((2 * 3) / (2 * direct.rho)) / data.n, 12);
    expect(report.fit?.noiseRms).toBeCloseTo(direct.sigma, 12);
    expect(report.fit?.residualRms).toBeLessThan(3 * direct.sigma);
    expect(report.gmBaseline.tables).toBe(3);
    expect(report.presentError).toBeLessThan(report.all0Error);
  });

  it('in table mode plans mixed: every workload table at √(2N)/n with its share, then rounds; Σρ = ρ', async () => {
    const { report } = await runRap(input({ mode: 'table', tablePlan: 'mixed', epsilon: 2 }));
    const trace = report.tableMode;
    if (trace?.strategy !== 'mixed') throw new Error('a mixed table-mode report has its trace');
    const { upfront } = trace;
    expect(upfront.tables).toBe(3);
    expect(upfront.rho).toBeCloseTo(MIXED_DIRECT_SHARE * report.rho, 12);
    expect(upfront.sigma).toBeCloseTo(Math.sqrt((2 * 3) / (2 * upfront.rho)) / data.n, 12);
    expect(trace.measurements.length).toBeGreaterThan(0);
    // The rounds start after the up-front fit (round 1).
    expect(Math.min(...trace.measurements.map((m) => m.round))).toBe(2);
    const rounds = trace.measurements.reduce((s, m) => s + m.rhoSelect + m.rhoMeasure, 0);
    expect(trace.oneWay.rho + upfront.rho + rounds).toBeCloseTo(report.rho, 12);
    expect(trace.rhoSpent).toBeCloseTo(report.rho, 12);
    expect(report.presentError).toBeLessThan(report.all0Error);
  });

  it('runs with iterative selection', async () => {
    const { report } = await runRap(input({ selection: 'iterative' }));
    expect(report.selection).toBe('iterative');
    expect(report.presentError).toBeLessThan(report.all0Error);
  });

  it('throttles progress but reports every round end', async () => {
    const events: ProgressEvent[] = [];
    await runRap({ ...input(), onProgress: (e) => events.push(e) });
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeLessThan(3 * 40);
    expect(new Set(events.map((e) => e.round))).toEqual(new Set([1, 2, 3]));
    expect(events.at(-1)?.rounds).toBe(3);
  });

  it('stops with an AbortError when cancelled', async () => {
    const before = new AbortController();
    before.abort();
    await expect(runRap({ ...input(), signal: before.signal })).rejects.toMatchObject({ name: 'AbortError' });
    const during = new AbortController();
    let after = 0;
    const run = runRap({
      ...input({ maxSteps: 10_000, tolerance: 0 }),
      signal: during.signal,
      onProgress: () => {
        if (during.signal.aborted) after++;
        during.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(after).toBe(0);
  });

  it('refuses bad options with an InputError naming the field', async () => {
    await expect(runRap(input({ rows: 0 }))).rejects.toThrow(InputError);
    await expect(runRap(input({ rounds: 20, perRound: 10 }))).rejects.toThrow(/rounds × perRound/);
    await expect(runRap(input({ epsilon: -1 }))).rejects.toThrow(InputError);
    const badWorkload = { thresholds: [{ features: [0, 0], r: 1, weight: 1 }] };
    await expect(runRap({ ...input(), workload: badWorkload })).rejects.toThrow(/distinct/);
  });
});
