/**
 * The Relaxed Adaptive Projection mechanism (Aydore et al. 2021) for r-of-k threshold
 * workloads (Avent & Korolova), query mode and table mode.
 *
 * Privacy: ρ = ρ(ε, δ) (zCDP); adaptive runs split it evenly over T rounds and each round's
 * share in half between selection (Gumbel top-K) and measurement (Gaussian mechanism). All
 * randomness (initialization, selection, measurement, mini-batches, rounding) comes from
 * input.noise, so a seeded run is reproducible; the exact answers only enter the selection
 * scores and the measured values, never anything else that leaves this function except the
 * curator-only error report.
 */
import { domainSizes, type EncodedDataset } from '../data/schema.ts';
import { gaussianMechanism, gaussianSigma, gumbelScale, roundBudget } from '../privacy/mechanisms.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { totalQueryCount } from '../workload/queries.ts';
import type { Threshold, Workload } from '../workload/types.ts';
import { ExactAnswers } from './exact-answers.ts';
import { gaussianBaselineError } from './gaussian-baseline.ts';
import { loadKernels } from './kernels/backend.ts';
import type { KernelSession, TableTarget } from './kernels/types.ts';
import {
  evaluateWorkload,
  PROFILE_ZETAS,
  reusingAnswers,
  sharedThresholds,
  type WorkloadEvaluation,
} from './metrics.ts';
import { planRun, type RunPlan } from './plan.ts';
import { type ProjectionSettings, project } from './projection.ts';
import { type RelaxedShape, uniformRelaxed } from './relaxed.ts';
import { roundRelaxed } from './rounding.ts';
import { PhaseTimer, RunControl } from './run-control.ts';
import { SelectedQueries } from './selected-queries.ts';
import { type ScoringContext, selectQueries } from './selection.ts';
import { TableBudget } from './table-budget.ts';
import { measureOneWays, type OneWayStart, TableMode, type TableModeTrace } from './table-mode.ts';
import { type EngineTimings, TimedSession } from './timings.ts';
import type { RapInput, RapReport, RapResult } from './types.ts';
import { errorTable, gmBaseline } from './workload-errors.ts';

export async function runRap(input: RapInput): Promise<RapResult> {
  const control = new RunControl(input.signal, input.onProgress);
  control.throwIfAborted();
  const plan = planRun(input);
  const kernels = await loadKernels(input.options.backend);
  const shape: RelaxedShape = { rows: input.options.rows, layout: plan.layout };
  const exact = new ExactAnswers(input.data);
  // Table mode starts from its one-way measurement; query mode from uniform noise.
  const table = plan.kind === 'table' ? tableStart(input, plan, exact) : undefined;
  const session = new TimedSession(
    kernels.open(shape, table?.start.initial ?? uniformRelaxed(shape, input.noise), input.options.relaxation),
    control.timers,
  );
  try {
    session.project();
    const run = new RapRun(input, plan, session, control, exact, table);
    await run.fit();
    return await run.finish(shape);
  } finally {
    session.dispose();
  }
}

interface TableStart {
  readonly budget: TableBudget;
  readonly start: OneWayStart;
}

function tableStart(input: RapInput, plan: RunPlan, exact: ExactAnswers): TableStart {
  // T₀ bounds the rounds; each measures perRound tables, so T₀·K bounds the measurements.
  const budget = new TableBudget(plan.rho, input.data.n, plan.rounds * plan.perRound);
  return { budget, start: measureOneWays(input.data, exact, input.options.rows, budget, input.noise) };
}

class RapRun {
  private tableTrace: TableModeTrace | undefined;
  private readonly selection = new PhaseTimer();
  private readonly projection = new PhaseTimer();
  private readonly settings: Omit<ProjectionSettings, 'noiseFloor'>;
  private readonly ctx: ScoringContext;
  private steps = 0;

  constructor(
    private readonly input: RapInput,
    private readonly plan: RunPlan,
    private readonly session: KernelSession,
    private readonly control: RunControl,
    private readonly exact: ExactAnswers,
    private readonly table?: TableStart,
  ) {
    this.settings = input.options;
    this.ctx = {
      workload: input.workload,
      weights: plan.weights,
      offsets: plan.offsets,
      exact: this.exact,
      session,
      control,
    };
  }

  private get noise(): NoiseSource {
    return this.input.noise;
  }

  async fit(): Promise<void> {
    if (this.plan.kind === 'adaptive') await this.fitAdaptive();
    else if (this.plan.kind === 'non-adaptive') await this.fitNonAdaptive();
    else await this.fitTables();
  }

