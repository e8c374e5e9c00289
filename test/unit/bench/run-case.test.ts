/** One benchmark run end to end on a tiny synthetic dataset (the engine in-process). */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleBayesNet } from '../../../bench/lib/loans-generator.ts';
import { runCase } from '../../../bench/lib/run-case.ts';
import { schemaFromDomain } from '../../../src/core/data/benchmark.ts';
import { rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import { fakeCase } from './fixtures.ts';

const data = sampleBayesNet(schemaFromDomain({ a: 3, b: 4, c: 5, d: 3 }), { rows: 400, seed: 3 });
const tiny = fakeCase({ workload: { k: 2, r: 2, size: 3 }, epsilon: 1, rows: 50, rounds: 3, perRound: 2 });

describe('runCase', () => {
  it('runs the case as specified, with seeded insecure noise, and measures it', async () => {
    const lines: string[] = [];
    const r = await runCase(tiny, data, { log: (l) => lines.push(l) });
    expect(r.report.seedMode).toBe('insecure-seed');
    expect(r.report).toMatchObject({ rounds: 3, perRound: 2, rows: 50, epsilon: 1 });
    expect(r.delta).toBeCloseTo(1 / 400 ** 2, 15);
    expect(r.workload.queries).toBe(r.report.numQueries);
    expect(r.measurements.queriesPerSecond).toBeCloseTo(r.report.numQueries / r.report.secondsTotal, 6);
    expect(r.measurements.peakRssBytes).toBeGreaterThan(0);
    expect(r.extrapolation).toBeUndefined();
    // Same seed, same run: the errors repeat exactly.
    const again = await runCase(tiny, data, { log: () => {} });
    expect(again.report.presentError).toBe(r.report.presentError);
  });

  it('cuts T to --max-rounds at the same per-round ρ and extrapolates the times', async () => {
    const r = await runCase(tiny, data, { log: () => {}, maxRounds: 1 });
    const x = r.extrapolation!;
    expect(r.report.rounds).toBe(1);
    expect(x).toMatchObject({ measuredRounds: 1, targetRounds: 3 });
    expect(rhoFromEpsilon(x.epsilonRun, r.delta)).toBeCloseTo(rhoFromEpsilon(1, r.delta) / 3, 12);
    expect(r.report.epsilon).toBeCloseTo(x.epsilonRun, 12);
    expect(x.secondsTotal).toBeGreaterThanOrEqual(r.report.secondsTotal);
    expect(x.secondsSelection).toBeCloseTo(3 * r.report.secondsSelection, 9);
    expect(r.measurements.queriesPerSecond).toBeCloseTo(r.report.numQueries / x.secondsTotal, 6);
  });

  it('with a profile file: saves the CPU profile and attributes time to engine phases', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rap-bench-'));
    try {
      const file = path.join(dir, 'profiles', 'run.cpuprofile');
      const r = await runCase(tiny, data, { log: () => {}, profileFile: file });
      expect(existsSync(file)).toBe(true);
      expect(JSON.parse(readFileSync(file, 'utf8')).nodes.length).toBeGreaterThan(0);
      // Which phases get samples depends on timing (a tiny run may stop projecting after a few
      // steps); every sampled second must still land in a named phase.
      const phases = r.profile!.byPhase.map((p) => p.name);
      const known = ['projection', 'selection', 'evaluation', 'setup', 'engine (other)', 'other'];
      expect(phases.length).toBeGreaterThan(0);
      for (const name of phases) expect(known).toContain(name);
      expect(phases.some((name) => name !== 'other' && name !== 'setup')).toBe(true);
      expect(r.profile!.sampledSeconds).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
