/**
 * The Privacy step: the curator's typed settings checked with the CLI's rules (same messages),
 * and the public run plan they give (ρ, T, K, cost against the remaining budget). Nothing
 * private is read: n is the record count (public under replace-one DP) and the schema is the
 * one the run will use.
 */

import type { Schema } from '../core/data/schema.ts';
import { defaultOptions } from '../core/engine/defaults.ts';
import type { NoiseSpec } from '../core/engine/process/protocol.ts';
import { publicPlan } from '../core/engine/process/public-plan.ts';
import { InputError } from '../core/errors.ts';
import { BACKENDS } from '../core/input/choices.ts';
import { parseCount, parseDelta, parseEpsilon, parseSeed } from '../core/input/numbers.ts';
import { admits } from '../core/ledger/budget.ts';
import { defaultDelta, deltaWarning, epsilonFromRho } from '../core/privacy/accounting.ts';
import type { EngineOverrides } from '../core/release/release.ts';
import type { Workload } from '../core/workload/types.ts';
import type { BudgetView, FieldProblem, RunPlanView, RunSettingsInput } from '../shared/api.ts';

export interface ParsedSettings {
  readonly epsilon: number;
  readonly delta: number | undefined;
  readonly overrides: EngineOverrides;
  readonly noise: NoiseSpec;
}

export const INSECURE_SEED_NOTE =
  'insecure seed: this run uses reproducible randomness, NOT private-grade noise; for tests and benchmarks only.';

const blank = (s: string | undefined): s is undefined => s === undefined || s.trim() === '';

/** Each field checked on its own, so the screen can show every problem at once. */
export function parseSettings(input: RunSettingsInput): {
  parsed?: ParsedSettings;
  problems: FieldProblem[];
} {
  const problems: FieldProblem[] = [];
  const field = <T>(name: string, fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      problems.push({ field: name, message: (err as Error).message });
      return undefined;
    }
  };
  const epsilon = blank(input.epsilon)
    ? field('epsilon', () => {
        throw new InputError('Enter ε (a number > 0): the privacy budget this run spends');
      })
    : field('epsilon', () => parseEpsilon('ε', input.epsilon));
  const delta = blank(input.delta) ? undefined : field('delta', () => parseDelta('δ', input.delta!));
  const count = (name: string, label: string, text: string | undefined) =>
    blank(text) ? undefined : field(name, () => parseCount(label, text!));
  const rows = count('rows', "n'", input.rows);
  const rounds = count('rounds', 'T', input.rounds);
  const perRound = count('perRound', 'K', input.perRound);
  const oversample = count('oversample', 'oversampling', input.oversample);
  const backend = input.backend;
  const chosen = BACKENDS.find((b) => b === backend);
  if (backend !== undefined && backend !== 'auto' && !chosen) {
    problems.push({
      field: 'backend',
      message: `backend must be auto or one of ${BACKENDS.join(', ')}, got "${backend}"`,
    });
  }
  const seed = blank(input.insecureSeed)
    ? undefined
    : field('insecureSeed', () => parseSeed('the seed', input.insecureSeed!));
  const noise: NoiseSpec = seed === undefined ? { mode: 'secure' } : { mode: 'insecure-seed', seed };
  if (problems.length > 0 || epsilon === undefined) return { problems };
  const overrides: EngineOverrides = {
    ...(rows !== undefined && { rows }),
    ...(rounds !== undefined && { rounds }),
    ...(perRound !== undefined && { perRound }),
    ...(oversample !== undefined && { oversample }),
    ...(input.mode !== undefined && { mode: input.mode }),
    ...(chosen !== undefined && { backend: chosen }),
  };
  return { parsed: { epsilon, delta, overrides, noise }, problems };
}

export interface PlanInputs {
  readonly settings: RunSettingsInput;
  readonly schema: Schema;
  /** Public record count of the file. */
  readonly n: number;
  /** The resolved workload, or why there is none. */
  readonly workload: Workload | { readonly problem: string };
  readonly budget: BudgetView;
  /** Set when another run is in progress. */
  readonly busy: boolean;
}

