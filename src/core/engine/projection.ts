/**
 * The relaxed projection of one round: minimize Σ w_i (q̂_i(D') − ã_i)² over the measured
 * queries with Adam, projecting every block onto the simplex after each step, warm-started from
 * the previous round's D'.
 *
 * Mini-batches: when more than batchSize queries are measured, each step fits a uniform sample
 * of batchSize of them (whole tables are sampled as units, in proportion), with the loss scaled
 * up to estimate the full loss.
 *
 * Early stopping, whichever comes first:
 * - the fit reaches the measurement noise: Σ w (q̂ − ã)² ≤ σ² Σ w, the residual the true answers
 *   themselves would have (ã = truth + N(0, σ²)); fitting further only fits noise and moves D'
 *   away from what the unmeasured queries need;
 * - every WINDOW steps the mean loss of the window is compared with the previous window's; a
 *   relative improvement under `tolerance` ends the round;
 * - maxSteps.
 */
import type { NoiseSource } from '../privacy/noise.ts';
import { adamHyper } from './kernels/adam.ts';
import type { KernelSession, LossResult, ProjectionBatch, QueryGroup, TableTarget } from './kernels/types.ts';
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
  const floorLoss = settings.noiseFloor ** 2 * totalWeight(problem);
  let windowSum = 0;
  let previousWindow = Number.POSITIVE_INFINITY;
  let last: LossResult = { loss: 0, maxError: 0 };
  let step = 0;
  while (step < settings.maxSteps) {
    await control.checkpoint();
    const { batch, scale } = sampler.next();
    last = session.lossAndGradient(batch, scale);
    last = { loss: last.loss * scale, maxError: last.maxError };
    session.adamStep(hyper);
    session.project();
    step++;
    onStep({ step, ...last });
    if (last.loss <= floorLoss) break;
    windowSum += last.loss;
    if (step % EARLY_STOP_WINDOW === 0) {
      const current = windowSum / EARLY_STOP_WINDOW;
      windowSum = 0;
      if (current === 0 || (previousWindow - current) / previousWindow < settings.tolerance) break;
      previousWindow = current;
    }
  }
  return { steps: step, ...last };
}

/** Σ w over every measured answer of the problem. */
function totalWeight(problem: ProjectionBatch): number {
  let total = 0;
  for (const g of problem.groups) for (let q = 0; q < g.count; q++) total += g.weights[q];
  for (const t of problem.tables) total += t.weight * t.measured.length;
  return total;
}

/** Uniform mini-batches of queries (and of whole tables) drawn from the run's noise source. */
class BatchSampler {
  private readonly queryTotal: number;
  private readonly tableCells: number;
  private readonly order: Int32Array;
  private readonly tableOrder: Int32Array;
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
    this.tableCells = problem.tables.reduce((s, t) => s + t.measured.length, 0);
    this.order = Int32Array.from({ length: total }, (_, i) => i);
    this.tableOrder = Int32Array.from({ length: problem.tables.length }, (_, i) => i);
  }

  next(): { batch: ProjectionBatch; scale: number } {
    const total = this.queryTotal + this.tableCells;
    if (total <= this.batchSize) return { batch: this.problem, scale: 1 };
    const fraction = this.batchSize / total;
    const tables = this.sampleTables(
      Math.max(this.problem.tables.length > 0 ? 1 : 0, Math.round(fraction * this.problem.tables.length)),
    );
    const groups = this.sampleQueries(Math.round(fraction * this.queryTotal));
    // Both parts are scaled by the same factor; with rounding the estimate is close enough for Adam.
    return { batch: { groups, tables }, scale: 1 / fraction };
  }

  private sampleTables(count: number): TableTarget[] {
    const picked = partialShuffle(this.tableOrder, count, this.noise);
    return Array.from(picked, (i) => this.problem.tables[i]);
  }

  private sampleQueries(count: number): QueryGroup[] {
    if (count === 0) return [];
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
