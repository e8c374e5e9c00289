/** The Ledger step: the overview, verification, one dataset's timeline, and the export of the whole ledger. */
import { InputError } from '../core/errors.ts';
import { LedgerAnchorError } from '../core/ledger/errors.ts';
import { renderTimeline, type Timeline, timelineCsv } from '../core/release/report/timeline.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import { ledgerOverview } from './ledger-views.ts';

export type LedgerService = Pick<
  Services,
  'ledgerOverview' | 'ledgerVerify' | 'ledgerTimeline' | 'ledgerExport'
>;

export function ledgerService({ ctx, ledger }: AppState): LedgerService {
  return {
    async ledgerOverview() {
      return ledgerOverview(ledger, ctx.ledgerPath);
    },

    async ledgerVerify() {
      // A ledger its anchor refuses is reported as a failed verification, as `ledger verify` does.
      try {
        return await ledger.verify();
      } catch (err) {
        if (!(err instanceof LedgerAnchorError)) throw err;
        return { ok: false, firstBrokenTable: 'anchor', firstBrokenId: err.anchorFile, reason: err.message };
      }
    },

    async ledgerTimeline({ fingerprint, format }) {
      const overview = await ledgerOverview(ledger, ctx.ledgerPath);
      const d = overview.datasets.find((x) => x.fingerprint === fingerprint);
      if (!d) throw new InputError('That dataset is not in the ledger: refresh the Ledger step.');
      const t: Timeline = {
        dataset: d.name,
        rows: d.rows,
        cap:
          d.budget.capEpsilon === null || d.budget.capDelta === null
            ? null
            : { epsilon: d.budget.capEpsilon, delta: d.budget.capDelta },
        spentEpsilon: d.budget.spentEpsilon,
        remainingEpsilon: d.budget.remainingEpsilon,
        releases: d.releases,
        generatedAt: new Date().toISOString(),
      };
      const stem = `${d.name.replace(/\.[^.]*$/, '').replace(/[^\w.-]/g, '_')}.ledger-timeline`;
      return format === 'csv'
        ? { fileName: `${stem}.csv`, text: timelineCsv(t) }
        : { fileName: `${stem}.html`, text: renderTimeline(t) };
    },

    async ledgerExport({ format }) {
      return { fileName: `rap-studio-ledger.${format}`, text: await ledger.export(format) };
    },
  };
}
