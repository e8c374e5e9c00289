/**
 * One benchmark run. By default a RELEASE through the front door (release-run.ts: the spec
 * module and the staged pipeline `rap-studio synth` runs, a throwaway ledger, seeded INSECURE
 * noise), scored on the released CSV read back with the case's schema.
 *
 * With --profile (or --engine-only) the engine runs in-process (runRap) instead, so the CPU
 * profiler sees the kernels: a KERNEL MICRO-BENCHMARK, labelled so in the result
 * (`path: 'engine-only'`); its figures are not a release's.
 */
import path from 'node:path';
import { evaluateSynthetic } from '../../src/cli/commands/evaluate.ts';
import { loadCsv } from '../../src/core/data/load.ts';
import { layoutOf } from '../../src/core/data/onehot.ts';
import type { EncodedDataset } from '../../src/core/data/schema.ts';
import { defaultOptions } from '../../src/core/engine/defaults.ts';
import { runRap } from '../../src/core/engine/rap.ts';
import type { BackendName, ProgressEvent, RapOptions, RapReport } from '../../src/core/engine/types.ts';
import { defaultDelta } from '../../src/core/privacy/accounting.ts';
import { seededNoise } from '../../src/core/privacy/noise.ts';
import type { RanPlan } from '../../src/core/release/manifest.ts';
import type { RunSettingsText } from '../../src/core/release/spec.ts';
import { weightByHistory } from '../../src/core/workload/importance.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import { datasetSource } from './datasets.ts';
import { extrapolateRounds, prefixEpsilon, RoundClock } from './extrapolate.ts';
import { PeakRssMeter } from './memory.ts';
import { fileNameFor, writeAtomically } from './output.ts';
import { type CpuProfile, CpuProfiler, summarizeProfile } from './profile.ts';
import { releaseCase } from './release-run.ts';
import type { BenchCase, BenchResult, Extrapolation } from './types.ts';
import { buildFutureWorkloads, buildWorkload } from './workload.ts';

export interface RunSettings {
  /** Where the release's throwaway ledger and files go (a folder per case). */
  readonly workDir: string;
  /** Run the engine in-process (kernel micro-benchmark; implied by profileFile). */
  readonly engineOnly?: boolean;
  /** Truncate cases with explicit rounds T > maxRounds and extrapolate (see extrapolate.ts). */
  readonly maxRounds?: number;
  readonly backend?: BackendName;
  readonly threads?: number;
  /** Write a .cpuprofile here and attach a summary to the result. */
  readonly profileFile?: string;
  /** Progress lines (stderr). */
  readonly log: (line: string) => void;
}

const LOG_EVERY_MS = 10_000;

interface Truncation {
  readonly measured: number;
  readonly target: number;
  readonly epsilon: number;
}

export function truncationFor(c: BenchCase, delta: number, maxRounds?: number): Truncation | undefined {
  if (maxRounds === undefined || c.rounds === undefined || c.rounds <= maxRounds) return undefined;
  return {
    measured: maxRounds,
    target: c.rounds,
    epsilon: prefixEpsilon(c.epsilon, delta, maxRounds, c.rounds),
  };
}

function progressLogger(log: (line: string) => void): (e: ProgressEvent) => void {
  let last = performance.now();
  return (e) => {
    const now = performance.now();
    if (now - last < LOG_EVERY_MS) return;
    last = now;
    log(
      `    round ${e.round}/${e.rounds} step ${e.step} loss ${e.loss.toExponential(2)} ` +
        `(${e.elapsedSeconds.toFixed(0)} s, eta ${e.etaSeconds.toFixed(0)} s)`,
    );
  };
}

function extrapolation(report: RapReport, t: Truncation, rounds: readonly number[]): Extrapolation {
  const measuredRounds = rounds.reduce((s, x) => s + x, 0);
  const fixed = Math.max(0, report.secondsTotal - measuredRounds);
  const allRounds = extrapolateRounds(rounds, t.target);
  const secondsSelection = (report.secondsSelection * t.target) / t.measured;
  return {
    measuredRounds: t.measured,
    targetRounds: t.target,
    epsilonRun: t.epsilon,
    roundSeconds: rounds,
    secondsTotal: fixed + allRounds,
    secondsSelection,
    secondsProjection: Math.max(0, allRounds - secondsSelection),
  };
}

function optionsFor(
  c: BenchCase,
  delta: number,
  cut: Truncation | undefined,
  backend?: BackendName,
  threads?: number,
): RapOptions {
  return defaultOptions({
    epsilon: cut?.epsilon ?? c.epsilon,
    delta,
    rows: c.rows,
    mode: c.mode,
    ...(c.rounds !== undefined ? { rounds: cut?.measured ?? c.rounds } : {}),
    ...(c.perRound !== undefined ? { perRound: c.perRound } : {}),
    ...(backend !== undefined ? { backend } : {}),
    ...(c.selection !== undefined ? { selection: c.selection } : {}),
    ...(c.relaxation !== undefined ? { relaxation: c.relaxation } : {}),
    ...(threads !== undefined ? { threads } : {}),
  });
}

interface Measured<T> {
  readonly value: T;
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
  readonly profile?: CpuProfile;
}

