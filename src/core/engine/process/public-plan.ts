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
}

/** planRun reads no randomness; a noise source that is touched is a bug, so it fails loudly. */
const NO_NOISE: NoiseSource = {
  mode: 'secure',
  uniform: unreachable,
  normal: unreachable,
  gumbel: unreachable,
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
    ...(options.threads === undefined ? {} : { threads: options.threads }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
  };
  assertRunFits({ ...size, rounds: options.rounds ?? 1, perRound: options.perRound ?? 1 }, machine);
  const valueless: EncodedDataset = { schema, n, codes: [] };
  const plan = planRun({ data: valueless, workload, options, noise: NO_NOISE });
  assertRunFits({ ...size, rounds: plannedRounds(plan), perRound: plan.perRound }, machine);
  return {
    kind: plan.kind,
    rho: plan.rho,
    rounds: plannedRounds(plan),
    perRound: plan.perRound,
    numQueries: plan.numQueries,
  };
}
