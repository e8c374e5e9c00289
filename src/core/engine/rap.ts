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
import { isCounted } from '../data/counted.ts';
import { type CodeArray, domainSizes, type EncodedDataset } from '../data/schema.ts';
import { gumbelScale, roundBudget } from '../privacy/mechanisms.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { totalQueryCount } from '../workload/queries.ts';
import type { Workload } from '../workload/types.ts';
import { type GmTablesBaseline, gmTablesBaseline } from './baselines/gm-tables.ts';
import { type PassOutcome, relativeErrorPass } from './certify.ts';
import { ExactAnswers } from './exact-answers.ts';
import { loadKernels } from './kernels/backend.ts';
import type { KernelSession, TableTarget } from './kernels/session.ts';
import { measure, measurementSigma, noiseScale, planRows } from './measure.ts';
import {
  evaluateWorkload,
  PROFILE_ZETAS,
  reusingAnswers,
  sharedThresholds,
  type WorkloadEvaluation,
} from './metrics.ts';
import { plannedRounds, planRun, type QueryPlan } from './plan.ts';
import { project } from './projection.ts';
import { type ScoringContext, selectQueries } from './query-mode/select-queries.ts';
import { SelectedQueries } from './query-mode/selected-queries.ts';
import { type RelaxedShape, uniformRelaxed } from './relaxed.ts';
import { assertTablesFor } from './required-tables.ts';
import { roundRelaxed } from './rounding.ts';
import { PhaseTimer, RunControl } from './run-control.ts';
import { directLearningRate, roundingFloorLoss } from './table-mode/direct-fit.ts';
import { measuredFit, type StartedTablePlan, startTablePlan, TableRounds } from './table-mode/rounds.ts';
import { TABLE_CELL_LIMIT } from './table-mode/units.ts';

/** The direct plan's one projection may take this many times maxSteps (it starts from one-ways). */
const DIRECT_STEPS = 4;

import { type EngineTimings, timedSession } from './timings.ts';
import type { RapInput, RapReport, RapResult, TableModeTrace } from './types.ts';
import { errorTable, GM_SIMULATION, gmBaseline } from './workload-errors.ts';

export async function runRap(input: RapInput): Promise<RapResult> {
  const control = new RunControl(input.signal, input.onProgress);
  control.throwIfAborted();
  const publicPlan = planRun(input);
  // Exact tables instead of rows: every table the run reads must be there (required-tables.ts).
  if (isCounted(input.data)) assertTablesFor(input.data, input);
  const kernels = await loadKernels(input.options.backend, {
    ...(input.options.threads !== undefined ? { threads: input.options.threads } : {}),
    ...(input.options.relaxation !== undefined ? { relaxation: input.options.relaxation } : {}),
  });
  // At the person level answers are counts / n̂ (the public noisy row count), measure.ts.
  const exact = new ExactAnswers(input.data, undefined, input.options.unit?.normaliser);
  const plan: StartedPlan =
    publicPlan.kind === 'table'
      ? startTablePlan(
          publicPlan,
          { ...input, rows: input.options.rows, ...(input.options.unit ? { unit: input.options.unit } : {}) },
          exact,
          input.noise,
        )
      : publicPlan;
  const shape: RelaxedShape = { rows: input.options.rows, layout: plan.layout };
  // Table mode starts from its one-way measurement; query mode from uniform noise.
  const initial = plan.kind === 'table' ? plan.start.initial : uniformRelaxed(shape, input.noise);
  const session = timedSession(kernels.open(shape, initial, input.options.relaxation), control.timers);
  try {
    session.project();
    const run = new RapRun(input, plan, session, control, exact);
    await run.fit();
    const result = await run.finish(shape);
    // What ran and why (threads, why not the GPU): one line for the report and the Run screen.
    return kernels.note ? { ...result, report: { ...result.report, backendNote: kernels.note } } : result;
  } finally {
    session.dispose();
  }
}

type StartedPlan = QueryPlan | StartedTablePlan;

class RapRun {
  private tableTrace: TableModeTrace | undefined;
  private fitQuality: RapReport['fit'];
  private readonly selection = new PhaseTimer();
  private readonly projection = new PhaseTimer();
  private steps = 0;
  /** The last projection's targets: the relative-error pass projects on them plus its fixes. */
  private lastProblem: Parameters<typeof project>[1] = { groups: [], tables: [] };

