/**
 * One benchmark run: the engine in-process (runRap) on a case's dataset and workload, with
 * seeded, INSECURE noise (benchmarks never touch the ledger and never release anything), timed,
 * with peak memory and, on request, a CPU profile.
 */
import { layoutOf } from '../../src/core/data/onehot.ts';
import type { EncodedDataset } from '../../src/core/data/schema.ts';
import { defaultOptions } from '../../src/core/engine/defaults.ts';
import { runRap } from '../../src/core/engine/rap.ts';
import type { BackendName, ProgressEvent, RapOptions, RapReport } from '../../src/core/engine/types.ts';
import { defaultDelta } from '../../src/core/privacy/accounting.ts';
import { seededNoise } from '../../src/core/privacy/noise.ts';
import { extrapolateRounds, prefixEpsilon, RoundClock } from './extrapolate.ts';
import { PeakRssMeter } from './memory.ts';
import { writeAtomically } from './output.ts';
import { type CpuProfile, CpuProfiler, summarizeProfile } from './profile.ts';
import type { BenchCase, BenchResult, Extrapolation } from './types.ts';
import { buildWorkload } from './workload.ts';

export interface RunSettings {
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
  const workload = buildWorkload(c.workload, data.schema, c.seed);
  const delta = c.delta ?? defaultDelta(data.n);
  const cut = truncationFor(c, delta, s.maxRounds);
  const options = optionsFor(c, delta, cut, s.backend, s.threads);
  const clock = new RoundClock();
  const logProgress = progressLogger(s.log);
  const startedAt = new Date().toISOString();
  const run = await measured(
    () =>
      runRap({
        data,
        workload,
        options,
        noise: seededNoise(c.seed),
        onProgress: (e) => {
          clock.observe(e);
          logProgress(e);
        },
      }),
    s.profileFile !== undefined,
  );
  const { report } = run.value;
  if (run.profile && s.profileFile) await writeAtomically(s.profileFile, JSON.stringify(run.profile));
  const extra = cut ? extrapolation(report, cut, clock.roundSeconds()) : undefined;
  const seconds = extra?.secondsTotal ?? report.secondsTotal;
  return {
    case: c,
    dataset: { name: c.dataset, n: data.n, width: layoutOf(data.schema).width },
    workload: { ...c.workload, queries: report.numQueries },
    delta,
    backend: report.backend,
    report,
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
