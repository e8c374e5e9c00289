/**
 * The benchmark model: a suite expands to cases (one engine run each); a run gives a result;
 * results of the same case over several seeds aggregate into one table row.
 */
import type { Relaxation } from '../../src/core/engine/kernels/session.ts';
import type { BackendName, EngineMode, RapReport } from '../../src/core/engine/types.ts';
import type { FeatureDistribution } from '../../src/core/workload/random.ts';
import type { ProfileSummary } from './profile.ts';

/** Datasets the harness knows how to produce (see datasets.ts). */
export type DatasetId = 'adult' | 'loans-synthetic';

export interface WorkloadSpec {
  readonly k: number;
  readonly r: number;
  /** Number of thresholds |W|. */
  readonly size: number;
  /**
   * Draw features only among those with at most this many categories (the scale suite: LOANS
   * features with huge domains would make 64 random 1-of-4 thresholds ~3·10^9 queries).
   */
  readonly maxDomain?: number;
  /** Feature distribution over the (drawable) features in column order; default uniform. */
  readonly dist?: FeatureDistribution;
}

/**
 * Partial knowledge (the `future` suite): the case's workload is the historical one; after the
 * run, `perDrift` future workloads of `size` thresholds (same k, r) are drawn for each drift γ
 * from the historical distribution and the run's future error is measured on each.
 */
export interface FutureSpec {
  readonly drifts: readonly number[];
  readonly perDrift: number;
  readonly size: number;
  /** Weight the historical workload's thresholds by their features' historical frequency. */
  readonly importance?: 'history';
}

/** One engine run, fully determined by these fields. */
export interface BenchCase {
  /** Unique within a suite run, seed included; `--filter` matches substrings of it. */
  readonly id: string;
  /** The case without its seed: runs with the same group form one table row. */
  readonly group: string;
  readonly suite: string;
  readonly dataset: DatasetId;
  readonly workload: WorkloadSpec;
  readonly epsilon: number;
  /** Undefined = 1/n². */
  readonly delta?: number;
  /** Synthetic rows n'. */
  readonly rows: number;
  /** Undefined = the engine's default rule. */
  readonly rounds?: number;
  readonly perRound?: number;
  readonly mode: EngineMode;
  /** Seeds both the workload draw and the engine's (insecure, reproducible) noise. */
  readonly seed: number;
  /** Query-mode selection: one-shot top-K (OSAS, the default) or iterative peeling (AS). */
  readonly selection?: 'oneshot' | 'iterative';
  /** Default sparsemax. */
  readonly relaxation?: Relaxation;
  readonly future?: FutureSpec;
  /** A free-form note shown in the table (e.g. which figure of the paper the case reproduces). */
  readonly note?: string;
}

/** What a suite file declares; adding a suite = one file exporting this plus one registry line. */
export interface Suite {
  readonly name: string;
  readonly description: string;
  /** Seeds per case unless --seeds overrides. */
  readonly defaultSeeds: number;
  /** Rough wall-time budget on the 2-core reference machine, for the table header. */
  readonly budget: string;
  cases(seeds: readonly number[]): BenchCase[];
  /** Extra Markdown sections after the main table (e.g. the future suite's findings). */
  sections?(results: readonly BenchResult[]): string[];
}

/** Timing and memory measured around one run. */
export interface RunMeasurements {
  readonly wallSeconds: number;
  /**
   * CPU seconds (user + system) this process used during the run: on a shared machine wall
   * seconds include waiting for a core, CPU seconds do not.
   */
  readonly cpuSeconds: number;
  /** Max RSS seen while the run was going (sampled, and the process peak if the run raised it). */
  readonly peakRssBytes: number;
  readonly queriesPerSecond: number;
}

/** Present when --max-rounds truncated the run: the figures for the full T are extrapolated. */
export interface Extrapolation {
  readonly measuredRounds: number;
  readonly targetRounds: number;
  /** ε actually run: the same per-round ρ as the full run (ρ·R/T). */
  readonly epsilonRun: number;
  readonly roundSeconds: readonly number[];
  readonly secondsTotal: number;
  readonly secondsSelection: number;
  readonly secondsProjection: number;
}

export interface BenchResult {
  readonly case: BenchCase;
  /**
   * 'release': through the release pipeline, scored on the released CSV (every figure a user
   * gets); 'engine-only': the engine in-process (--profile): a kernel micro-benchmark.
   */
  readonly path?: 'release' | 'engine-only';
  /** Scored on the released CSV read back (path 'release'). */
  readonly released?: {
    readonly csvRows: number;
    readonly maxError: number;
    readonly meanError: number;
    /** The future suite: max error of each evaluation workload, on the released CSV. */
    readonly futureMaxErrors: readonly number[];
    /** The plan the release ran (direct / mixed / adaptive, or query). */
    readonly plan: string;
  };
  readonly dataset: { readonly name: DatasetId; readonly n: number; readonly width: number };
  readonly workload: WorkloadSpec & { readonly queries: number };
  readonly delta: number;
  readonly backend: BackendName;
  readonly report: RapReport;
  readonly measurements: RunMeasurements;
  readonly extrapolation?: Extrapolation;
  readonly profile?: ProfileSummary;
  readonly startedAt: string;
}
