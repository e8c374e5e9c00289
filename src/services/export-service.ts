/**
 * The Export step: finished releases kept in the result store until the curator exports one
 * (exporter.ts writes it; the rules of the lifecycle are core's, core/release/kept-output.ts) or
 * discards it, and the private report of a kept release.
 */
import { InputError } from '../core/errors.ts';
import { discardOutput, exportOutput, type OutputStage } from '../core/release/kept-output.ts';
import { outputNotWritten } from '../core/release/messages.ts';
import { renderPrivateReport } from '../core/release/report/index.ts';
import type { ExportOutcome } from '../shared/api.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import { exportStored, reportDataOf } from './exporter.ts';
import type { StoredRelease } from './finished-release-store.ts';
import { type RunRecord, runView } from './runs.ts';

export type ExportService = Pick<
  Services,
  'exportRun' | 'pendingReleases' | 'keptReleases' | 'releaseReport' | 'discardRun'
>;

function stageOf(run: RunRecord): OutputStage<StoredRelease, ExportOutcome> {
  const { state } = run;
  if (state.status === 'exported')
    return { status: 'exported', outcome: { written: true, ...state.exported } };
  if (state.status === 'finished') return { status: 'finished', kept: state.stored };
  return { status: 'not-finished' };
}

export function exportService(state: AppState): ExportService {
  const { ctx, ledger, store } = state;
  const storedRelease = async (runId: string) => (await store.list()).find((s) => s.run.runId === runId);
  return {
    async exportRun({ runId, fileName }) {
      const live = state.startedRuns()?.find(runId);
      if (!live) {
        // A release from an earlier start, kept in the result store.
        const stored = await storedRelease(runId);
        if (!stored) throw new InputError(`No run with id ${runId}: start a run on the Run step.`);
        return exportStored(ctx, ledger, store, stored, fileName);
      }
      const finished = live.state.status === 'finished' ? live.state.finished : undefined;
      const { outcome, first } = await exportOutput(stageOf(live), {
        // An output the store could not take when the run finished is stored now, or not exported.
        keep: () => state.runs().keep(live, finished!),
        notKept: () =>
          outputNotWritten('app', 'synthetic data', store.dir, live.releaseId, new Error('not stored')),
        publish: (stored) => exportStored(ctx, ledger, store, stored, fileName),
      });
      if (first && outcome.written && finished && live.state.status === 'finished') {
        live.state = { status: 'exported', finished, exported: outcome };
        ctx.emit({ type: 'run-update', run: runView(live) });
      }
      return outcome;
    },

    async pendingReleases() {
      const views = (await store.list())
        .filter((s) => s.exported === null)
        .map((s) => {
          const live = state.startedRuns()?.find(s.run.runId);
          return live ? runView(live) : s.run;
        })
        .filter((v) => v.status === 'finished');
      return views.reverse();
    },

    async keptReleases() {
      const kept = await store.list();
      return kept.map((s) => ({ ...s.run, exported: s.exported })).reverse();
    },

    async releaseReport({ runId }) {
      // The stored release (this session's or an earlier one's): its kept report, not the live run.
      const stored = await storedRelease(runId);
      if (!stored) {
        throw new InputError(
          `No stored release for run ${runId}: its report is kept once the run has finished and been saved.`,
        );
      }
      const data = reportDataOf(stored);
      return {
        runId,
        releaseId: stored.releaseId,
        datasetName: stored.run.datasetName,
        data,
        privateHtml: data ? renderPrivateReport(data) : null,
      };
    },

    async discardRun({ runId }) {
      const stored = await storedRelease(runId);
      if (!stored) throw new InputError(`No finished release for run ${runId} is waiting for export.`);
      const discarded = await discardOutput(
        { releaseId: stored.releaseId, exported: stored.exported !== null },
        {
          remove: (id) => store.discard(id),
          abort: async (id, reason) => {
            await ledger.abort(id, reason);
          },
        },
      );
      const live = state.startedRuns()?.find(runId);
      if (live) {
        live.state = { status: 'cancelled', error: { kind: 'cancelled', message: discarded.message } };
        ctx.emit({ type: 'run-update', run: runView(live) });
      }
      return discarded;
    },
  };
}