  constructor(
    private readonly input: RapInput,
    private readonly plan: StartedPlan,
    private readonly session: KernelSession,
    private readonly control: RunControl,
    private readonly exact: ExactAnswers,
  ) {}

  private get noise(): NoiseSource {
    return this.input.noise;
  }

  async fit(): Promise<void> {
    const plan = this.plan;
    if (plan.kind === 'table') await this.fitTables(plan);
    else if (plan.kind === 'adaptive') await this.fitAdaptive(plan);
    else await this.fitNonAdaptive(plan);
  }

  /** Query mode: T rounds of select K → measure K → project on all measured so far. */
  private async fitAdaptive(plan: QueryPlan): Promise<void> {
    const { rho, rounds: T, perRound: K, layout, weights, offsets } = plan;
    const { exact, session, control } = this;
    const ctx: ScoringContext = { workload: this.input.workload, weights, offsets, exact, session, control };
    const { n, bound } = noiseScale(this.input.data, this.input.options.unit);
    const budget = roundBudget(rho, T);
    // A score w·|exact − synthetic| moves by at most bound/n (w ≤ 1): gumbelScale's maxWeight.
    const scale = gumbelScale(budget.select, K, n, bound);
    const sigma = measurementSigma(budget.measure, { queries: K }, n, bound);
    const selected = new SelectedQueries(this.input.workload, layout, weights);
    for (let round = 1; round <= T; round++) {
      this.selection.start();
      const picks = await selectQueries(ctx, selected, K, scale, this.input.options.selection, this.noise);
      const truth = Float64Array.from(picks, (q) =>
        this.exact.query(this.input.workload.thresholds[q.threshold], q.local),
      );
      const measured = this.control.timers.time('noise', () => measure(truth, sigma, this.noise));
      picks.forEach((q, i) => {
        selected.add(q.threshold, q.local, clip01(measured[i]));
      });
      this.selection.stop();
      await this.projectRound(round, { groups: selected.groups(), tables: [] }, sigma);
    }
  }

  /** Query mode with T = 1, K = m: every query measured at the full ρ, one projection. */
  private async fitNonAdaptive(plan: QueryPlan): Promise<void> {
    const { rho, numQueries: m } = plan;
    const { n, bound } = noiseScale(this.input.data, this.input.options.unit);
    const sigma = measurementSigma(rho, { queries: m }, n, bound);
    this.selection.start();
    const tables: TableTarget[] = [];
    for (const [ti, t] of this.input.workload.thresholds.entries()) {
      await this.control.checkpoint();
      tables.push({
        threshold: t,
        weight: plan.weights[ti],
        measured: clipAll(measure(this.exact.of(t), sigma, this.noise)),
      });
    }
    this.selection.stop();
    // No noise-floor stop for whole tables: most cells are ~0, where clipping the measurement to
    // [0, 1] leaves a residual well under σ², so the floor would stop before any fitting.
    await this.projectRound(1, { groups: [], tables }, 0);
  }

  /**
   * Table mode (table-mode/): every table measured directly, or AIM-style adaptive rounds (the
   * mixed plan's rounds start with every workload table measured, table-mode/rounds.ts).
   */
  private async fitTables(plan: StartedTablePlan): Promise<void> {
    const { exact, session, noise, control } = this;
    const { workload } = this.input;
    const base = { roundBound: plan.roundBound, cellLimit: TABLE_CELL_LIMIT };
    if (plan.strategy === 'direct') {
      const { start } = plan;
      const selectedThresholds = workload.thresholds.map((_, ti) => ti);
      const round = { selectedThresholds, rounds: 1, sigma: start.sigma };
      // One fit to every table, until its residual is well under what rounding adds (direct-fit.ts).
      const tables = start.measured.map((m) => m.target);
      const { rows, oversample, learningRate, relaxation } = this.input.options;
      const fit = {
        stepsFactor: DIRECT_STEPS,
        // The boost was measured with sparsemax only (softmax moves logits at its own scale).
        learningRate:
          relaxation === 'softmax'
            ? learningRate
            : directLearningRate(learningRate, start.sigma, rows, oversample),
        doneLoss: roundingFloorLoss(tables, rows, oversample),
      };
      await this.projectRound(1, { groups: [], tables }, 0, round, fit);
      const { rho, sigma, cells, oneWay } = start;
      const direct = { rho, sigma, tables: start.tables, cells, oneWay };
      this.tableTrace = { strategy: 'direct', ...base, rhoSpent: rho + oneWay.rho, direct };
      const raw = start.measured.map((m) => ({ target: { ...m.target, measured: m.raw }, sigma: m.sigma }));
      this.fitQuality = measuredFit(session, raw, plan.layout.sizes);
      return;
    }
    const mode = new TableRounds({
      plan,
      workload,
      exact,
      session,
      noise,
      control,
      selectionTimer: this.selection,
    });
    await mode.run(async (problem, r) => {
      await this.projectRound(r.round, problem, 0, {
        selectedThresholds: r.thresholds,
        rounds: r.roundsEstimate,
        sigma: r.sigma,
      });
    });
    this.tableTrace = mode.trace();
    this.fitQuality = mode.fit();
  }

