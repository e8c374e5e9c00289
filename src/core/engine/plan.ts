/**
 * Checks a run's input and fixes everything public about it before any private data is touched:
 * ρ, T, K, the mode, the noise scales. Bad options become InputErrors naming the field.
 */
import { layoutOf, type OneHotLayout } from '../data/onehot.ts';
import { InputError } from '../errors.ts';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { normalizeWeights } from '../privacy/mechanisms.ts';
import { queryCount } from '../workload/queries.ts';
import type { Workload } from '../workload/types.ts';
import { type CertifyPlan, certifyPlan } from './certify.ts';
import { defaultRoundsAndK, defaultTablePlan, defaultTableStrategy } from './defaults.ts';
import { planRows } from './measure.ts';
import { ITERATIVE_MAX_CANDIDATES } from './query-mode/select-queries.ts';
import { directTables } from './table-mode/direct.ts';
import type { RapInput, RapOptions, TableStrategy } from './types.ts';

interface PlanBase {
  /** The synthesis's ρ: the run's ρ(ε, δ), less the relative-error pass's share when certifying. */
  readonly rho: number;
  /** The run's whole ρ(ε, δ), what the ledger reserves: rho + certify.rho. */
  readonly totalRho: number;
  /** The relative-error pass (options.certify): its ρ, monitor scales and certificate's α. */
  readonly certify?: CertifyPlan;
  readonly layout: OneHotLayout;
  /** Workload queries m, and where each threshold's queries start in the global order. */
  readonly numQueries: number;
  readonly offsets: readonly number[];
  /** Normalized importance weight per threshold (max 1). */
  readonly weights: Float64Array;
}

/**
 * Query mode: T rounds of K selected queries (RAP's adaptive rounds), or non-adaptive (T = 1,
 * K = m: all at once). These kind names are public (the ledger's parameters, the manifest); table
 * mode's `adaptive` plan is a TablePlan strategy, and the query selection users call adaptive is
 * the engine's `iterative` rule (input/choices.ts).
 */
export interface QueryPlan extends PlanBase {
  readonly kind: 'adaptive' | 'non-adaptive';
  readonly rounds: number;
  readonly perRound: number;
}

/**
 * Table mode: every workload table measured at once (`direct`), rounds of K measurements until ρ
 * is spent (`adaptive`; T₀, `roundBound`, bounds the rounds), or every workload table measured
 * with a share of ρ and then rounds (`mixed`).
 */
export interface TablePlan extends PlanBase {
  readonly kind: 'table';
  readonly strategy: TableStrategy;
  readonly roundBound: number;
  readonly perRound: number;
}

export type RunPlan = QueryPlan | TablePlan;
export type RunKind = RunPlan['kind'];

/** The plan's T as the ledger and the progress bar count it: T₀ in table mode. */
export function plannedRounds(plan: RunPlan): number {
  return plan.kind === 'table' ? plan.roundBound : plan.rounds;
}

function bad(field: string, value: unknown, what: string): never {
  throw new InputError(`option ${field} = ${String(value)}: ${what}`, { field, value: String(value) });
}

function positiveInteger(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) bad(field, value, 'must be an integer >= 1');
}

function checkOptions(o: RapOptions): void {
  positiveInteger('rows', o.rows);
  positiveInteger('oversample', o.oversample);
  positiveInteger('maxSteps', o.maxSteps);
  positiveInteger('batchSize', o.batchSize);
  if (o.rounds !== undefined) positiveInteger('rounds', o.rounds);
  if (o.perRound !== undefined) positiveInteger('perRound', o.perRound);
  if (!(o.learningRate > 0 && Number.isFinite(o.learningRate)))
    bad('learningRate', o.learningRate, 'must be > 0');
  if (!(o.tolerance >= 0 && Number.isFinite(o.tolerance))) bad('tolerance', o.tolerance, 'must be >= 0');
  if (o.mode !== 'query' && o.mode !== 'table') bad('mode', o.mode, "must be 'query' or 'table'");
  if (o.tablePlan !== undefined && !['direct', 'mixed', 'adaptive'].includes(o.tablePlan))
    bad('tablePlan', o.tablePlan, "must be 'direct', 'mixed' or 'adaptive'");
  if (o.selection !== 'oneshot' && o.selection !== 'iterative') {
    bad('selection', o.selection, "must be 'oneshot' or 'iterative'");
  }
}

function checkWorkload(w: Workload, sizes: readonly number[]): void {
  if (w.thresholds.length === 0)
    throw new InputError('the workload has no thresholds', { field: 'thresholds' });
  w.thresholds.forEach((t, i) => {
    const where = { field: `thresholds[${i}]` };
    const k = t.features.length;
    if (k === 0 || new Set(t.features).size !== k || t.features.some((f) => !(f >= 0 && f < sizes.length))) {
      throw new InputError(
        `threshold ${i}: features must be distinct column indices below ${sizes.length}`,
        where,
      );
    }
    if (!Number.isInteger(t.r) || t.r < 1 || t.r > k)
      throw new InputError(`threshold ${i}: r must be in 1..${k}`, where);
    if (!(t.weight > 0 && Number.isFinite(t.weight)))
      throw new InputError(`threshold ${i}: weight must be > 0`, where);
  });
}

