/**
 * The engine's public contract: what a RAP run takes and gives back, and the progress events
 * it emits. The engine process protocol and the CLI/app are written against this file.
 */
import type { PrivateData } from '../data/counted.ts';
import type { CodeArray } from '../data/schema.ts';
import type { BackendName, EngineMode, EngineSelection, Relaxation } from '../input/choices.ts';
import type { NoiseSource, SeedMode } from '../privacy/noise.ts';
import type { Workload } from '../workload/types.ts';
import type { GmTablesBaseline } from './baselines/gm-tables.ts';
import type { PersonUnit } from './measure.ts';
import type { PaidOneWays } from './paid-one-ways.ts';
import type { ProgressEvent } from './progress.ts';
import type { ErrorTables } from './workload-error-types.ts';

/** The names users type for these (input/choices.ts lists them once). */
export type { BackendName, EngineMode, Relaxation };

/**
 * Table mode's plans (issue 19): every workload table measured once (`direct`), AIM-style rounds
 * (`adaptive`), or a share of ρ on every workload table, then rounds (`mixed`).
 */
export type TableStrategy = 'direct' | 'mixed' | 'adaptive';

export interface RapOptions {
  readonly epsilon: number;
  readonly delta: number;
  /** Synthetic (relaxed) rows n'. Default 1000. */
  readonly rows: number;
  /** Rounds T and queries per round K; undefined = the engine's documented default rule. */
  readonly rounds?: number;
  readonly perRound?: number;
  /** Each relaxed row is sampled this many times by randomized rounding. Default 50. */
  readonly oversample: number;
  readonly mode: EngineMode;
  /** Table mode's plan; undefined = the public rule (defaults.ts, defaultTableStrategy). */
  readonly tablePlan?: TableStrategy;
  /** 'oneshot' = OSAS (default), 'iterative' = AS, for comparison. */
  readonly selection: EngineSelection;
  /** Adam learning rate, step budget per round, early-stopping tolerance, query mini-batch. */
  readonly learningRate: number;
  readonly maxSteps: number;
  readonly tolerance: number;
  readonly batchSize: number;
  readonly backend?: BackendName;
  /** How D' stays on the simplex: 'sparsemax' (RAP; the default) or 'softmax' (GEM). */
  readonly relaxation?: Relaxation;
  /** CPU kernel threads; default every core (os.availableParallelism). Results do not depend on it. */
  readonly threads?: number;
  /**
   * The relative-error pass and its public accuracy certificate (PREM): ζ, the share of ρ it
   * spends, the certificate's β and the monitor's c (violations it may report). See certify.ts.
   */
  readonly certify?: CertifyOptions;
  /**
   * The person as the unit of privacy (src/core/privacy/contribution.ts): the data holds at most
   * `bound` rows per person, and every answer is normalised by the public `normaliser` (the noisy
   * bounded row count n̂) instead of the private row count. Absent: one row is the unit, n public.
   */
  readonly unit?: PersonUnit;
}

export interface CertifyOptions {
  /** Relative margin ζ, 0 < ζ < 1. */
  readonly zeta: number;
  /** Share of the run's ρ the pass spends (taken out of the synthesis's ρ), 0 < share < 1. */
  readonly share: number;
  /** The certificate's failure probability β; default 0.05. */
  readonly beta?: number;
  /** c: the most violations the monitor reports (then it halts); default 3. */
  readonly maxViolations?: number;
}

/**
 * The public accuracy certificate of a release (PREM's relative error), computed from the range
 * monitor's answers and public parameters only: it may be published.
 */
export interface AccuracyCertificate {
  readonly zeta: number;
  /** Additive slack α, as a fraction of the records (α·n records). */
  readonly alpha: number;
  readonly beta: number;
  /** m: the workload's queries. */
  readonly queries: number;
  /** The final scan passed every query: the whole workload is certified. */
  readonly clean: boolean;
  /** Share of the m queries the final scan passed (1 when clean). */
  readonly certifiedShare: number;
  /** The pass's cost: ρ (zCDP), and the pure-DP ε = √(2ρ) of the monitor. */
  readonly rho: number;
  readonly epsilon: number;
  readonly share: number;
  /** c, the scans made, and the violations fed back to the projection. */
  readonly maxViolations: number;
  readonly scans: number;
  readonly violationsFixed: number;
  readonly statement: string;
}