  private async projectRound(
    round: number,
    problem: Parameters<typeof project>[1],
    /** Measurement noise σ where fitting should stop (0: none). */
    noiseFloor: number,
    table?: { selectedThresholds: readonly number[]; rounds: number; sigma: number },
    /** The direct plan's fit: step budget as a multiple of maxSteps, Adam's rate, loss where done. */
    fit?: { stepsFactor: number; learningRate: number; doneLoss: number },
  ): Promise<void> {
    const T = table?.rounds ?? plannedRounds(this.plan);
    this.lastProblem = problem;
    this.projection.start();
    const event = (step: number, loss: number, maxSelectedError: number) => {
      const done = (round - 1 + Math.min(1, step / this.input.options.maxSteps)) / T;
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
      {
        ...this.input.options,
        noiseFloor,
        ...(fit
          ? {
              maxSteps: this.input.options.maxSteps * fit.stepsFactor,
              learningRate: fit.learningRate,
              doneLoss: fit.doneLoss,
            }
          : {}),
      },
      this.noise,
      this.control,
      (s) => this.control.progress(event(s.step, s.loss, s.maxError)),
    );
    this.steps += outcome.steps;
    this.projection.stop();
    this.control.progress(event(outcome.steps, outcome.loss, outcome.maxError), true);
  }

  /** The relative-error pass (certify.ts) on the rounded data, projecting D' again on its fixes. */
  private async certifyPass(shape: RelaxedShape, first: CodeArray[]): Promise<PassOutcome> {
    const plan = this.plan;
    const certify = plan.certify;
    if (!certify) throw new Error('internal: no relative-error pass planned');
    const { oversample } = this.input.options;
    let round = plannedRounds(plan);
    return relativeErrorPass(
      {
        plan: certify,
        data: this.input.data,
        workload: this.input.workload,
        layout: plan.layout,
        offsets: plan.offsets,
        exact: this.exact,
        noise: this.noise,
        control: this.control,
        round: () => roundRelaxed(this.session.read(), shape, oversample, this.noise),
        syntheticRows: shape.rows * oversample,
        reproject: async (extra) => {
          // Fixes accumulate: a later projection keeps the earlier fixes among its targets.
          const last = this.lastProblem;
          await this.projectRound(++round, { groups: [...last.groups, ...extra], tables: last.tables }, 0);
        },
        profile: PROFILE_ZETAS.map((zeta) => ({ zeta, alpha: 1 / shape.rows })),
      },
      first,
    );
  }

