/**
 * The Privacy step: the curator's typed settings checked with the CLI's rules (same messages),
 * and the public run plan they give (ρ, T, K, cost against the remaining budget). Nothing
 * private is read: n is the record count (public under replace-one DP) and the schema is the
 * one the run will use.
 */

import type { Hierarchy } from '../core/data/hierarchy.ts';
import type { Schema } from '../core/data/schema.ts';
import {
  discoveryForColumn,
  discoveryPerColumn,
  discoveryShares,
  splitBudget,
} from '../core/discovery/budget-split.ts';
import { DEFAULT_DISCOVERY_SHARE } from '../core/discovery/discover.ts';
import { declaredColumns, NOT_DP_OVERRIDE, notDpColumns, notDpRefusal } from '../core/discovery/not-dp.ts';
import { discoveryLossPreview, hierarchyPreview } from '../core/discovery/preview.ts';
import { certifyPlan } from '../core/engine/certify.ts';
import { defaultOptions } from '../core/engine/defaults.ts';
import { publicPlan } from '../core/engine/public-plan.ts';
import { InputError } from '../core/errors.ts';
import { parseCount } from '../core/input/numbers.ts';
import { admits, capRhoAfter } from '../core/ledger/admission.ts';
import { defaultDelta, deltaWarning, epsilonFromRho } from '../core/privacy/accounting.ts';
import { warnings as warnings_ } from '../core/release/messages.ts';
import { PERSON_DEFAULT_DELTA, type UnitSpec, workloadWithoutUnit } from '../core/release/person.ts';
import type { EngineOverrides } from '../core/release/release.ts';
import {
  parseHierarchies,
  parseRunSettings,
  type RunSettings,
  type RunSettingsText,
  TEXT_SETTINGS,
} from '../core/release/spec.ts';
import type { Workload } from '../core/workload/types.ts';
import type {
  BudgetView,
  ColumnReleaseView,
  DomainChoice,
  FieldProblem,
  LedgerMatchView,
  RunPlanView,
  RunSettingsInput,
} from '../shared/api.ts';
import { keptSchema, keptWorkload, undecidedColumns, undecidedReason } from './columns.ts';

export interface ParsedSettings extends RunSettings {
  /** A schema read off the data: discovered privately (default) or released over as read. */
  readonly domain: DomainChoice;
  readonly allowNonPrivateDomain: boolean;
  /** One person, several rows: the identifier column and k (release/person.ts); absent: per row. */
  readonly unit?: UnitSpec;
  /** Columns marked as hierarchical codes (the CLI's --hierarchy, by parseHierarchies). */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
}

export const INSECURE_SEED_NOTE =
  'insecure seed: this run uses reproducible randomness, NOT private-grade noise; for tests and benchmarks only.';

const blank = (s: string | undefined): s is undefined => s === undefined || s.trim() === '';

/** The Privacy step's fields as the spec module's text settings (the CLI's flags give the same). */
export function settingsText(input: RunSettingsInput): RunSettingsText {
  return {
    ...Object.fromEntries(TEXT_SETTINGS.map((name) => [name, input[name]])),
    epsilon: input.epsilon,
    mode: input.mode,
    selection: input.selection,
    relaxation: input.relaxation,
    importance: input.importance,
    seed: input.insecureSeed,
    ...(input.exclude !== undefined && { exclude: input.exclude }),
  };
}

/**
 * Each field checked on its own, so the screen can show every problem at once — by the release
 * spec's rules and messages (core/release/spec.ts), the CLI's too.
 */
