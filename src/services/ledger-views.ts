/** The Ledger step: every dataset and release, with cumulative spend for the ε-over-time chart. */
import type { LedgerOverview } from '../shared/api.ts';
import type { AsyncLedger } from './ledger-client.ts';
import { budgetFromTotals, releaseViews } from './views.ts';

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