  /** Query mode: T rounds of select K → measure K → project on all measured so far. */
  private async fitAdaptive(): Promise<void> {
    const { rho, rounds: T, perRound: K, layout, weights } = this.plan;
    const n = this.input.data.n;
    const budget = roundBudget(rho, T);
    const scale = gumbelScale(budget.select, K, n, 1);
    const sigma = gaussianSigma(budget.measure, K, n);
    const selected = new SelectedQueries(this.input.workload, layout, weights);
    for (let round = 1; round <= T; round++) {
      this.selection.start();
      const picks = await selectQueries(
        this.ctx,
        selected,
        K,
        scale,
        this.input.options.selection,
        this.noise,
      );
      const truth = Float64Array.from(picks, (q) => this.exact.query(this.threshold(q.threshold), q.local));
      const measured = this.control.timers.time('noise', () => gaussianMechanism(truth, sigma, this.noise));
      picks.forEach((q, i) => {
        selected.add(q.threshold, q.local, clip01(measured[i]));
      });
      this.selection.stop();
      await this.projectRound(round, { groups: selected.groups(), tables: [] }, sigma);
    }
  }

  /** Query mode with T = 1, K = m: every query measured at the full ρ, one projection. */
  private async fitNonAdaptive(): Promise<void> {
    const { rho, numQueries: m } = this.plan;
    const sigma = gaussianSigma(rho, m, this.input.data.n);
    this.selection.start();
    const tables: TableTarget[] = [];
    for (const [ti, t] of this.input.workload.thresholds.entries()) {
      await this.control.checkpoint();
      tables.push({
        threshold: t,
        weight: this.plan.weights[ti],
        measured: clipAll(gaussianMechanism(this.exact.of(t), sigma, this.noise)),
      });
    }
    this.selection.stop();
    // No noise-floor stop for whole tables: most cells are ~0, where clipping the measurement to
    // [0, 1] leaves a residual well under σ², so the floor would stop before any fitting.
    await this.projectRound(1, { groups: [], tables }, 0);
  }

  /** Table mode (table-mode.ts): one-way start, then AIM-style rounds of whole tables. */
  private async fitTables(): Promise<void> {
    const table = this.table;
    if (!table) throw new Error('table mode needs its one-way start');
    const mode = new TableMode(
      this.input.workload,
      this.plan.weights,
      this.plan.layout,
      this.exact,
      this.session,
      table.budget,
      table.start,
      this.plan.rounds,
      this.plan.perRound,
      this.noise,
      this.control,
      this.selection,
    );
    await mode.run(async (problem, r) => {
      await this.projectRound(r.round, problem, 0, {
        selectedThresholds: r.thresholds,
        rounds: r.roundsEstimate,
        sigma: r.sigma,
      });
    });
    this.tableTrace = mode.trace();
  }

  private threshold(ti: number): Threshold {
    return this.input.workload.thresholds[ti];
  }

  private async projectRound(
    round: number,
    problem: Parameters<typeof project>[1],
    /** Measurement noise σ where fitting should stop (0: none). */
    noiseFloor: number,
    table?: { selectedThresholds: readonly number[]; rounds: number; sigma: number },
  ): Promise<void> {
    const T = table?.rounds ?? this.plan.rounds;
    this.projection.start();
    const event = (step: number, loss: number, maxSelectedError: number) => {
      const done = (round - 1 + Math.min(1, step / this.settings.maxSteps)) / T;
      const elapsed = this.control.elapsedSeconds();
      return {
        round,
        rounds: T,
        step,
        loss,
        maxSelectedError,
        etaSeconds: done > 0 ? (elapsed / done) * (1 - done) : 0,
        ...(table ? { selectedThresholds: table.selectedThresholds, sigma: table.sigma } : {}),
      };
    };
    const outcome = await project(
      this.session,
      problem,
      { ...this.settings, noiseFloor },
      this.noise,
      this.control,
      (s) => this.control.progress(event(s.step, s.loss, s.maxError)),
    );
    this.steps += outcome.steps;
    this.projection.stop();
    this.control.progress(event(outcome.steps, outcome.loss, outcome.maxError), true);
  }

  /** The timing counters of the fit, before the evaluation adds its own table work to them. */
  private fitTimings(): Omit<EngineTimings, 'evaluation'> {
    const timers = this.control.timers;
    return {
      sparsemax: timers.seconds('sparsemax'),
      lossGradient: timers.seconds('lossGradient'),
      relaxedAnswers: timers.seconds('relaxedAnswers'),
      exactAnswers: this.exact.seconds,
      noise: timers.seconds('noise'),
    };
  }

