/**
 * The Privacy step: the curator's typed settings checked with the CLI's rules (same messages),
 * and the public run plan they give (ρ, T, K, cost against the remaining budget). Nothing
 * private is read: n is the record count (public under replace-one DP) and the schema is the
 * one the run will use.
 */

import type { Schema } from '../core/data/schema.ts';
import { discoveryPerColumn, splitBudget } from '../core/discovery/budget.ts';
import { DEFAULT_DISCOVERY_SHARE } from '../core/discovery/discover.ts';
import { declaredColumns, NOT_DP_OVERRIDE, notDpColumns, notDpRefusal } from '../core/discovery/not-dp.ts';
import { discoveryLossPreview } from '../core/discovery/preview.ts';
import { defaultOptions } from '../core/engine/defaults.ts';
import type { NoiseSpec } from '../core/engine/process/protocol.ts';
import { publicPlan } from '../core/engine/process/public-plan.ts';
import { InputError } from '../core/errors.ts';
import {
  BACKENDS,
  ENGINE_SELECTION,
  IMPORTANCE,
  type ImportanceName,
  RELAXATIONS,
  SELECTIONS,
} from '../core/input/choices.ts';
import { parseChoice, parseCount, parseDelta, parseEpsilon, parseSeed } from '../core/input/numbers.ts';
import { admits } from '../core/ledger/budget.ts';
import { defaultDelta, deltaWarning, epsilonFromRho } from '../core/privacy/accounting.ts';
import { warnings as warnings_ } from '../core/release/messages.ts';
import type { EngineOverrides } from '../core/release/release.ts';
import type { Workload } from '../core/workload/types.ts';
import type {
  BudgetView,
  ColumnReleaseView,
  DomainChoice,
  FieldProblem,
  RunPlanView,
  RunSettingsInput,
} from '../shared/api.ts';

export interface ParsedSettings {
  readonly epsilon: number;
  readonly delta: number | undefined;
  readonly overrides: EngineOverrides;
  readonly noise: NoiseSpec;
  /** Weights from the workload's own history (workload/importance.ts), or the curator's. */
  readonly importance: ImportanceName;
  /** A schema read off the data: discovered privately (default) or released over as read. */
  readonly domain: DomainChoice;
  readonly allowNonPrivateDomain: boolean;
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
  const selection =
    input.selection === undefined
      ? undefined
      : field('selection', () => ENGINE_SELECTION[parseChoice('selection', input.selection!, SELECTIONS)]);
  if (selection === 'iterative' && input.mode !== 'query') {
    problems.push({
      field: 'selection',
      message: 'adaptive selection is a query-mode option: choose mode query, or one-shot selection',
    });
  }
  const relaxation =
    input.relaxation === undefined
      ? undefined
      : field('relaxation', () => parseChoice('relaxation', input.relaxation!, RELAXATIONS));
  const importance =
    input.importance === undefined
      ? 'none'
      : (field('importance', () => parseChoice('importance', input.importance!, IMPORTANCE)) ?? 'none');
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
    // One-shot is the default; only query mode has a choice to record.
    ...(selection !== undefined && input.mode === 'query' && { selection }),
    ...(relaxation !== undefined && { relaxation }),
  };
  const domain = input.domain ?? 'discover';
  const allowNonPrivateDomain = input.allowNonPrivateDomain === true;
  return {
    parsed: { epsilon, delta, overrides, noise, importance, domain, allowNonPrivateDomain },
    problems,
  };
}

