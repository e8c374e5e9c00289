/**
 * The engine's run plan (ρ, T, K, query count) fixed from public inputs only, before the ledger
 * reserves: the ledger records T and K with the spend, and bad option combinations are refused
 * before any budget is spent.
 */
import type { EncodedDataset, Schema } from '../../data/schema.ts';
import type { NoiseSource } from '../../privacy/noise.ts';
import type { Workload } from '../../workload/types.ts';
import { assertRunFits, type MachineMemory, thisMachine } from '../limits.ts';
import { plannedRounds, planRun, type RunKind } from '../plan.ts';
import type { RapOptions } from '../types.ts';

export interface PublicPlan {
  readonly kind: RunKind;
  readonly rho: number;
  readonly rounds: number;
  readonly perRound: number;
  readonly numQueries: number;
  /** The relative-error pass: its cost and the certificate's terms, fixed before the run. */
  readonly certify?: PublicCertifyPlan;
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
): PublicPlan {
  // Sizes and memory first: a run that cannot finish is refused before anything is planned or reserved.
  const size = {
    mode: options.mode,
    rows: options.rows,
    oversample: options.oversample,
    n,
    schema,
    workload,
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
  };
}