  /**
   * Rounding, metrics and the report. Each threshold's relaxed answers come from the session's
   * tables (the bucketed product-table kernel), the rounded data's from one counting pass over
   * its rows, the exact ones from the cached counts; a threshold the evaluation workload shares
   * with the workload is answered once for both.
   */
  async finish(shape: RelaxedShape): Promise<RapResult> {
    const evaluationStarted = performance.now();
    const fitTimings = this.fitTimings();
    const { data, workload, options: o } = this.input;
    const evalWorkloads = evaluationWorkloads(this.input);
    const relaxed = this.session.read();
    const codes = roundRelaxed(relaxed, shape, o.oversample, this.noise);
    const synthetic: EncodedDataset = { schema: data.schema, n: shape.rows * o.oversample, codes };
    const shared = sharedThresholds(workload, { thresholds: evalWorkloads.flatMap((w) => w.thresholds) });
    const sources = [
      reusingAnswers(shared, (t) => this.session.thresholdAnswers(t)),
      reusingAnswers(shared, (t) => exactThresholdAnswers(synthetic, t)),
    ];
    const evaluate = (w: Workload) =>
      evaluateWorkload(w, (t) => this.exact.of(t), sources, 1 / shape.rows, this.control);
    const present = await evaluate(workload);
    const [relaxedErrors, rounded] = present.bySource;
    const futures: WorkloadEvaluation[] = [];
    for (const w of evalWorkloads) futures.push(await evaluate(w));
    const future = futures[0];
    const { rho, numQueries: m } = this.plan;
    const sizes = domainSizes(data.schema);
    const table = (w: Workload, e: WorkloadEvaluation) =>
      errorTable(e, gmBaseline(w, sizes, rho, data.n), Number(totalQueryCount(w, sizes)));
    const report: RapReport = {
      mode: o.mode,
      presentError: relaxedErrors.max,
      roundedPresentError: rounded.max,
      meanError: relaxedErrors.mean,
      roundedMeanError: rounded.mean,
      all0Error: present.maxExact,
      gmError: gaussianBaselineError(gaussianSigma(rho, m, data.n), m),
      numQueries: m,
      rho,
      epsilon: o.epsilon,
      delta: o.delta,
      rounds: this.plan.rounds,
      perRound: this.plan.perRound,
      rows: shape.rows,
      oversample: o.oversample,
      secondsTotal: this.control.elapsedSeconds(),
      secondsSelection: this.selection.seconds(),
      secondsProjection: this.projection.seconds(),
      backend: this.session.backend,
      seedMode: this.noise.mode,
      relativeErrorProfile: PROFILE_ZETAS.map((zeta, z) => ({
        zeta,
        alpha: 1 / shape.rows,
        share: rounded.withinShare[z],
      })),
      perThresholdError: rounded.perThreshold,
      ...(future ? { futureError: future.bySource[0].max, roundedFutureError: future.bySource[1].max } : {}),
      errorTables: {
        present: table(workload, present),
        future: futures.map((e, i) => table(evalWorkloads[i], e)),
      },
      relaxation: o.relaxation ?? 'sparsemax',
      adaptive: this.plan.kind !== 'non-adaptive',
      selection: o.selection,
      projectionSteps: this.steps,
      msPerStep: this.steps > 0 ? (1000 * this.projection.seconds()) / this.steps : 0,
      relaxedDensity: density(relaxed),
      timings: { ...fitTimings, evaluation: (performance.now() - evaluationStarted) / 1000 },
      ...(this.tableTrace
        ? { tableMode: this.tableTrace, rounds: this.tableTrace.rounds.at(-1)?.round ?? 0 }
        : {}),
    };
    return { report, synthetic: { n: synthetic.n, codes } };
  }
}

/** The evaluation workloads of a run: `evalWorkload` first, then `evalWorkloads`. */
function evaluationWorkloads(input: RapInput): Workload[] {
  return [...(input.evalWorkload ? [input.evalWorkload] : []), ...(input.evalWorkloads ?? [])];
}

/** Share of nonzero entries of D': the work of the all-query tables grows with it. */
function density(values: Float64Array): number {
  let nonzero = 0;
  for (let i = 0; i < values.length; i++) if (values[i] !== 0) nonzero++;
  return nonzero / values.length;
}

function clip01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

function clipAll(a: Float64Array): Float64Array {
  for (let i = 0; i < a.length; i++) a[i] = clip01(a[i]);
  return a;
}
