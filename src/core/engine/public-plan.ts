/**
 * The engine's run plan (ρ, T, K, query count) fixed from public inputs only, before the ledger
 * reserves: the ledger records T and K with the spend, and bad option combinations are refused
 * before any budget is spent.
 */
import type { EncodedDataset, Schema } from '../data/schema.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import type { Workload } from '../workload/types.ts';
import { assertRunFits, type DataForm, type MachineMemory, thisMachine } from './limits.ts';
import { plannedRounds, planRun, type RunKind, type RunPlan } from './plan.ts';
import { DIRECT_ONE_WAY_SHARE } from './table-mode/direct.ts';
import { MEASURE_SHARE, MIXED_DIRECT_SHARE, ONE_WAY_SHARE } from './table-mode/rho-schedule.ts';
import type { RapOptions, TableStrategy } from './types.ts';

/**
 * Table mode's plan as a release states it (ledger event, manifest, report): which plan ran and
 * how it shares ρ. All constants of the engine, fixed before the reservation.
 */
export interface TablePlanStatement {
  readonly strategy: TableStrategy;
  /** T₀ (the bound on rounds) and K (tables measured per round); the direct plan has no rounds. */
  readonly roundBound: number | null;
  readonly perRound: number | null;
  /** Shares of the synthesis ρ: one-way start, every workload table up front, the rounds. */
  readonly shares: { readonly oneWay: number; readonly upfront: number; readonly rounds: number };
  /** Of each round's measurement ρ, the share that measures (the rest selects), as in AIM. */
  readonly measureShare: number | null;
}

export interface PublicPlan {
  readonly kind: RunKind;
  readonly rho: number;
  readonly rounds: number;
  readonly perRound: number;
  readonly numQueries: number;
  /** The relative-error pass: its cost and the certificate's terms, fixed before the run. */
  readonly certify?: PublicCertifyPlan;
  /** Table mode's plan (null in query mode). */
  readonly table: TablePlanStatement | null;
}

export interface PublicCertifyPlan {
  readonly zeta: number;
  readonly share: number;
  readonly beta: number;
  readonly maxViolations: number;
  readonly rho: number;
  /** The monitor's pure-DP ε = √(2ρ). */
  readonly epsilon: number;
  /** The α the certificate will state (fraction of the records). */
  readonly alpha: number;
}

/** What a table plan shares (table-mode/rho-schedule.ts and direct.ts hold the constants and why). */
export function tablePlanStatement(plan: RunPlan): TablePlanStatement | null {
  if (plan.kind !== 'table') return null;
  return statementOf(plan.strategy, plan.roundBound, plan.perRound);
}

/**
 * A table plan's statement from the strategy that ran and its T₀ and K. `paid` of the `features`
 * one-ways were discovery's (paid-one-ways.ts): the one-way share shrinks to the others' part and
 * the rest goes to the workload (the direct tables, or the rounds).
 */
export function statementOf(
  strategy: TableStrategy,
  roundBound: number,
  perRound: number,
  oneWays: { readonly paid: number; readonly features: number } = { paid: 0, features: 1 },
): TablePlanStatement {
  const unpaid = (oneWays.features - oneWays.paid) / oneWays.features;
  if (strategy === 'direct') {
    const oneWay = DIRECT_ONE_WAY_SHARE * unpaid;
    return {
      strategy: 'direct',
      roundBound: null,
      perRound: null,
      shares: { oneWay, upfront: 1 - oneWay, rounds: 0 },
      measureShare: null,
    };
  }
  const upfront = strategy === 'mixed' ? MIXED_DIRECT_SHARE : 0;
  const oneWay = ONE_WAY_SHARE * unpaid;
  return {
    strategy,
    roundBound,
    perRound,
    shares: { oneWay, upfront, rounds: 1 - oneWay - upfront },
    measureShare: MEASURE_SHARE,
  };
}

/** planRun reads no randomness; a noise source that is touched is a bug, so it fails loudly. */
const NO_NOISE: NoiseSource = {
  mode: 'secure',
  uniform: unreachable,
  normal: unreachable,
  gumbel: unreachable,
  exponential: unreachable,
  fillNormal: unreachable,
};

function unreachable(): never {
  throw new Error('public plan: the plan must not draw noise');
}

/**
 * planRun uses only the schema and n of the dataset (the rule for T and K is data-independent),
 * so it runs here on a dataset with no rows' values: nothing private is read.
 */
export function publicPlan(
  options: RapOptions,
  schema: Schema,
  n: number,
  workload: Workload,
  machine: MachineMemory = thisMachine(),
  /** How the engine will get the private data: its rows, or its exact tables (counted). */
  form: DataForm = 'rows',
): PublicPlan {
  // Sizes and memory first: a run that cannot finish is refused before anything is planned or reserved.
  const size = {
    mode: options.mode,
    rows: options.rows,
    oversample: options.oversample,
    n,
    schema,
    workload,
    form,
  };
  assertRunFits({ ...size, rounds: options.rounds ?? 1, perRound: options.perRound ?? 1 }, machine);
  const valueless: EncodedDataset = { schema, n, codes: [] };
  const plan = planRun({ data: valueless, workload, options, noise: NO_NOISE });
  assertRunFits({ ...size, rounds: plannedRounds(plan), perRound: plan.perRound }, machine);
  return {
    kind: plan.kind,
    // What the ledger reserves: the whole ρ(ε, δ), the relative-error pass's share included.
    rho: plan.totalRho,
    rounds: plannedRounds(plan),
    perRound: plan.perRound,
    numQueries: plan.numQueries,
    ...(plan.certify
      ? {
          certify: {
            zeta: plan.certify.zeta,
            share: plan.certify.share,
            beta: plan.certify.beta,
            maxViolations: plan.certify.maxViolations,
            rho: plan.certify.rho,
            epsilon: plan.certify.scales.epsilon,
            alpha: plan.certify.alpha,
          },
        }
      : {}),
    table: tablePlanStatement(plan),
  };
}