export function planRun(input: RapInput): RunPlan {
  const { data, workload, options: o } = input;
  checkOptions(o);
  if (!(data.n >= 1)) throw new InputError('the dataset has no rows', { field: 'data' });
  // The public rules read n at the row level; n̂/k at the person level (measure.ts).
  const rowsForRules = planRows(data, o.unit);
  let totalRho: number;
  try {
    totalRho = rhoFromEpsilon(o.epsilon, o.delta);
  } catch (err) {
    throw new InputError((err as Error).message, { field: 'epsilon/delta' });
  }
  const layout = layoutOf(data.schema);
  checkWorkload(workload, layout.sizes);
  const offsets = [0];
  for (const t of workload.thresholds)
    offsets.push(offsets[offsets.length - 1] + queryCount(t, layout.sizes));
  const m = offsets[offsets.length - 1];
  if (!Number.isSafeInteger(m))
    throw new InputError(`the workload has more than 2^53 queries`, { field: 'workload' });
  const N = workload.thresholds.length;
  const weights = normalizeWeights(workload.thresholds.map((t) => t.weight));
  // The relative-error pass's share comes out of ρ: the synthesis spends the rest (Σρ = ρ(ε, δ)).
  // Its monitor's sensitivity is 1/n with n public: not stated at the person level (refused).
  if (o.certify && o.unit) {
    bad(
      'certify',
      o.certify.zeta,
      'the accuracy certificate is not available at the person level yet: leave it out',
    );
  }
  const certify = o.certify ? certifyPlan(o.certify, totalRho, data.n, m) : undefined;
  const rho = certify ? totalRho - certify.rho : totalRho;
  const base = { rho, totalRho, layout, numQueries: m, offsets, weights, ...(certify ? { certify } : {}) };
  if (o.relaxation === 'softmax' && o.backend === 'webgpu') {
    bad(
      'relaxation',
      'softmax',
      'the webgpu backend has no softmax relaxation yet: use another backend, or sparsemax',
    );
  }
  if (o.mode === 'table' && o.selection === 'iterative') {
    bad(
      'selection',
      'adaptive',
      'adaptive selection (AS) is a query-mode option; table mode selects whole tables',
    );
  }
  if (o.mode === 'query' && o.selection === 'iterative' && m > ITERATIVE_MAX_CANDIDATES) {
    bad(
      'selection',
      'adaptive',
      `adaptive selection (AS) keeps every score in memory and allows at most ${ITERATIVE_MAX_CANDIDATES} queries; this workload has ${m}: use one-shot selection`,
    );
  }
  if (o.mode === 'table') {
    // Table mode measures `perRound` whole tables per round; `rounds` is T₀, the bound on
    // rounds (T₀·K bounds the measurements and sets their first ρ, table-mode/rho-schedule.ts): the run
    // ends when the budget is spent.
    const rule = defaultTablePlan({ rho, n: rowsForRules, thresholds: N });
    const cells = directTables(workload, weights, layout.sizes).map((t) => t.cells);
    const marginals = workload.thresholds.every((t) => t.r === t.features.length);
    const multiway = workload.thresholds.some((t) => t.features.length > 1);
    const equalWeights = workload.thresholds.every((t) => t.weight === workload.thresholds[0].weight);
    // A curator who sets T₀ or K asks for rounds: the adaptive plan (still a public rule).
    const asksForRounds = o.rounds !== undefined || o.perRound !== undefined;
    const strategy =
      o.tablePlan ??
      (asksForRounds
        ? 'adaptive'
        : defaultTableStrategy({ rho, n: rowsForRules, cells, marginals, multiway, equalWeights }));
    if (strategy === 'mixed' && !multiway) {
      bad(
        'tablePlan',
        'mixed',
        'the mixed plan measures the workload tables of two or more features: this workload has none',
      );
    }
    return {
      ...base,
      kind: 'table',
      strategy,
      roundBound: o.rounds ?? rule.roundBound,
      perRound: o.perRound ?? rule.perRound,
    };
  }
  const rule = defaultRoundsAndK({
    epsilon: o.epsilon,
    delta: o.delta,
    n: rowsForRules,
    thresholds: N,
    queries: m,
  });
  const rounds = o.rounds ?? rule.rounds;
  const perRound = Math.min(o.perRound ?? rule.perRound, m);
  if (rounds === 1 && perRound >= m) return { ...base, kind: 'non-adaptive', rounds, perRound: m };
  if (rounds * perRound > m)
    bad('rounds × perRound', rounds * perRound, `exceeds the workload's ${m} queries`);
  return { ...base, kind: 'adaptive', rounds, perRound };
}
