/**
 * Private selection of the queries (query mode) where the relaxed
 * data is worst, streamed threshold by threshold so that no more than one threshold's scores
 * exist at a time.
 *
 * Query score: w̄_t · |exact − surrogate| (sensitivity w̄_max / n = 1/n, replace-one).
 * Table mode selects whole tables in table-mode/rounds.ts.
 */
import { InputError } from '../../errors.ts';
import { iterativeTopK, NoisyTopK } from '../../privacy/mechanisms.ts';
import type { NoiseSource } from '../../privacy/noise.ts';
import type { Workload } from '../../workload/types.ts';
import type { ExactAnswers } from '../exact-answers.ts';
import type { KernelSession } from '../kernels/session.ts';
import type { RunControl } from '../run-control.ts';
import type { SelectedQueries } from './selected-queries.ts';

export interface QueryRef {
  readonly threshold: number;
  readonly local: number;
}

export interface ScoringContext {
  readonly workload: Workload;
  /** Normalized importance weights per threshold. */
  readonly weights: Float64Array;
  /** offsets[t] = global index of threshold t's first query; offsets[N] = m. */
  readonly offsets: readonly number[];
  readonly exact: ExactAnswers;
  readonly session: KernelSession;
  readonly control: RunControl;
}

/** Largest candidate count the iterative (AS) selection materializes. */
export const ITERATIVE_MAX_CANDIDATES = 2 ** 25;

/**
 * Scores of all queries of threshold ti (selected ones included), from its surrogate answers
 * (consumed: the scores are written over them).
 */
function thresholdScores(ctx: ScoringContext, ti: number, surrogate: Float64Array): Float64Array {
  const t = ctx.workload.thresholds[ti];
  // Exact answers straight from the cached counts: count / n is the same double as the table's.
  const { numerators, denominator } = ctx.exact.table(t);
  const w = ctx.weights[ti];
  for (let y = 0; y < surrogate.length; y++)
    surrogate[y] = w * Math.abs(numerators[y] / denominator - surrogate[y]);
  return surrogate;
}

/**
 * Surrogate answers computed together (answersOf: the CPU threads share the thresholds out) up to
 * this many cells at a time: 32 MB of answers, however large the workload.
 */
const SCORING_BATCH_CELLS = 2 ** 22;

/** Calls visit(start, end) for the maximal runs of [0, size) that avoid the sorted `skip`. */
function unselectedRuns(
  size: number,
  skip: readonly number[],
  visit: (start: number, end: number) => void,
): void {
  let start = 0;
  for (const s of skip) {
    if (s > start) visit(start, s);
    start = s + 1;
  }
  if (start < size) visit(start, size);
}

export function locate(offsets: readonly number[], global: number): QueryRef {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= global) lo = mid;
    else hi = mid - 1;
  }
  return { threshold: lo, local: global - offsets[lo] };
}

/** Visits the runs [start, end) of unselected queries' scores, threshold by threshold. */
async function scanUnselected(
  ctx: ScoringContext,
  selected: SelectedQueries,
  visit: (scores: Float64Array, start: number, end: number, base: number) => void,
): Promise<void> {
  const { thresholds } = ctx.workload;
  for (let first = 0; first < thresholds.length; ) {
    await ctx.control.checkpoint();
    let end = first + 1;
    let cells = ctx.offsets[end] - ctx.offsets[first];
    while (
      end < thresholds.length &&
      cells + ctx.offsets[end + 1] - ctx.offsets[end] <= SCORING_BATCH_CELLS
    ) {
      cells += ctx.offsets[end + 1] - ctx.offsets[end];
      end++;
    }
    const answers = ctx.session.answersOf(thresholds.slice(first, end));
    for (let ti = first; ti < end; ti++) {
      const scores = thresholdScores(ctx, ti, answers[ti - first]);
      unselectedRuns(scores.length, selected.localsOf(ti), (s, e) => visit(scores, s, e, ctx.offsets[ti]));
    }
    first = end;
  }
}

/** K not-yet-selected queries by one-shot Gumbel top-K (OSAS) or iterative peeling (AS). */
export async function selectQueries(
  ctx: ScoringContext,
  selected: SelectedQueries,
  K: number,
  scale: number,
  method: 'oneshot' | 'iterative',
  noise: NoiseSource,
): Promise<QueryRef[]> {
  if (method === 'oneshot') {
    const top = new NoisyTopK(K, scale, noise);
    // Each offered score draws its Gumbel noise: the top-K bookkeeping is timed with it.
    await scanUnselected(ctx, selected, (scores, s, e, base) =>
      ctx.control.timers.time('noise', () => top.offer(scores.subarray(s, e), base + s)),
    );
    return top.result().map((g) => locate(ctx.offsets, g));
  }
  const candidates = ctx.offsets[ctx.workload.thresholds.length] - selected.count;
  if (candidates > ITERATIVE_MAX_CANDIDATES) {
    throw new InputError(
      `iterative selection keeps every score in memory and allows at most ${ITERATIVE_MAX_CANDIDATES} queries; ` +
        `this workload has ${candidates}. Use one-shot selection (the default).`,
      { field: 'selection' },
    );
  }
  const scores = new Float64Array(candidates);
  const ids = new Float64Array(candidates);
  let at = 0;
  await scanUnselected(ctx, selected, (s, start, end, base) => {
    for (let y = start; y < end; y++) {
      scores[at] = s[y];
      ids[at++] = base + y;
    }
  });
  const picks = ctx.control.timers.time('noise', () => iterativeTopK(scores, K, scale, noise));
  return picks.map((p) => locate(ctx.offsets, ids[p]));
}
