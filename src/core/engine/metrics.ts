/**
 * Error metrics of a run, streamed threshold by threshold (one threshold's tables in memory at a
 * time). They compare with the exact private answers: diagnostics for the curator only.
 *
 * Relative-error profile (PREM's notion): the share of queries with
 * |answer − true| ≤ ζ · true + α, for ζ ∈ {0.1, 0.25} and α = 1/n' (one relaxed row's weight:
 * the resolution of the synthetic data), computed on the rounded (released) data.
 */
import type { Threshold, Workload } from '../workload/types.ts';
import type { RunControl } from './run-control.ts';

export const PROFILE_ZETAS = [0.1, 0.25] as const;

export interface ErrorSummary {
  /** Max |exact − answer|. */
  readonly max: number;
  readonly mean: number;
  readonly perThreshold: readonly number[];
  /** Share of queries within ζ·true + α, per ζ of PROFILE_ZETAS. */
  readonly withinShare: readonly number[];
}

class ErrorAccumulator {
  private max = 0;
  private sum = 0;
  private count = 0;
  private readonly perThreshold: number[] = [];
  private readonly within = PROFILE_ZETAS.map(() => 0);

  constructor(private readonly alpha: number) {}

  add(exact: Float64Array, answers: Float64Array): void {
    let tMax = 0;
    for (let y = 0; y < exact.length; y++) {
      const e = exact[y];
      const err = Math.abs(e - answers[y]);
      this.sum += err;
      if (err > tMax) tMax = err;
      for (let z = 0; z < PROFILE_ZETAS.length; z++)
        if (err <= PROFILE_ZETAS[z] * e + this.alpha) this.within[z]++;
    }
    this.count += exact.length;
    this.perThreshold.push(tMax);
    if (tMax > this.max) this.max = tMax;
  }

  summary(): ErrorSummary {
    return {
      max: this.max,
      mean: this.count > 0 ? this.sum / this.count : 0,
      perThreshold: this.perThreshold,
      withinShare: this.within.map((w) => (this.count > 0 ? w / this.count : 0)),
    };
  }
}

export interface WorkloadEvaluation {
  /** Max exact answer: the error of answering every query with 0 (the All-0 baseline). */
  readonly maxExact: number;
  /** The same per threshold, in workload order. */
  readonly maxExactPerThreshold: readonly number[];
  readonly bySource: readonly ErrorSummary[];
}

/**
 * Errors of several answer sources (relaxed D', rounded data, …) against the exact answers of a
 * workload; each source is asked for one threshold's answers at a time.
 */
export async function evaluateWorkload(
  workload: Workload,
  exactOf: (t: Threshold) => Float64Array,
  sources: readonly ((t: Threshold) => Float64Array)[],
  alpha: number,
  control: RunControl,
): Promise<WorkloadEvaluation> {
  const acc = sources.map(() => new ErrorAccumulator(alpha));
  const maxExactPerThreshold: number[] = [];
  for (const t of workload.thresholds) {
    await control.checkpoint();
    const exact = exactOf(t);
    let tMax = 0;
    for (let y = 0; y < exact.length; y++) if (exact[y] > tMax) tMax = exact[y];
    maxExactPerThreshold.push(tMax);
    sources.forEach((answersOf, s) => {
      acc[s].add(exact, answersOf(t));
    });
  }
  return {
    maxExact: maxExactPerThreshold.reduce((a, b) => Math.max(a, b), 0),
    maxExactPerThreshold,
    bySource: acc.map((a) => a.summary()),
  };
}

/** Cells of answers one source keeps for a second evaluation pass: 2^24 (128 MiB of float64). */
export const SHARED_ANSWER_CELLS = 2 ** 24;

function thresholdKey(t: Threshold): string {
  return `${t.features.join(',')}/${t.r}`;
}

/** Keys of the thresholds (features and r; the weight does not change answers) in both workloads. */
export function sharedThresholds(first: Workload, second?: Workload): ReadonlySet<string> {
  if (!second) return new Set();
  const inFirst = new Set(first.thresholds.map(thresholdKey));
  return new Set(second.thresholds.map(thresholdKey).filter((key) => inFirst.has(key)));
}

/**
 * An answer source that keeps the answers of the shared thresholds (while they fit maxCells) and
 * hands them out again instead of recomputing them; the answers are read, never modified.
 */
export function reusingAnswers(
  shared: ReadonlySet<string>,
  answersOf: (t: Threshold) => Float64Array,
  maxCells = SHARED_ANSWER_CELLS,
): (t: Threshold) => Float64Array {
  const kept = new Map<string, Float64Array>();
  let cells = 0;
  return (t) => {
    const key = thresholdKey(t);
    if (!shared.has(key)) return answersOf(t);
    const hit = kept.get(key);
    if (hit) return hit;
    const answers = answersOf(t);
    if (cells + answers.length <= maxCells) {
      kept.set(key, answers);
      cells += answers.length;
    }
    return answers;
  };
}
