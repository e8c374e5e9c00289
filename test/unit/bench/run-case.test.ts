/**
 * One benchmark run end to end on a tiny synthetic dataset: through the release pipeline (the
 * default; scored on the released CSV, and byte-identical to `rap-studio synth` with the same
 * seed), and the engine in-process (--profile: a kernel micro-benchmark).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasetSource } from '../../../bench/lib/datasets.ts';
import { sampleBayesNet } from '../../../bench/lib/loans-generator.ts';
import { fileNameFor } from '../../../bench/lib/output.ts';
import { runCase } from '../../../bench/lib/run-case.ts';
import { buildWorkload } from '../../../bench/lib/workload.ts';
import { schemaFromDomain } from '../../../src/core/data/benchmark.ts';
import { rhoFromEpsilon } from '../../../src/core/privacy/accounting.ts';
import { workloadToJson } from '../../../src/core/workload/workload.ts';
import { runCli } from '../../support/cli.ts';
import { fakeCase } from './fixtures.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rap-bench-release-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let runs = 0;
const settings = (extra: object = {}) => ({
  log: () => {},
  workDir: path.join(work, `run-${runs++}`),
  ...extra,
});

const data = sampleBayesNet(schemaFromDomain({ a: 3, b: 4, c: 5, d: 3 }), { rows: 400, seed: 3 });
const tiny = fakeCase({ workload: { k: 2, r: 2, size: 3 }, epsilon: 1, rows: 50, rounds: 3, perRound: 2 });

describe('runCase', () => {
  it('runs the case as a release, with seeded insecure noise, scores the released CSV, and measures it', async () => {
    const r = await runCase(tiny, data, settings());
    expect(r.path).toBe('release');
    expect(r.report.seedMode).toBe('insecure-seed');
    // Integer-coded data: the released CSV read back answers as the engine's rounded rows did.
    expect(r.released!.maxError).toBeCloseTo(r.report.roundedPresentError, 12);
    expect(r.released!.csvRows).toBe(50 * r.report.oversample);
    expect(r.released!.plan).toBe('query');
    expect(r.report).toMatchObject({ rounds: 3, perRound: 2, rows: 50, epsilon: 1 });
    expect(r.delta).toBeCloseTo(1 / 400 ** 2, 15);
    expect(r.workload.queries).toBe(r.report.numQueries);
    expect(r.measurements.queriesPerSecond).toBeCloseTo(r.report.numQueries / r.report.secondsTotal, 6);
    expect(r.measurements.peakRssBytes).toBeGreaterThan(0);
    expect(r.extrapolation).toBeUndefined();
    // Same seed, same run: the errors repeat exactly.
    const again = await runCase(tiny, data, settings());
    expect(again.report.presentError).toBe(r.report.presentError);
  });

  it('the bench path and `rap-studio synth` with the same seed write byte-identical CSVs', async () => {
    const dir = path.join(work, 'identity');
    const c = fakeCase({ workload: { k: 2, r: 2, size: 3 }, epsilon: 1, rows: 50, mode: 'table', seed: 4 });
    const bench = await runCase(c, data, settings({ workDir: dir }));
    const benchCsv = readFileSync(path.join(dir, fileNameFor(c.id), 'release.csv'));
    // The CLI on the same integer-coded file, domain and workload, with the same settings.
    const csv = (await datasetSource(c.dataset, data, dir)).csv;
    writeFileSync(path.join(dir, 'domain.json'), JSON.stringify({ a: 3, b: 4, c: 5, d: 3 }));
    const w = buildWorkload(c.workload, data.schema, c.seed);
    writeFileSync(path.join(dir, 'w.json'), workloadToJson(w, data.schema));
    const cli = await runCli(
      [
        'synth',
        '--data',
        csv,
        '--domain',
        'domain.json',
        '--workload',
        'w.json',
        '--epsilon',
        '1',
        '--delta',
        String(bench.delta),
        '--rows',
        '50',
        '--mode',
        'table',
        '--seed',
        '4',
        '--insecure-seed',
        '--budget-epsilon',
        '100',
        '--confirm-cap',
        '--ledger',
        'cli-ledger.sqlite',
        '--out',
        'cli.csv',
      ],
      dir,
    );
    expect(cli.stderr).not.toMatch(/rap-studio:/);
    expect(cli.code).toBe(0);
    expect(readFileSync(path.join(dir, 'cli.csv')).equals(benchCsv)).toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'cli.manifest.json'), 'utf8'));
    expect(manifest.plan.strategy).toBe(bench.released!.plan);
  });

  it('cuts T to --max-rounds at the same per-round ρ and extrapolates the times', async () => {
    const r = await runCase(tiny, data, settings({ maxRounds: 1 }));
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
      const r = await runCase(tiny, data, settings({ profileFile: file }));
      expect(r.path).toBe('engine-only');
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