/** Contributions bounded per person (measure.ts, where the sensitivity it changes is stated). */
export type { PersonUnit } from './measure.ts';

/** In its own file (no imports) so the renderer's API types can use it without Node types. */
export type { ProgressEvent } from './progress.ts';

/**
 * A run's report. The error metrics compare against the exact private answers: they are
 * non-private diagnostics for the curator's eyes only and are never part of a release.
 */
export interface RapReport {
  readonly mode: EngineMode;
  readonly presentError: number;
  readonly roundedPresentError: number;
  readonly meanError: number;
  readonly roundedMeanError: number;
  readonly all0Error: number;
  /** The GM baseline's expected max error (gmBaseline: each distinct workload table measured once). */
  readonly gmError: number;
  readonly gmBaseline: GmTablesBaseline;
  readonly numQueries: number;
  readonly rho: number;
  readonly epsilon: number;
  readonly delta: number;
  readonly rounds: number;
  readonly perRound: number;
  readonly rows: number;
  readonly oversample: number;
  readonly secondsTotal: number;
  readonly secondsSelection: number;
  readonly secondsProjection: number;
  readonly backend: BackendName;
  /** One line: why this backend (and how many threads) ran, e.g. why the GPU was not used. */
  readonly backendNote?: string;
  readonly seedMode: SeedMode;
  /** Share of queries within (1 ± ζ)·true ± α, for ζ ∈ {0.1, 0.25} (PREM's notion). */
  readonly relativeErrorProfile: readonly { zeta: number; alpha: number; share: number }[];
  /**
   * With the relative-error pass: the same profile on the data before the pass (curator-only),
   * at the profile's ζs and at the certificate's (ζ, α).
   */
  readonly relativeErrorBefore?: readonly { zeta: number; alpha: number; share: number }[];
  /** With the pass: the same shares on the released data at the certificate's (ζ, α). */
  readonly relativeErrorAtCertificate?: { readonly before: number; readonly after: number };
  /** The public accuracy certificate (the relative-error pass, options.certify). */
  readonly certificate?: AccuracyCertificate;
  /** Max error per threshold (rounded data), for the results screen. */
  readonly perThresholdError: readonly number[];
  /** Max error on the (first) evaluation workload for the relaxed data. */
  readonly futureError?: number;
  /** Max error on the evaluation workload for the rounded data (with futureError). */
  readonly roundedFutureError?: number;
  /**
   * Present (the workload) and future (each evaluation workload) max error, overall and per
   * threshold, for the relaxed and the released data with the All-0 and GM baselines.
   */
  readonly errorTables?: ErrorTables;
  readonly relaxation?: Relaxation;
  /** False for a non-adaptive run (T = 1, K = m: every query measured at once). */
  readonly adaptive?: boolean;
  readonly selection?: RapOptions['selection'];
  /** Optimizer steps over all rounds, and the mean wall milliseconds per step. */
  readonly projectionSteps?: number;
  readonly msPerStep?: number;
  /** Share of nonzero entries of the final relaxed D' (the all-query tables cost grows with it). */
  readonly relaxedDensity?: number;
  /**
   * Wall seconds by kind of work: sparsemax (every projection), loss and gradient, the relaxed
   * and the exact answers outside the final evaluation (selection, measurement), privacy noise
   * (query selection's Gumbel draws with their top-K, the measurements), and the whole final
   * evaluation (rounding and every error metric).
   */
  readonly timings?: {
    readonly sparsemax: number;
    readonly lossGradient: number;
    readonly relaxedAnswers: number;
    readonly exactAnswers: number;
    readonly noise: number;
    readonly evaluation: number;
  };
  /** Table mode: what was measured, with which noise (public: noisy outputs and their scales). */
  readonly tableMode?: TableModeTrace;
  /**
   * Table mode: how close D' came to its measurements — the weighted RMS of (D' − measured) over
   * every measured cell — beside the noise's (the same RMS for the true tables, in expectation).
   * Fitting further than the noise only fits noise.
   */
  readonly fit?: { readonly residualRms: number; readonly noiseRms: number };
}