/** Runs fn with wall/CPU clocks, the RSS meter and (optionally) the CPU profiler around it. */
async function measured<T>(fn: () => Promise<T>, profile: boolean): Promise<Measured<T>> {
  const memory = new PeakRssMeter();
  const profiler = profile ? new CpuProfiler() : undefined;
  await profiler?.start();
  memory.start();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let peakRssBytes = 0;
  let cpuProfile: CpuProfile | undefined;
  let value: T;
  try {
    value = await fn();
  } finally {
    peakRssBytes = memory.stop();
    cpuProfile = await profiler?.stop();
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    value,
    wallSeconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssBytes,
    ...(cpuProfile ? { profile: cpuProfile } : {}),
  };
}

export async function runCase(c: BenchCase, data: EncodedDataset, s: RunSettings): Promise<BenchResult> {
  const history = buildWorkload(c.workload, data.schema, c.seed);
  // Partial knowledge: the workload is the historical one, optionally weighted by its own history.
  const workload =
    c.future?.importance === 'history'
      ? weightByHistory(history, history, data.schema.columns.length)
      : history;
  const evalWorkloads = c.future
    ? buildFutureWorkloads(c.workload, c.future, data.schema, c.seed).map((f) => f.workload)
    : undefined;
  const delta = c.delta ?? defaultDelta(data.n);
  const cut = truncationFor(c, delta, s.maxRounds);
  const clock = new RoundClock();
  const logProgress = progressLogger(s.log);
  const onProgress = (e: ProgressEvent) => {
    clock.observe(e);
    logProgress(e);
  };
  const startedAt = new Date().toISOString();
  const engineOnly = s.engineOnly === true || s.profileFile !== undefined;
  let run: Measured<RapReport>;
  let released: BenchResult['released'];
  if (engineOnly) {
    const options = optionsFor(c, delta, cut, s.backend, s.threads);
    const direct = await measured(
      () =>
        runRap({
          data,
          workload,
          options,
          noise: seededNoise(c.seed),
          ...(evalWorkloads ? { evalWorkloads } : {}),
          onProgress,
        }),
      s.profileFile !== undefined,
    );
    run = { ...direct, value: direct.value.report };
  } else {
    const source = await datasetSource(c.dataset, data, s.workDir);
    const r = await releaseCase({
      data: source.csv,
      schema: source.schema,
      workload: history,
      // The future suite's workloads: in the release's own report (the curator's errorTables),
      // and scored on the released CSV below.
      ...(evalWorkloads && { evalWorkloads }),
      settings: settingsFor(c, delta, cut, s.backend, s.threads),
      dir: path.join(s.workDir, fileNameFor(c.id)),
      name: 'release',
      onProgress,
    });
    run = {
      value: r.outcome.report,
      wallSeconds: r.wallSeconds,
      cpuSeconds: r.cpuSeconds,
      peakRssBytes: r.peakRssBytes,
    };
    released = await scoreRelease(r.csvPath, data, workload, evalWorkloads ?? [], r.outcome.report.plan);
  }
  const report = run.value;
  if (run.profile && s.profileFile) await writeAtomically(s.profileFile, JSON.stringify(run.profile));
  const extra = cut ? extrapolation(report, cut, clock.roundSeconds()) : undefined;
  const seconds = extra?.secondsTotal ?? report.secondsTotal;
  return {
    case: c,
    path: engineOnly ? 'engine-only' : 'release',
    dataset: { name: c.dataset, n: data.n, width: layoutOf(data.schema).width },
    workload: { ...c.workload, queries: report.numQueries },
    delta,
    backend: report.backend,
    report,
    ...(released && { released }),
    measurements: {
      wallSeconds: run.wallSeconds,
      cpuSeconds: run.cpuSeconds,
      peakRssBytes: run.peakRssBytes,
      queriesPerSecond: report.numQueries / seconds,
    },
    ...(extra ? { extrapolation: extra } : {}),
    ...(run.profile ? { profile: summarizeProfile(run.profile) } : {}),
    startedAt,
  };
}

/** The case's settings as a curator types them (the spec module parses them as for the CLI). */
export function settingsFor(
  c: BenchCase,
  delta: number,
  cut: Truncation | undefined,
  backend?: BackendName,
  threads?: number,
): RunSettingsText & { readonly seed: string } {
  const selection =
    c.selection === undefined ? undefined : c.selection === 'iterative' ? 'adaptive' : 'one-shot';
  return {
    epsilon: String(cut?.epsilon ?? c.epsilon),
    delta: String(delta),
    rows: String(c.rows),
    mode: c.mode,
    ...(c.rounds !== undefined && { rounds: String(cut?.measured ?? c.rounds) }),
    ...(c.perRound !== undefined && { perRound: String(c.perRound) }),
    ...(backend !== undefined && { backend }),
    ...(threads !== undefined && { threads: String(threads) }),
    ...(selection !== undefined && c.mode === 'query' && { selection }),
    ...(c.relaxation !== undefined && { relaxation: c.relaxation }),
    seed: String(c.seed),
  };
}

/** The released CSV read back with the dataset's schema, scored against the private data. */
async function scoreRelease(
  csvPath: string,
  real: EncodedDataset,
  workload: Workload,
  futures: readonly Workload[],
  plan: RanPlan,
): Promise<NonNullable<BenchResult['released']>> {
  const synthetic = (await loadCsv(csvPath, { schema: real.schema })).dataset;
  const present = evaluateSynthetic(real, synthetic, workload, real.schema);
  return {
    csvRows: synthetic.n,
    maxError: present.maxError,
    meanError: present.meanError,
    futureMaxErrors: futures.map((w) => evaluateSynthetic(real, synthetic, w, real.schema).maxError),
    plan: plan.mode === 'table' ? plan.strategy : 'query',
  };
}
