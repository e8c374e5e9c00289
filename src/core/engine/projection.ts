/**
 * The relaxed projection of one round: minimize Σ w_i (q̂_i(D') − ã_i)² over the measured
 * queries with Adam, projecting every block onto the simplex after each step, warm-started from
 * the previous round's D'.
 *
 * Mini-batches: when more than batchSize queries are measured, each step fits a uniform sample
 * of batchSize of them, with their loss scaled up to estimate the full loss. Whole tables are
 * always fitted in full: their cost is set by n' and the block sizes, not by their cell count,
 * and sampling a few tables makes the loss too noisy for early stopping.
 *
 * Early stopping, whichever comes first:
 * - the fit reaches the measurement noise: Σ w (q̂ − ã)² ≤ σ² Σ w, the residual the true answers
 *   themselves would have (ã = truth + N(0, σ²)); fitting further only fits noise and moves D'
 *   away from what the unmeasured queries need;
 * - the fit reaches a stated loss (`doneLoss`: the direct plan's rounding floor, direct-fit.ts);
 * - every WINDOW steps the mean loss of the window is compared with the previous window's; a
 *   relative improvement under `tolerance` ends the round;
 * - maxSteps.
 * A tolerance of 0 turns early stopping off (every rule): the round runs its step budget.
 */
import type { NoiseSource } from '../privacy/noise.ts';
import { adamHyper } from './kernels/adam.ts';
import type { KernelSession, LossResult, ProjectionBatch, QueryGroup } from './kernels/session.ts';
import type { RunControl } from './run-control.ts';

export const EARLY_STOP_WINDOW = 10;

export interface ProjectionSettings {
  readonly learningRate: number;
  readonly maxSteps: number;
  readonly tolerance: number;
  readonly batchSize: number;
  /** Relaxed rows n' (sets Adam's ε). */
  readonly rows: number;
  /** Noise standard deviation of the measured answers (0: fit as closely as the steps allow). */
  readonly noiseFloor: number;
  /**
   * A loss at which the fit is done whatever the noise (the direct plan's rounding floor,
   * table-mode/direct-fit.ts); absent or 0: none.
   */
  readonly doneLoss?: number;
}

export interface ProjectionOutcome {
  readonly steps: number;
  readonly loss: number;
  readonly maxError: number;
}

export interface StepReport {
  readonly step: number;
  readonly loss: number;
  readonly maxError: number;
}

export async function project(
  session: KernelSession,
  problem: ProjectionBatch,
  settings: ProjectionSettings,
  noise: NoiseSource,
  control: RunControl,
  onStep: (s: StepReport) => void,
): Promise<ProjectionOutcome> {
  session.resetOptimizer();
  const hyper = adamHyper(settings.learningRate, settings.rows);
  const sampler = new BatchSampler(problem, settings.batchSize, noise);
  const floorLoss = Math.max(settings.noiseFloor ** 2 * totalWeight(problem), settings.doneLoss ?? 0);
  let windowSum = 0;
  let previousWindow = Number.POSITIVE_INFINITY;
  let last: LossResult = { loss: 0, maxError: 0 };
  let step = 0;
  while (step < settings.maxSteps) {
    await control.checkpoint();
    const { batch, queryScale } = sampler.next();
    last = lossAndGradient(session, batch, queryScale);
    // Already as close as the noise allows: no step (a round may end without moving D').
    if (settings.tolerance > 0 && last.loss <= floorLoss) break;
    session.adamStep(hyper);
    session.project();
    step++;
    onStep({ step, ...last });
    windowSum += last.loss;
    if (step % EARLY_STOP_WINDOW === 0) {
      const current = windowSum / EARLY_STOP_WINDOW;
      windowSum = 0;
      const improvement = current === 0 ? 0 : (previousWindow - current) / previousWindow;
      if (settings.tolerance > 0 && improvement < settings.tolerance) break;
      previousWindow = current;
    }
  }
  return { steps: step, ...last };
}

/**
 * Loss and gradient of a batch, the sampled queries' part scaled by queryScale (so both the
 * loss and the gradient estimate the full problem's).
 */
function lossAndGradient(session: KernelSession, batch: ProjectionBatch, queryScale: number): LossResult {
  if (queryScale === 1) return session.lossAndGradient(batch);
  const queries = session.lossAndGradient({ groups: batch.groups, tables: [] }, queryScale);
  const tables =
    batch.tables.length > 0 ? session.lossAndGradient({ groups: [], tables: batch.tables }) : undefined;
  return {
    loss: queries.loss * queryScale + (tables?.loss ?? 0),
    maxError: Math.max(queries.maxError, tables?.maxError ?? 0),
  };
}

/** Σ w over every measured answer of the problem. */
function totalWeight(problem: ProjectionBatch): number {
  let total = 0;
  for (const g of problem.groups) for (let q = 0; q < g.count; q++) total += g.weights[q];
  for (const t of problem.tables) total += t.weight * t.measured.length;
  return total;
}

/** Uniform mini-batches of the measured queries, drawn from the run's noise source. */
class BatchSampler {
  private readonly queryTotal: number;
  private readonly order: Int32Array;
  private readonly starts: number[];

  constructor(
    private readonly problem: ProjectionBatch,
    private readonly batchSize: number,
    private readonly noise: NoiseSource,
  ) {
    this.starts = [];
    let total = 0;
    for (const g of problem.groups) {
      this.starts.push(total);
      total += g.count;
    }
    this.queryTotal = total;
    this.order = Int32Array.from({ length: total }, (_, i) => i);
  }

  /** The batch and the factor that scales its query loss to the full query loss. */
  next(): { batch: ProjectionBatch; queryScale: number } {
    if (this.queryTotal <= this.batchSize) return { batch: this.problem, queryScale: 1 };
    const groups = this.sampleQueries(this.batchSize);
    return { batch: { groups, tables: this.problem.tables }, queryScale: this.queryTotal / this.batchSize };
  }

  private sampleQueries(count: number): QueryGroup[] {
    const picked = Int32Array.from(partialShuffle(this.order, count, this.noise)).sort();
    const out: QueryGroup[] = [];
    let p = 0;
    this.problem.groups.forEach((g, gi) => {
      const end = this.starts[gi] + g.count;
      const members: number[] = [];
      while (p < picked.length && picked[p] < end) members.push(picked[p++] - this.starts[gi]);
      if (members.length > 0) out.push(subGroup(g, members));
    });
    return out;
  }
}

/** The first `count` entries of `order` after a partial Fisher–Yates shuffle (in place). */
function partialShuffle(order: Int32Array, count: number, noise: NoiseSource): Int32Array {
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(noise.uniform() * (order.length - i));
    const tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  return order.subarray(0, count);
}

function subGroup(g: QueryGroup, members: readonly number[]): QueryGroup {
  const columns = new Int32Array(members.length * g.k);
  const weights = new Float64Array(members.length);
  const targets = new Float64Array(members.length);
  members.forEach((q, i) => {
    columns.set(g.columns.subarray(q * g.k, (q + 1) * g.k), i * g.k);
    weights[i] = g.weights[q];
    targets[i] = g.targets[q];
  });
  return { k: g.k, r: g.r, count: members.length, columns, weights, targets };
}