export function parseSettings(input: RunSettingsInput): {
  parsed?: ParsedSettings;
  problems: FieldProblem[];
} {
  const { settings, problems } = parseRunSettings(settingsText(input));
  // The app's field for the seed is `insecureSeed`.
  const fieldProblems = problems.map((p) => ({
    field: p.field === 'seed' ? 'insecureSeed' : p.field,
    message: p.message,
  }));
  // k: rows kept per person (the person level); blank or "private": chosen privately.
  let rowsPerPerson: number | 'private' = 'private';
  if (!blank(input.rowsPerPerson) && input.rowsPerPerson.trim() !== 'private') {
    try {
      rowsPerPerson = parseCount('rows per person', input.rowsPerPerson);
    } catch (err) {
      fieldProblems.push({ field: 'rowsPerPerson', message: (err as Error).message });
    }
  }
  // Hierarchical codes: the CLI's --hierarchy entries, by the same parser and messages.
  let hierarchies: Record<string, Hierarchy> | undefined;
  if (input.hierarchy && input.hierarchy.length > 0) {
    try {
      hierarchies = parseHierarchies(input.hierarchy);
    } catch (err) {
      fieldProblems.push({ field: 'hierarchy', message: (err as Error).message });
    }
  }
  if (!settings || fieldProblems.length > 0) return { problems: fieldProblems };
  const domain = input.domain ?? 'discover';
  const allowNonPrivateDomain = input.allowNonPrivateDomain === true;
  const unit = blank(input.unitColumn)
    ? undefined
    : { column: input.unitColumn.trim(), bound: rowsPerPerson };
  return {
    parsed: {
      ...settings,
      domain,
      allowNonPrivateDomain,
      ...(unit ? { unit } : {}),
      ...(hierarchies ? { hierarchies } : {}),
    },
    problems: fieldProblems,
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
  /** Known datasets this (new) file looks like: the curator must pick whose budget it spends. */
  readonly ledgerMatches?: readonly LedgerMatchView[];
  /** Line 1 was taken for the header by a guess: no run until the curator says (the header rule). */
  readonly headerGuessed?: boolean;
  /** Columns set aside for their category limit (DatasetView.overLimit): no run until decided. */
  readonly overLimit?: readonly { readonly column: string; readonly limit: number }[];
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
  certify: null,
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
 * (discovery/budget-split.ts): splitBudget for discovery's share of ρ, discoveryPerColumn for its
 * equal split over the discovered (undeclared) columns — a hierarchical one takes a share per
 * level (discoveryForColumn), and its "(other)" bar is its top level's. Declared columns are free.
 */
function columnsAtRelease(
  schema: Schema,
  mode: ReturnType<typeof domainPlan>,
  budget: { readonly epsilon: number; readonly delta: number } | null,
  hierarchies: Readonly<Record<string, Hierarchy>> = {},
): { columns: ColumnReleaseView[]; discovery: RunPlanView['discovery'] } {
  return columnCosts(
    schema.columns.map((c) => c.name),
    new Set(declaredColumns(schema).map((c) => c.name)),
    mode,
    budget,
    hierarchies,
  );
}

/**
 * columnsAtRelease by the columns' names: the released columns (in order) and those declared. A
 * source the app holds no schema of (a database's, services/database-plan.ts) states its costs
 * through this, from the same split.
 */
export function columnCosts(
  names: readonly string[],
  declared: ReadonlySet<string>,
  mode: ReturnType<typeof domainPlan>,
  budget: { readonly epsilon: number; readonly delta: number } | null,
  hierarchies: Readonly<Record<string, Hierarchy>> = {},
): { columns: ColumnReleaseView[]; discovery: RunPlanView['discovery'] } {
  const undeclared = names.filter((name) => !declared.has(name));
  const each = (other: (name: string) => ColumnReleaseView): ColumnReleaseView[] =>
    names.map((name) => (declared.has(name) ? { name, domain: 'declared' } : other(name)));
  if (mode === 'declared')
    return { columns: each((name) => ({ name, domain: 'declared' })), discovery: null };
  if (mode === 'not-dp') return { columns: each((name) => ({ name, domain: 'not-dp' })), discovery: null };
  if (!budget)
    return { columns: each((name) => ({ name, domain: 'discovered', cost: null })), discovery: null };
  const split = splitBudget(budget.epsilon, budget.delta, DEFAULT_DISCOVERY_SHARE, true);
  // Only the discovered columns' hierarchies take shares (a declared one is encoded exactly).
  const marked = Object.fromEntries(Object.entries(hierarchies).filter(([n]) => undeclared.includes(n)));
  const perColumn = discoveryPerColumn(split, discoveryShares(undeclared, marked).total);
  // The same split for every plain discovered column: one preview serves them all.
  const [preview] = discoveryLossPreview(split, undeclared, marked);
  const mergeBelow = preview?.mergeBelow ?? 0;
  const costOf = (name: string) => {
    const c = discoveryForColumn(split, undeclared, marked, name);
    const bar = Object.hasOwn(marked, name)
      ? hierarchyPreview(split, undeclared, marked, name)[0].mergeBelow
      : mergeBelow;
    return { ...c, shareOfRho: c.rho / split.rho, mergeBelow: bar };
  };
  return {
    columns: each((name) => ({ name, domain: 'discovered', cost: costOf(name) })),
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

/**
 * The plan at the person level: the identifier column is no column of the release (its cost is
 * not shown, a workload on it is refused as the release refuses it).
 */
function personLevel(p: PlanInputs, unit: UnitSpec): PlanInputs {
  const at = p.schema.columns.findIndex((c) => c.name === unit.column);
  // An identifier set aside for its category limit is in no schema or workload: nothing to remove.
  if (at < 0 && (p.overLimit ?? []).some((o) => o.column === unit.column)) return p;
  if (at < 0) {
    return {
      ...p,
      workload: { problem: `No column named "${unit.column}": choose the column that identifies a person.` },
    };
  }
  const schema = { ...p.schema, columns: p.schema.columns.filter((_, i) => i !== at) };
  let workload: PlanInputs['workload'] = p.workload;
  if (!('problem' in workload)) {
    try {
      workload = workloadWithoutUnit(workload, at, unit.column);
    } catch (err) {
      workload = { problem: (err as Error).message };
    }
  }
  return { ...p, schema, workload };
}

function fmt3(x: number): string {
  return Number(x.toPrecision(3)).toString();
}

/**
 * The pass's cost and α as the release will have them: of the run's ρ, or — with private
 * discovery, where the engine runs on what discovery leaves — of the synthesis's ρ, with α from
 * the schema as read (m is known only after discovery).
 */
function certifyView(
  plan: ReturnType<typeof publicPlan>,
  overrides: EngineOverrides,
  discovery: RunPlanView['discovery'],
  n: number,
): RunPlanView['certify'] {
  if (!plan.certify) return null;
  if (!discovery || !overrides.certify) return { ...plan.certify, approximate: false };
  const c = certifyPlan(overrides.certify, discovery.rhoSynthesis, n, plan.numQueries);
  return { ...plan.certify, rho: c.rho, epsilon: c.scales.epsilon, alpha: c.alpha, approximate: true };
}
/** Why Run waits while line 1's role is a guess (the services refuse a run for the same reason). */
export const HEADER_GUESSED_REASON =
  'Line 1 was taken for the column names by a guess: a release publishes the column names, so say on the ' +
  'Data step whether line 1 names the columns ("Does line 1 name the columns?").';

/** The columns the curator leaves out are no columns of the release (their cost is not shown). */
function chosenColumns(p: PlanInputs, choice: ParsedSettings['columns']): PlanInputs {
  if (!choice) return p;
  let workload: PlanInputs['workload'] = p.workload;
  if (!('problem' in workload)) {
    try {
      workload = keptWorkload(workload, p.schema, choice);
    } catch (err) {
      workload = { problem: (err as Error).message };
    }
  }
  return { ...p, schema: keptSchema(p.schema, choice), workload };
}

export function planView(inputs: PlanInputs): RunPlanView {
  const { parsed, problems } = parseSettings(inputs.settings);
  const chosen = chosenColumns(inputs, parsed?.columns);
  const p = parsed?.unit ? personLevel(chosen, parsed.unit) : chosen;
  const base = {
    n: p.n,
    // At the person level 1/n² would publish the row count: a public constant (release/person.ts).
    defaultDelta: parsed?.unit ? PERSON_DEFAULT_DELTA : defaultDelta(Math.max(2, p.n)),
    budget: p.budget,
    ledgerMatches: p.ledgerMatches ?? [],
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
    parsed?.hierarchies,
  );
  if (!parsed || delta === null)
    return refuse(`Fix the settings first: ${problems[0].message}.`, 'settings', { columns });
  if (p.headerGuessed) return refuse(HEADER_GUESSED_REASON, 'header', { columns });
  const undecided = undecidedColumns(p.overLimit ?? [], parsed.columns, parsed.unit?.column);
  if (undecided.length > 0) return refuse(undecidedReason(p.fileName, undecided), 'domain', { columns });
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
  // With discovery the reservation is the ρ(ε, 0.9δ) the run uses, plus partition selection's δ/10
  // charged outside ρ (ledger/admission.ts), as the release reserves it.
  const runRho = discovery ? discovery.rhoDiscovery + discovery.rhoSynthesis : plan.rho;
  const runApproxDelta = discovery ? discovery.deltaDiscovery : 0;
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
    certify: certifyView(plan, parsed.overrides, discovery, p.n),
    discovery,
    columns,
  };
  const b = p.budget;
  const cap =
    b.capRho !== null && b.capEpsilon !== null && b.capDelta !== null
      ? { rho: b.capRho, epsilon: b.capEpsilon, delta: b.capDelta }
      : null;
  // What the cap leaves after this run, as ε at what is left of its δ (ledger/admission.ts).
  const deltaAfter = cap ? cap.delta - b.spentApproxDelta - runApproxDelta : 0;
  const remainingAfterEpsilon = cap
    ? deltaAfter > 0
      ? epsilonFromRho(
          Math.max(0, capRhoAfter(cap, b.spentApproxDelta + runApproxDelta) - b.spentRho - runRho),
          deltaAfter,
        )
      : 0
    : null;
  const result = { ...base, ...planned, problems, warnings, remainingAfterEpsilon };
  const answer = (affordable: boolean, reason: string | null, blocker: RunPlanView['blocker']) => ({
    ...result,
    affordable,
    reason,
    blocker,
  });
  // A new file that looks like a known dataset: the curator says whose budget it spends.
  if ((p.ledgerMatches ?? []).length > 0 && p.settings.ledgerDataset === undefined)
    return answer(
      false,
      `This file looks like ${(p.ledgerMatches ?? []).map((m) => `"${m.name}" (${m.rows} rows)`).join(' and ')} in the ` +
        'ledger (same columns, a similar number of records): choose whose budget it spends.',
      'dataset',
    );
  if (b.capRho === null)
    return answer(
      false,
      'No privacy budget cap is set for this dataset: set one before the first run.',
      'no-cap',
    );
  if (
    cap &&
    !admits(
      cap,
      { rho: b.spentRho, approxDelta: b.spentApproxDelta },
      { rho: runRho, approxDelta: runApproxDelta },
    )
  ) {
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
