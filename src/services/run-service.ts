/**
 * The Privacy, Run and Results steps: the plan a run would follow, the budget cap, starting and
 * cancelling the run (runs.ts), and the Results step's views of a finished run.
 */

import { InputError } from '../core/errors.ts';
import { parseDelta, parseEpsilon } from '../core/input/numbers.ts';
import { defaultDelta } from '../core/privacy/accounting.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import type { OpenedDataset } from './datasets.ts';
import { budgetFromTotals, ledgerChoice } from './ledger-views.ts';
import { marginalView, resultsView } from './results-step.ts';
import { runView } from './runs.ts';
import { planView } from './settings.ts';
import { resolveWorkload } from './workloads.ts';

/** What the ledger's dataset picker needs of an opened file (all of it the ledger holds anyway). */
function fileFacts(ds: OpenedDataset) {
  return {
    fingerprint: ds.loaded.fingerprint,
    fileName: ds.fileName,
    rows: ds.loaded.summary.rowsRead,
    columns: ds.schema.columns.map((c) => c.name),
  };
}

export type RunService = Pick<
  Services,
  'runPlan' | 'setCap' | 'startRun' | 'runState' | 'cancelRun' | 'results' | 'marginalCompare'
>;

export function runService(state: AppState): RunService {
  const { datasets, ledger } = state;
  return {
    async runPlan({ datasetId, settings }) {
      const ds = datasets.get(datasetId);
      let workload: Parameters<typeof planView>[0]['workload'];
      if (ds.workloads.main.length === 0) {
        workload = { problem: 'The workload has no thresholds: add some on the Workload step.' };
      } else {
        try {
          workload = resolveWorkload(ds.workloads.main, ds.schema);
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          workload = { problem: `The workload does not fit the schema: ${err.message}` };
        }
      }
      const choice = await ledgerChoice(ledger, fileFacts(ds), settings.ledgerDataset);
      return planView({
        settings,
        fileName: ds.fileName,
        schema: ds.schema,
        n: ds.loaded.summary.rowsRead,
        workload,
        budget: choice.budget,
        busy: state.runs().busy,
        ledgerMatches: choice.matches,
        headerGuessed: ds.headerGuessed,
        overLimit: ds.loaded.summary.overLimit,
      });
    },

    async setCap({ datasetId, epsilon, delta, ledgerDataset, unitColumn }) {
      const ds = datasets.get(datasetId);
      const eps = parseEpsilon('The cap ε', epsilon);
      const n = ds.loaded.summary.rowsRead;
      const d =
        delta === undefined || delta.trim() === ''
          ? defaultDelta(Math.max(2, n))
          : parseDelta('The cap δ', delta);
      // The dataset picker's choice (a look-alike of a known dataset is refused without one).
      const choice = await ledgerChoice(ledger, fileFacts(ds), ledgerDataset);
      const known = await ledger.ensureDataset({
        fingerprint: ds.loaded.fingerprint,
        name: choice.datasetName,
        rows: n,
        columns: fileFacts(ds).columns,
        chosen: choice.chosen,
      });
      // The unit is fixed with the cap: per person (the column) or per row (docs/privacy.md).
      const unit = unitColumn === undefined || unitColumn.trim() === '' ? undefined : unitColumn;
      await ledger.setCap(known.fingerprint, eps, d, unit);
      return budgetFromTotals(await ledger.totals(known.fingerprint));
    },

    async startRun({ datasetId, settings }) {
      const ds = datasets.get(datasetId);
      const choice = await ledgerChoice(ledger, fileFacts(ds), settings.ledgerDataset);
      return runView(
        await state.runs().start(ds, settings, { name: choice.datasetName, chosen: choice.chosen }),
      );
    },

    async runState() {
      const run = state.startedRuns()?.latest;
      return run ? runView(run) : null;
    },

    async cancelRun() {
      const run = state.startedRuns()?.cancel();
      return run ? runView(run) : null;
    },

    async results({ runId }) {
      return resultsView(state.runs().get(runId));
    },

    async marginalCompare({ runId, features }) {
      const run = state.runs().get(runId);
      return marginalView(run, features, state.store.csvPath(run.releaseId));
    },
  };
}