  /**
   * Rounding, metrics and the report. Each threshold's relaxed answers come from the session's
   * tables (the bucketed product-table kernel), the rounded data's from one counting pass over
   * its rows, the exact ones from the cached counts; a threshold the evaluation workload shares
   * with the workload is answered once for both.
   */
  async finish(shape: RelaxedShape): Promise<RapResult> {
    const evaluationStarted = performance.now();
    // The fit's counters, before the evaluation adds its own table work to them.
    const timers = this.control.timers;
    const fitTimings: Omit<EngineTimings, 'evaluation'> = {
      sparsemax: timers.seconds('sparsemax'),
      lossGradient: timers.seconds('lossGradient'),
      relaxedAnswers: timers.seconds('relaxedAnswers'),
      exactAnswers: this.exact.seconds,
      noise: timers.seconds('noise'),
    };
    const { data, workload, options: o } = this.input;
    const evalWorkloads = evaluationWorkloads(this.input);
    let codes = roundRelaxed(this.session.read(), shape, o.oversample, this.noise);
    const pass = this.plan.certify ? await this.certifyPass(shape, codes) : undefined;
    if (pass) codes = pass.codes;
    const relaxed = this.session.read();
    const synthetic: EncodedDataset = { schema: data.schema, n: shape.rows * o.oversample, codes };
    const shared = sharedThresholds(workload, { thresholds: evalWorkloads.flatMap((w) => w.thresholds) });
    const sources = [
      reusingAnswers(shared, (t) => this.session.thresholdAnswers(t)),
      reusingAnswers(shared, (t) => exactThresholdAnswers(synthetic, t)),
    ];
    // The curator's error metrics compare with the bounded data's own fractions (private
    // diagnostics), not with the counts over n̂ that the measurements saw.
    const truth = this.input.options.unit ? new ExactAnswers(data) : this.exact;
    const evaluate = (w: Workload) =>
      evaluateWorkload(w, (t) => truth.of(t), sources, 1 / shape.rows, this.control);
    const present = await evaluate(workload);
    const [relaxedErrors, rounded] = present.bySource;
    const futures: WorkloadEvaluation[] = [];
    for (const w of evalWorkloads) futures.push(await evaluate(w));
    const future = futures[0];
    const { rho, numQueries: m } = this.plan;
    const sizes = domainSizes(data.schema);
    // The GM baseline on the workload's tables (issue 19), computed once and reused by the
    // present error table's GM column.
    // At the person level the GM baseline's noise is k times larger over n̂: n̂/k rows' worth.
    const gmRows = planRows(data, this.input.options.unit);
    const gm = gmTablesBaseline({ rho, n: gmRows, sizes, workload }, GM_SIMULATION);
    const table = (w: Workload, e: WorkloadEvaluation, whole?: GmTablesBaseline) =>
      errorTable(e, gmBaseline(w, sizes, rho, gmRows, whole), Number(totalQueryCount(w, sizes)));
    const errorTables = {
      present: table(workload, present, gm),
      future: futures.map((e, i) => table(evalWorkloads[i], e)),
    };
    const report: RapReport = {
      mode: o.mode,
      presentError: relaxedErrors.max,
      roundedPresentError: rounded.max,
      meanError: relaxedErrors.mean,
      roundedMeanError: rounded.mean,
      all0Error: present.maxExact,
      gmError: gm.expectedMaxError.mean,
      gmBaseline: gm,
      numQueries: m,
      rho: this.plan.totalRho,
      epsilon: o.epsilon,
      delta: o.delta,
      rounds: plannedRounds(this.plan),
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
      ...(pass ? certifyReport(pass, shape.rows) : {}),
      ...(future ? { futureError: future.bySource[0].max, roundedFutureError: future.bySource[1].max } : {}),
      errorTables,
      relaxation: o.relaxation ?? 'sparsemax',
      adaptive: this.plan.kind !== 'non-adaptive',
      selection: o.selection,
      projectionSteps: this.steps,
      msPerStep: this.steps > 0 ? (1000 * this.projection.seconds()) / this.steps : 0,
      relaxedDensity: density(relaxed),
      timings: { ...fitTimings, evaluation: (performance.now() - evaluationStarted) / 1000 },
      ...(this.tableTrace
        ? { tableMode: this.tableTrace, rounds: roundsOf(this.tableTrace), fit: this.fitQuality }
        : {}),
    };
    return { report, synthetic: { n: synthetic.n, codes } };
  }
}

/** The report's certificate and the curator-only shares before and after the pass. */
function certifyReport(pass: PassOutcome, rows: number): Partial<RapReport> {
  const k = PROFILE_ZETAS.length;
  return {
    certificate: pass.certificate,
    relativeErrorBefore: PROFILE_ZETAS.map((zeta, z) => ({
      zeta,
      alpha: 1 / rows,
      share: pass.sharesBefore[z],
    })),
    relativeErrorAtCertificate: { before: pass.sharesBefore[k], after: pass.sharesAfter[k] },
  };
}

/** The evaluation workloads of a run: `evalWorkload` first, then `evalWorkloads`. */
function evaluationWorkloads(input: RapInput): Workload[] {
  return [...(input.evalWorkload ? [input.evalWorkload] : []), ...(input.evalWorkloads ?? [])];
}

function roundsOf(trace: TableModeTrace): number {
  return trace.strategy === 'direct' ? 1 : (trace.measurements.at(-1)?.round ?? 0);
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
