/** The Ledger step: every dataset and release, with cumulative spend for the ε-over-time chart. */
import type { Ledger } from '../core/ledger/ledger.ts';
import type { LedgerOverview } from '../shared/api.ts';
import { budgetFromTotals, releaseViews } from './views.ts';

export function ledgerOverview(ledger: Ledger): LedgerOverview {
  return {
    ledgerPath: ledger.file,
    datasets: ledger.datasets().map((d) => {
      const totals = ledger.totals(d.fingerprint);
      return {
        fingerprint: d.fingerprint,
        name: d.name,
        aliases: [...d.aliases],
        rows: d.rows,
        createdAt: d.createdAt,
        budget: budgetFromTotals(totals),
        releases: releaseViews(ledger.releases({ fingerprint: d.fingerprint }), d.cap?.delta ?? null),
      };
    }),
  };
}