export interface TableModeFallback {
  readonly threshold: number;
  readonly cells: number;
  /** The sub-tables measured instead. */
  readonly units: readonly (readonly number[])[];
}

/** One table-mode measurement (several share a round: one projection after them). */
export interface TableMeasurementRecord {
  readonly round: number;
  /** 1-based measurement number (its budget share, table-mode/rho-schedule.ts). */
  readonly measurement: number;
  readonly features: readonly number[];
  readonly thresholds: readonly number[];
  readonly cells: number;
  /** The grouped version of the table (small categories merged) was measured. */
  readonly grouped: boolean;
  readonly sigma: number;
  readonly rhoSelect: number;
  readonly rhoMeasure: number;
  /** The round's fit moved its tables by less than the noise: the next measurements use σ / 2. */
  readonly annealed: boolean;
}

interface TableTraceBase {
  /** T₀, the bound on rounds (T₀·K bounds the measurements and sets their first ρ). */
  readonly roundBound: number;
  readonly cellLimit: number;
  readonly rhoSpent: number;
}

/** The rounds' part of a trace: one-way start, then rounds of selected measurements. */
interface RoundsTrace extends TableTraceBase {
  /** σ 0 and ρ 0 when every feature's one-way was paid (`paid`: discovery's, not measured again). */
  readonly oneWay: {
    readonly rho: number;
    readonly sigma: number;
    readonly features: number;
    readonly paid?: number;
  };
  /** Features whose small categories were merged for grouped tables: categories → groups. */
  readonly compressed: readonly {
    readonly feature: number;
    readonly categories: number;
    readonly groups: number;
  }[];
  readonly fallbacks: readonly TableModeFallback[];
  readonly measurements: readonly TableMeasurementRecord[];
}

/** The adaptive plan: one-way start, then rounds of selected measurements. */
export interface AdaptiveTableTrace extends RoundsTrace {
  readonly strategy: 'adaptive';
}

/**
 * The mixed plan: one-way start, every workload table measured together (`upfront`: its ρ, σ,
 * tables and cells as measured, grouped), then rounds of selected measurements.
 */
export interface MixedTableTrace extends RoundsTrace {
  readonly strategy: 'mixed';
  readonly upfront: {
    readonly rho: number;
    readonly sigma: number;
    readonly tables: number;
    readonly cells: number;
  };
}

/** The direct plan: every distinct workload table measured once, together, at the whole ρ. */
export interface DirectTableTrace extends TableTraceBase {
  readonly strategy: 'direct';
  readonly direct: {
    /** `paid`: features whose one-way was discovery's (paid-one-ways.ts), not measured again. */
    readonly oneWay: {
      readonly rho: number;
      readonly sigma: number;
      readonly features?: number;
      readonly paid?: number;
    };
    readonly rho: number;
    readonly sigma: number;
    readonly tables: number;
    /** Cells measured: the tables' after merging small categories. */
    readonly cells: number;
  };
}

export type TableModeTrace = AdaptiveTableTrace | MixedTableTrace | DirectTableTrace;

export interface RapInput {
  /**
   * The private data: its encoded rows, or its exact tables over every feature set
   * requiredFeatureSets (required-tables.ts) lists for this input (data/counted.ts).
   */
  readonly data: PrivateData;
  readonly workload: Workload;
  readonly options: RapOptions;
  readonly noise: NoiseSource;
  /**
   * Per feature, its one-way marginal already measured and paid for (private discovery's,
   * paid-one-ways.ts), or null: table mode does not measure those again.
   */
  readonly paidOneWays?: PaidOneWays;
  /** A workload to report the future error on (partial knowledge); evaluated first. */
  readonly evalWorkload?: Workload;
  /** Further evaluation workloads (e.g. several drifted draws), evaluated after evalWorkload. */
  readonly evalWorkloads?: readonly Workload[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (e: ProgressEvent) => void;
}

export interface RapResult {
  readonly report: RapReport;
  /** Rounded synthetic rows as codes per column (n' × oversample rows). */
  readonly synthetic: { readonly n: number; readonly codes: readonly CodeArray[] };
}