export interface PlanInputs {
  readonly settings: RunSettingsInput;
  /** The file's name as the curator knows it (the refusal names it). */
  readonly fileName: string;
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

/** Whether the schema's domain was read off the private data (inferred, confirmed or edited). */
export function readFromData(schema: Schema): boolean {
  return schema.origin === 'inferred' || schema.confirmedFromInferred === true;
}

/**
 * How the run treats the columns the curator has not declared, from the schema and the curator's
 * choice: none (every column declared: used as declared); discovered privately (the default); or,
 * when the curator asks, released over as read (not DP, refused without the override).
 */
export function domainPlan(schema: Schema, choice: DomainChoice): 'declared' | 'discover' | 'not-dp' {
  if (declaredColumns(schema).length === schema.columns.length) return 'declared';
  return choice === 'discover' ? 'discover' : 'not-dp';
}

/**
 * Each column's domain at release and its cost, from the same split the release uses
 * (discovery/budget.ts): splitBudget for discovery's share of ρ, discoveryPerColumn for its
 * equal split over the discovered (undeclared) columns. Declared columns are free.
 */
function columnsAtRelease(
  schema: Schema,
  mode: ReturnType<typeof domainPlan>,
  budget: { readonly epsilon: number; readonly delta: number } | null,
): { columns: ColumnReleaseView[]; discovery: RunPlanView['discovery'] } {
  const declared = new Set(declaredColumns(schema).map((c) => c.name));
  const names = schema.columns.map((c) => c.name);
  const undeclared = names.filter((name) => !declared.has(name));
  const each = (other: (name: string) => ColumnReleaseView): ColumnReleaseView[] =>
    names.map((name) => (declared.has(name) ? { name, domain: 'declared' } : other(name)));
  if (mode === 'declared')
    return { columns: each((name) => ({ name, domain: 'declared' })), discovery: null };
  if (mode === 'not-dp') return { columns: each((name) => ({ name, domain: 'not-dp' })), discovery: null };
  if (!budget)
    return { columns: each((name) => ({ name, domain: 'discovered', cost: null })), discovery: null };
  const split = splitBudget(budget.epsilon, budget.delta, DEFAULT_DISCOVERY_SHARE, true);
  const perColumn = discoveryPerColumn(split, undeclared.length);
  // The same split for every discovered column: one preview serves them all.
  const [preview] = discoveryLossPreview(split, undeclared);
  const mergeBelow = preview?.mergeBelow ?? 0;
  const cost = { ...perColumn, shareOfRho: perColumn.rho / split.rho, mergeBelow };
  return {
    columns: each((name) => ({ name, domain: 'discovered', cost })),
    discovery: {
      share: DEFAULT_DISCOVERY_SHARE,
      columns: undeclared.length,
      perColumn,
      mergeBelow,
      rhoDiscovery: split.rhoDiscovery,
      rhoSynthesis: split.rhoSynthesis,
      deltaDiscovery: split.deltaDiscovery,
    },
  };
}

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
    columns: [],
    discovery: null,
    ...extra,
  });

  const mode = domainPlan(p.schema, p.settings.domain ?? 'discover');
  // The columns' domains and costs are shown as soon as ε and δ parse (the Schema step comes
  // before the workload exists).
  const delta = parsed ? (parsed.delta ?? base.defaultDelta) : null;
  const { columns, discovery } = columnsAtRelease(
    p.schema,
    mode,
    parsed && delta !== null ? { epsilon: parsed.epsilon, delta } : null,
  );
  if (!parsed || delta === null)
    return refuse(`Fix the settings first: ${problems[0].message}.`, 'settings', { columns });
  // Refused as the release refuses it (core/discovery/not-dp.ts), before any reservation.
  if (mode === 'not-dp' && !parsed.allowNonPrivateDomain) {
    const refusal = notDpRefusal(p.fileName, notDpColumns(p.schema), NOT_DP_OVERRIDE);
    return refuse(refusal.message, 'domain', { columns });
  }
  if ('problem' in p.workload)
    return refuse(p.workload.problem, 'workload', { columns, discovery, epsilon: parsed.epsilon, delta });
  const workload = p.workload;
  const warnings: string[] = [];
  const dw = deltaWarning(delta, p.n);
  if (dw) warnings.push(dw);
  if (mode === 'not-dp') warnings.push(warnings_.domainNotDp(notDpColumns(p.schema)).message);
  if (parsed.noise.mode === 'insecure-seed') warnings.push(INSECURE_SEED_NOTE);
  let plan: ReturnType<typeof publicPlan>;
  let defaults: ReturnType<typeof publicPlan> | undefined;
  const options = defaultOptions({ epsilon: parsed.epsilon, delta, ...parsed.overrides });
  try {
    plan = publicPlan(options, p.schema, p.n, workload);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    problems.push({ field: 'plan', message: err.message });
    return refuse(`Fix the settings first: ${err.message}.`, 'settings', {
      delta,
      deltaWarning: dw,
      columns,
      discovery,
    });
  }
  try {
    const { rounds: _t, perRound: _k, ...rest } = options;
    defaults = publicPlan(rest, p.schema, p.n, workload);
  } catch {
    defaults = undefined;
  }
  // The reservation is ρ(ε, δ) also with discovery (which uses ρ(ε, δ/2) of it).
  const runRho = plan.rho;
  const planned = {
    delta,
    deltaWarning: dw,
    epsilon: parsed.epsilon,
    rho: runRho,
    rounds: plan.rounds,
    perRound: plan.perRound,
    defaultRounds: defaults?.rounds ?? null,
    defaultPerRound: defaults?.perRound ?? null,
    rows: options.rows,
    oversample: options.oversample,
    kind: plan.kind,
    numQueries: plan.numQueries,
    discovery,
    columns,
  };
  const b = p.budget;
  const remainingAfterEpsilon =
    b.capRho !== null && b.capDelta !== null && b.remainingRho !== null
      ? epsilonFromRho(Math.max(0, b.remainingRho - runRho), b.capDelta)
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
  if (!admits(b.capRho, b.spentRho, runRho)) {
    const reason =
      `Over budget: this run needs ε = ${fmt3(parsed.epsilon)} (ρ = ${fmt3(runRho)}), but only ` +
      `ε = ${fmt3(b.remainingEpsilon ?? 0)} (ρ = ${fmt3(b.remainingRho ?? 0)}) of the cap remains. ` +
      'Lower ε, or raise the cap if your oversight policy allows.';
    return answer(false, reason, 'over-budget');
  }
  if (p.busy)
    return answer(true, 'A run is in progress: wait for it to finish or cancel it on the Run step.', 'busy');
  return answer(true, null, null);
}
