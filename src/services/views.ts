/**
 * Core records → the plain-JSON views the renderer receives (src/shared/api.ts).
 */
import { layoutOf } from '../core/data/onehot.ts';
import { describeSchemaOrigin, domainSizes, type Schema } from '../core/data/schema.ts';
import { declaredColumns } from '../core/discovery/not-dp.ts';
import type { BudgetTotals, ReleaseRecord } from '../core/ledger/types.ts';
import { epsilonFromRho } from '../core/privacy/accounting.ts';
import type { BudgetView, ColumnView, ReleaseView, SchemaView } from '../shared/api.ts';
import type { AsyncLedger } from './ledger-client.ts';

export function schemaView(schema: Schema): SchemaView {
  const columns: ColumnView[] = schema.columns.map((c) =>
    c.kind === 'categorical'
      ? { name: c.name, kind: 'categorical', categories: [...c.categories], missing: c.missing }
      : { name: c.name, kind: 'numeric', edges: [...c.edges], integer: c.integer, missing: c.missing },
  );
  return {
    origin: schema.origin,
    confirmedFromInferred: schema.confirmedFromInferred === true,
    originText: describeSchemaOrigin(schema),
    columns,
    declaredColumns: declaredColumns(schema).map((c) => c.name),
    sizes: domainSizes(schema),
    oneHotWidth: layoutOf(schema).width,
  };
}

export const UNREGISTERED_BUDGET: BudgetView = {
  registered: false,
  releases: 0,
  capEpsilon: null,
  capDelta: null,
  capRho: null,
  spentRho: 0,
  spentApproxDelta: 0,
  spentEpsilon: null,
  remainingEpsilon: null,
  remainingRho: null,
  remainingShare: null,
};

export function budgetFromTotals(t: BudgetTotals): BudgetView {
  return {
    registered: true,
    releases: t.releases,
    capEpsilon: t.capEpsilon,
    capDelta: t.delta,
    capRho: t.capRho,
    spentRho: t.spentRho,
    spentApproxDelta: t.spentApproxDelta,
    spentEpsilon: t.spentEpsilon,
    remainingEpsilon: t.remainingEpsilon,
    remainingRho: t.remainingRho,
    remainingShare: t.remainingShare,
  };
}

/**
 * The budget a file spends: its dataset's (its own, or the named dataset it was released against);
 * unregistered when the ledger does not know the file.
 */
export async function budgetView(ledger: AsyncLedger, fingerprint: string): Promise<BudgetView> {
  const dataset = await ledger.datasetFor(fingerprint);
  return dataset ? budgetFromTotals(await ledger.totals(dataset.fingerprint)) : UNREGISTERED_BUDGET;
}

/** Releases in reservation order, each with the cumulative spend after it. */
/** The unit a ledger event states: params.unit (the person level) or, absent, one row. */
function unitOf(params: ReleaseRecord['params']): string {
  const unit = (params as { unit?: { column?: unknown } }).unit;
  return typeof unit?.column === 'string' ? `person (column ${unit.column})` : 'one row';
}

/** The plan in words from the ledger's parameters: the mode and, in table mode, the plan. */
function planOf(params: Readonly<Record<string, unknown>>): string {
  const plan = params.plan as { strategy?: unknown } | undefined;
  // The release's tablePlan statement ({ strategy, shares, … }), or "set by discovery".
  const table = params.tablePlan as { strategy?: unknown } | string | undefined;
  const strategy = (typeof table === 'object' ? table?.strategy : table) ?? params.strategy ?? plan?.strategy;
  return [params.mode ?? params.kind, strategy].filter((x) => typeof x === 'string').join(' · ');
}

export function releaseViews(releases: readonly ReleaseRecord[], capDelta: number | null): ReleaseView[] {
  let cumulativeRho = 0;
  return releases.map((r) => {
    cumulativeRho += r.rho;
    return {
      id: r.id,
      createdAt: r.createdAt,
      status: r.status,
      statusChangedAt: r.statusChangedAt,
      mechanism: r.mechanism,
      epsilon: r.epsilon,
      delta: r.delta,
      rho: r.rho,
      rounds: r.params.rounds,
      perRound: r.params.perRound,
      rows: r.params.rows,
      seedMode: r.seedMode,
      schemaOrigin: r.schema.origin,
      backend: r.backend,
      outputSha256: r.outputSha256 ?? null,
      outputPath: r.outputPath ?? null,
      abortReason: r.abortReason ?? null,
      cumulativeRho,
      cumulativeEpsilon: capDelta === null ? null : epsilonFromRho(cumulativeRho, capDelta),
      unit: unitOf(r.params),
      plan: planOf(r.params),
    };
  });
}
