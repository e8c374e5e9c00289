/**
 * The ledger as the app shows it: a dataset's budget, its releases with the cumulative spend (the
 * Ledger step's ε-over-time chart), the dataset picker's choice, and the whole overview.
 */
import { InputError } from '../core/errors.ts';
import type { BudgetTotals, ReleaseRecord } from '../core/ledger/types.ts';
import { epsilonFromRho } from '../core/privacy/accounting.ts';
import type {
  BudgetView,
  LedgerDatasetChoice,
  LedgerMatchView,
  LedgerOverview,
  ReleaseView,
} from '../shared/api.ts';
import type { AsyncLedger } from './ledger-client.ts';

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

/** Releases in reservation order, each with the cumulative spend after it. */
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

/**
 * The dataset picker (issue 26): which dataset's budget a file spends. `matches` are the known
 * datasets a new file looks like; `datasetName`/`chosen` go into the release spec (the ledger
 * refuses a look-alike file unless chosen); `budget` is the budget the choice spends.
 */
export async function ledgerChoice(
  ledger: AsyncLedger,
  file: {
    readonly fingerprint: string;
    readonly fileName: string;
    readonly rows: number;
    readonly columns: readonly string[];
  },
  choice: LedgerDatasetChoice | undefined,
): Promise<{ matches: LedgerMatchView[]; datasetName: string; chosen: boolean; budget: BudgetView }> {
  // A file the ledger knows spends its own dataset's budget, whatever was picked before.
  if (await ledger.datasetFor(file.fingerprint)) {
    return {
      matches: [],
      datasetName: file.fileName,
      chosen: false,
      budget: await budgetView(ledger, file.fingerprint),
    };
  }
  const similar = await ledger.similarTo({
    fingerprint: file.fingerprint,
    rows: file.rows,
    columns: [...file.columns],
  });
  const matches = similar.map((d) => ({ name: d.name, rows: d.rows }));
  if (choice && 'spend' in choice) {
    const known = (await ledger.datasets()).find(
      (d) => d.name === choice.spend || d.aliases.includes(choice.spend),
    );
    if (!known)
      throw new InputError(`No dataset named "${choice.spend}" in the ledger: choose one it lists.`);
    return {
      matches,
      datasetName: known.name,
      chosen: true,
      budget: budgetFromTotals(await ledger.totals(known.fingerprint)),
    };
  }
  if (choice && 'new' in choice) {
    // A name no known dataset has, so the new dataset is not taken for a known one.
    const taken = new Set((await ledger.datasets()).flatMap((d) => [d.name, ...d.aliases]));
    let name = file.fileName;
    for (let i = 2; taken.has(name); i++) name = `${file.fileName} (${i})`;
    return { matches, datasetName: name, chosen: true, budget: UNREGISTERED_BUDGET };
  }
  return {
    matches,
    datasetName: file.fileName,
    chosen: false,
    budget: await budgetView(ledger, file.fingerprint),
  };
}

/** The Ledger step: every dataset and release. */
export async function ledgerOverview(ledger: AsyncLedger, ledgerPath: string): Promise<LedgerOverview> {
  const datasets = await ledger.datasets();
  return {
    ledgerPath,
    datasets: await Promise.all(
      datasets.map(async (d) => ({
        fingerprint: d.fingerprint,
        name: d.name,
        aliases: [...d.aliases],
        rows: d.rows,
        createdAt: d.createdAt,
        budget: budgetFromTotals(await ledger.totals(d.fingerprint)),
        releases: releaseViews(await ledger.releases({ fingerprint: d.fingerprint }), d.cap?.delta ?? null),
      })),
    ),
  };
}