const EMPTY_PLAN = {
  delta: null,
  deltaWarning: null,
  epsilon: null,
  rho: null,
  rounds: null,
  perRound: null,
  defaultRounds: null,
  defaultPerRound: null,
  rows: null,
  oversample: null,
  kind: null,
  numQueries: null,
  remainingAfterEpsilon: null,
} as const;

function fmt3(x: number): string {
  return Number(x.toPrecision(3)).toString();
}

export function planView(p: PlanInputs): RunPlanView {
  const { parsed, problems } = parseSettings(p.settings);
  const base = {
    n: p.n,
    defaultDelta: defaultDelta(Math.max(2, p.n)),
    budget: p.budget,
    seedMode: parsed?.noise.mode ?? (blank(p.settings.insecureSeed) ? 'secure' : 'insecure-seed'),
  } as const;
  const refuse = (
    reason: string,
    blocker: RunPlanView['blocker'],
    extra: Partial<RunPlanView> = {},
  ): RunPlanView => ({
    ...base,
    ...EMPTY_PLAN,
    problems,
    warnings: [],
    affordable: false,
    reason,
    blocker,
    ...extra,
  });

  if (!parsed) return refuse(`Fix the settings first: ${problems[0].message}.`, 'settings');
  if ('problem' in p.workload) return refuse(p.workload.problem, 'workload');
  const workload = p.workload;
  const delta = parsed.delta ?? base.defaultDelta;
  const warnings: string[] = [];
  const dw = deltaWarning(delta, p.n);
  if (dw) warnings.push(dw);
  if (p.schema.origin === 'inferred') {
    warnings.push(
      'The schema is inferred: it leaks information about the data until you confirm or edit it.',
    );
  }
  if (parsed.noise.mode === 'insecure-seed') warnings.push(INSECURE_SEED_NOTE);
  let plan: ReturnType<typeof publicPlan>;
  let defaults: ReturnType<typeof publicPlan> | undefined;
  const options = defaultOptions({ epsilon: parsed.epsilon, delta, ...parsed.overrides });
  try {
    plan = publicPlan(options, p.schema, p.n, workload);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    problems.push({ field: 'plan', message: err.message });
    return refuse(`Fix the settings first: ${err.message}.`, 'settings', { delta, deltaWarning: dw });
  }
  try {
    const { rounds: _t, perRound: _k, ...rest } = options;
    defaults = publicPlan(rest, p.schema, p.n, workload);
  } catch {
    defaults = undefined;
  }
  const planned = {
    delta,
    deltaWarning: dw,
    epsilon: parsed.epsilon,
    rho: plan.rho,
    rounds: plan.rounds,
    perRound: plan.perRound,
    defaultRounds: defaults?.rounds ?? null,
    defaultPerRound: defaults?.perRound ?? null,
    rows: options.rows,
    oversample: options.oversample,
    kind: plan.kind,
    numQueries: plan.numQueries,
  };
  const b = p.budget;
  const remainingAfterEpsilon =
    b.capRho !== null && b.capDelta !== null && b.remainingRho !== null
      ? epsilonFromRho(Math.max(0, b.remainingRho - plan.rho), b.capDelta)
      : null;
  const result = { ...base, ...planned, problems, warnings, remainingAfterEpsilon };
  const answer = (affordable: boolean, reason: string | null, blocker: RunPlanView['blocker']) => ({
    ...result,
    affordable,
    reason,
    blocker,
  });
  if (b.capRho === null)
    return answer(
      false,
      'No privacy budget cap is set for this dataset: set one before the first run.',
      'no-cap',
    );
  if (!admits(b.capRho, b.spentRho, plan.rho)) {
    const reason =
      `Over budget: this run needs ε = ${fmt3(parsed.epsilon)} (ρ = ${fmt3(plan.rho)}), but only ` +
      `ε = ${fmt3(b.remainingEpsilon ?? 0)} (ρ = ${fmt3(b.remainingRho ?? 0)}) of the cap remains. ` +
      'Lower ε, or raise the cap if your oversight policy allows.';
    return answer(false, reason, 'over-budget');
  }
  if (p.busy)
    return answer(true, 'A run is in progress: wait for it to finish or cancel it on the Run step.', 'busy');
  return answer(true, null, null);
}
