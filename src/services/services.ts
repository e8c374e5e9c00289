/**
 * The main-side services: plain TypeScript that both the Electron main process and the web
 * host run. Each method implements one entry of the typed API in src/shared/api.ts; arguments
 * arrive already shape-checked (dispatch.ts), and every problem a curator can fix is an
 * InputError whose message says what to do.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { type Column, SCHEMA_VERSION, type Schema } from '../core/data/schema.ts';
import { confirmSchema as confirmedSchema, parseSchemaJson, schemaToJson } from '../core/data/schema-file.ts';
import { provenanceOf } from '../core/discovery/not-dp.ts';
import { InputError } from '../core/errors.ts';
import { BACKENDS } from '../core/input/choices.ts';
import { parseDelta, parseEpsilon } from '../core/input/numbers.ts';
import { LedgerAnchorError, LedgerError } from '../core/ledger/errors.ts';
import { defaultDelta } from '../core/privacy/accounting.ts';
import { outputNotWritten } from '../core/release/messages.ts';
import { PendingWrites, pendingDirFor } from '../core/release/pending-writes.ts';
import { renderPrivateReport } from '../core/release/report/index.ts';
import { renderTimeline, type Timeline, timelineCsv } from '../core/release/report/timeline.ts';
import { APP_VERSION } from '../core/version.ts';
import { parseWorkloadJson, workloadToJson } from '../core/workload/workload.ts';
import type {
  ApiArg,
  ApiMethod,
  ApiResult,
  AppInfo,
  BudgetView,
  SchemaInput,
  WorkloadRole,
  WorkloadView,
} from '../shared/api.ts';
import type { ServiceContext } from './context.ts';
import {
  applySchema,
  datasetView,
  histogram,
  type OpenedDataset,
  openDataset,
  unitHints,
  withCategoryLimit,
} from './datasets.ts';
import { exportStored, reportDataOf } from './exporter.ts';
import { type AsyncLedger, LEDGER_METHODS, LedgerClient } from './ledger-client.ts';
import { ledgerOverview } from './ledger-views.ts';
import { ResultStore } from './result-store.ts';
import { marginalView, resultsView } from './results.ts';
import { RunManager, runView } from './runs.ts';
import { planView } from './settings.ts';
import { budgetFromTotals, budgetView, ledgerChoice, UNREGISTERED_BUDGET } from './views.ts';

/** What the ledger's dataset picker needs of an opened file (all of it the ledger holds anyway). */
function fileFacts(ds: OpenedDataset) {
  return {
    fingerprint: ds.loaded.fingerprint,
    fileName: ds.fileName,
    rows: ds.loaded.summary.rowsRead,
    columns: ds.schema.columns.map((c) => c.name),
  };
}

import {
  allSubsets,
  defaultThresholds,
  driftedThresholds,
  namedThresholds,
  randomThresholds,
  resolveWorkload,
  workloadView,
} from './workloads.ts';

export type Services = { [M in ApiMethod]: (arg: ApiArg<M>) => Promise<ApiResult<M>> };

/** Datasets kept open at once (each holds encoded private rows in memory). */
const MAX_OPEN = 4;

function installed(pkg: string): boolean {
  try {
    createRequire(import.meta.url).resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

function backendInfo(): Pick<AppInfo, 'backend' | 'backends'> {
  const gpu = installed('@tensorflow/tfjs-node-gpu');
  const node = installed('@tensorflow/tfjs-node');
  const present: Record<(typeof BACKENDS)[number], boolean> = {
    cpu: true,
    wasm: true,
    node,
    'node-gpu': gpu,
    webgpu: installed('webgpu'),
  };
  const backends = ['auto', ...BACKENDS.filter((b) => present[b])];
  const cpu = `cpu (typed arrays, ${availableParallelism()} threads)`;
  const backend = gpu
    ? 'node-gpu (GPU) if a device is present, else cpu'
    : present.webgpu
      ? `webgpu on a hardware GPU that passes its self-check, else ${node ? 'node (CPU native)' : cpu}`
      : node
        ? 'node (CPU native)'
        : cpu;
  return { backend, backends };
}

/**
 * The schema editor's result, by one rule: a column is DECLARED (used exactly, free) only when the
 * curator supplied its whole domain — typed or pasted afresh in the editor's "Declare…" (sent as
 * `declare: true`), imported from a schema file, or declared before. A column read off the data
 * stays read off the data however it is edited (one edge moved, one category removed: its other
 * values are still the data's), and needs discovery or the non-DP override (issue 17: confirming
 * an inferred schema does not make it declared either).
 */
function editedSchema(input: SchemaInput, previous: Schema): Schema {
  const fromData = previous.origin === 'inferred' || previous.confirmedFromInferred === true;
  const text = JSON.stringify({
    version: SCHEMA_VERSION,
    origin: 'declared',
    ...(fromData ? { confirmedFromInferred: true } : {}),
    columns: input.columns.map(({ declare: _, ...c }) => c),
  });
  const parsed = parseSchemaJson(text, 'the edited schema');
  if (!fromData) return parsed;
  const before = new Map(previous.columns.map((c) => [c.name, c]));
  const columns = parsed.columns.map((c, j): Column => {
    const old = before.get(c.name);
    const declared =
      !old || input.columns[j]?.declare === true || provenanceOf(previous, old).source === 'declared';
    return { ...c, provenance: declared ? { source: 'declared' } : { source: 'not-dp' } };
  });
  return { ...parsed, columns };
}

export function createServices(ctx: ServiceContext): Services {
  const datasets = new Map<string, OpenedDataset>();
  /**
   * Desktop app: the paths the native file dialog returned. openDataset opens only those, so a
   * page that ran foreign script could not make the app read any file by path. (Web mode opens
   * only uploads, upload-guard.ts.)
   */
  const picked = new Set<string>();
  let currentId: string | undefined;
  /** Finished releases until exported or discarded: beside the ledger unless given. */
  const store = new ResultStore(ctx.resultsDir ?? join(dirname(ctx.ledgerPath), 'results'));
  // Temp files an export crashed in the middle of writing (core/release/pending-writes.ts).
  void new PendingWrites(pendingDirFor(ctx.ledgerPath))
    .sweep()
    .then((removed) => {
      if (removed.length > 0)
        (ctx.log ?? (() => {}))(`removed ${removed.length} temp file(s) of an interrupted export`);
    })
    .catch(() => undefined);
  /**
   * The ledger runs in a worker thread (ledger-client.ts): a lock wait blocks the worker, never
   * this event loop. Opened on first use; a failed open (anchor refused, read-only…) is retried
   * on the next call.
   */
  let client: Promise<LedgerClient> | undefined;
  const open = (): Promise<LedgerClient> => {
    client ??= LedgerClient.open(ctx.ledgerPath, {
      ...(ctx.ledgerWorker ? { entry: ctx.ledgerWorker } : {}),
      onWarning: (m) => (ctx.log ?? ((x: string) => process.stderr.write(`${x}\n`)))(m),
    }).catch((err: unknown) => {
      client = undefined;
      throw err;
    });
    return client;
  };
  const ledger = Object.fromEntries(
    LEDGER_METHODS.map((m) => [
      m,
      async (...args: unknown[]) =>
        ((await open()).ledger[m] as (...a: unknown[]) => Promise<unknown>)(...args),
    ]),
  ) as unknown as AsyncLedger;
  let runsHandle: RunManager | undefined;
  const runs = (): RunManager => {
    runsHandle ??= new RunManager(ctx, ledger, store);
    return runsHandle;
  };
  const dataset = (id: string): OpenedDataset => {
    const ds = datasets.get(id);
    if (!ds) throw new InputError('That dataset is no longer open: open the file again on the Data step.');
    return ds;
  };
  /**
   * A dataset opens even when the ledger cannot be used (locked, read-only, rolled back…): its
   * budget then shows as unknown, and the run is refused with the ledger's own message.
   */
  const view = async (ds: OpenedDataset) => {
    let budget: BudgetView;
    try {
      budget = await budgetView(ledger, ds.loaded.fingerprint);
    } catch (err) {
      if (!(err instanceof LedgerError)) throw err;
      budget = UNREGISTERED_BUDGET;
    }
    return datasetView(ds, budget);
  };
  const workloadOf = (ds: OpenedDataset, role: WorkloadRole): WorkloadView => {
    const list = ds.workloads[role];
    return workloadView(role, list.length > 0 ? resolveWorkload(list, ds.schema) : null, ds.schema);
  };
  const storeWorkload = (
    ds: OpenedDataset,
    role: WorkloadRole,
    w: ReturnType<typeof resolveWorkload> | null,
  ) => {
    ds.workloads[role] = w ? namedThresholds(w, ds.schema) : [];
    return workloadView(role, w, ds.schema);
  };
  /** Workloads stay valid across schema edits, or the edit says which threshold breaks. */
  const revalidate = (ds: OpenedDataset, schema: Schema) => {
    for (const role of ['main', 'eval'] as const) {
      if (ds.workloads[role].length > 0)
        resolveWorkload(ds.workloads[role], schema, `the ${role === 'main' ? '' : 'evaluation '}workload`);
    }
  };

  return {
    async appInfo() {
      return { version: APP_VERSION, mode: ctx.mode, ledgerPath: ctx.ledgerPath, ...backendInfo() };
    },

    async session() {
      const ds = currentId ? datasets.get(currentId) : undefined;
      const run = runsHandle?.latest;
      const safe = <T>(fn: () => T): T | null => {
        try {
          return fn();
        } catch {
          return null;
        }
      };
      return {
        dataset: ds ? await view(ds) : null,
        workload: ds ? safe(() => workloadOf(ds, 'main')) : null,
        evalWorkload: ds ? safe(() => workloadOf(ds, 'eval')) : null,
        run: run ? runView(run) : null,
      };
    },

    async pickFile() {
      if (!ctx.dialogs) {
        throw new InputError(
          'There is no file dialog in web mode: choose the file with the file picker or drop it on the page.',
        );
      }
      const path = await ctx.dialogs.openFile({
        title: 'Open a CSV file',
        filters: [
          { name: 'CSV', extensions: ['csv', 'data', 'txt', 'tsv'] },
          { name: 'All files', extensions: ['*'] },
        ],
      });
      if (path !== null) picked.add(path);
      return path === null ? null : { path, name: path.split(/[\\/]/).pop() ?? path };
    },

    async openDataset(arg) {
      if (ctx.mode === 'electron' && !picked.has(arg.path)) {
        throw new InputError(
          'Open files with "Open CSV…": only a file chosen in the file dialog can be opened.',
        );
      }
      const ds = await openDataset(ctx, arg);
      datasets.set(ds.id, ds);
      currentId = ds.id;
      const ids = [...datasets.keys()];
      for (const id of ids.slice(0, Math.max(0, ids.length - MAX_OPEN))) datasets.delete(id);
      return view(ds);
    },

    async setHeader({ datasetId, header }) {
      const ds = dataset(datasetId);
      if (header === 'yes' && ds.loaded.summary.hasHeader) {
        ds.headerGuessed = false;
        return view(ds);
      }
      // The file read again as the curator says: the columns (so the schema and workloads) change.
      const again = await openDataset(ctx, { path: ds.path, name: ds.fileName, header });
      const next = { ...again, id: ds.id };
      datasets.set(ds.id, next);
      return view(next);
    },

    async histogram({ datasetId, column }) {
      return histogram(dataset(datasetId), column);
    },

    async unitHints({ datasetId }) {
      return unitHints(dataset(datasetId));
    },

    async setCategoryLimit({ datasetId, column, limit }) {
      const next = await withCategoryLimit(ctx, dataset(datasetId), column, limit);
      datasets.set(datasetId, next);
      return view(next);
    },

    async setSchema({ datasetId, schema }) {
      const ds = dataset(datasetId);
      const next = editedSchema(schema, ds.schema);
      revalidate(ds, next);
      await applySchema(ctx, ds, next);
      return view(ds);
    },

    async importSchema({ datasetId, text, fileName }) {
      const ds = dataset(datasetId);
      const next = parseSchemaJson(text, fileName ?? 'the schema file');
      revalidate(ds, next);
      await applySchema(ctx, ds, next);
      return view(ds);
    },

    async exportSchema({ datasetId }) {
      const ds = dataset(datasetId);
      return {
        fileName: `${ds.fileName.replace(/\.[^.]*$/, '')}.schema.json`,
        text: schemaToJson(ds.schema),
      };
    },

    async confirmSchema({ datasetId }) {
      const ds = dataset(datasetId);
      ds.schema = confirmedSchema(ds.schema);
      return view(ds);
    },

    async setWorkload({ datasetId, role, thresholds }) {
      const ds = dataset(datasetId);
      return storeWorkload(ds, role, thresholds.length > 0 ? resolveWorkload(thresholds, ds.schema) : null);
    },

    async importWorkload({ datasetId, role, text, fileName }) {
      const ds = dataset(datasetId);
      return storeWorkload(ds, role, parseWorkloadJson(text, ds.schema, fileName ?? 'the workload file'));
    },

    async exportWorkload({ datasetId, role }) {
      const ds = dataset(datasetId);
      if (ds.workloads[role].length === 0)
        throw new InputError('The workload is empty: add thresholds before exporting it.');
      const w = resolveWorkload(ds.workloads[role], ds.schema);
      const stem = ds.fileName.replace(/\.[^.]*$/, '');
      return {
        fileName: `${stem}.${role === 'main' ? 'workload' : 'eval-workload'}.json`,
        text: workloadToJson(w, ds.schema),
      };
    },

    async allSubsets({ datasetId, ...o }) {
      return allSubsets(dataset(datasetId).schema, o);
    },

    async defaultThresholds({ datasetId, target }) {
      return defaultThresholds(dataset(datasetId).schema, target);
    },

    async randomThresholds({ datasetId, ...o }) {
      return randomThresholds(dataset(datasetId).schema, o);
    },

    async driftedThresholds({ datasetId, ...o }) {
      const ds = dataset(datasetId);
      const history =
        ds.workloads.main.length > 0 ? resolveWorkload(ds.workloads.main, ds.schema) : { thresholds: [] };
      return driftedThresholds(ds.schema, history, o);
    },

    async runPlan({ datasetId, settings }) {
      const ds = dataset(datasetId);
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
        busy: runs().busy,
        ledgerMatches: choice.matches,
        headerGuessed: ds.headerGuessed,
        overLimit: ds.loaded.summary.overLimit,
      });
    },

    async setCap({ datasetId, epsilon, delta, ledgerDataset, unitColumn }) {
      const ds = dataset(datasetId);
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
      const ds = dataset(datasetId);
      const choice = await ledgerChoice(ledger, fileFacts(ds), settings.ledgerDataset);
      return runView(await runs().start(ds, settings, { name: choice.datasetName, chosen: choice.chosen }));
    },

    async runState() {
      const run = runsHandle?.latest;
      return run ? runView(run) : null;
    },

    async cancelRun() {
      const run = runsHandle?.cancel();
      return run ? runView(run) : null;
    },

    async results({ runId }) {
      return resultsView(runs().get(runId));
    },

    async marginalCompare({ runId, features }) {
      const run = runs().get(runId);
      return marginalView(run, features, runs().store.csvPath(run.releaseId));
    },

    async exportRun({ runId, fileName }) {
      const live = runs().find(runId);
      if (!live) {
        // A release from an earlier start, kept in the result store.
        const stored = (await store.list()).find((s) => s.run.runId === runId);
        if (!stored) throw new InputError(`No run with id ${runId}: start a run on the Run step.`);
        return exportStored(ctx, ledger, store, stored, fileName);
      }
      const { state } = live;
      if (state.status === 'exported') return { written: true, ...state.exported };
      if (state.status !== 'finished') {
        throw new InputError(
          'This run has no synthetic data to export: it has not finished. Export a finished run.',
        );
      }
      // An output the store could not take when the run finished is stored now, or not exported.
      const stored = state.stored ?? (await runs().keep(live, state.finished));
      if (!stored) {
        throw outputNotWritten('app', 'synthetic data', store.dir, live.releaseId, new Error('not stored'));
      }
      const outcome = await exportStored(ctx, ledger, store, stored, fileName);
      if (outcome.written && live.state.status === 'finished') {
        live.state = { status: 'exported', finished: state.finished, exported: outcome };
        ctx.emit({ type: 'run-update', run: runView(live) });
      }
      return outcome;
    },

    async pendingReleases() {
      const views = (await store.list())
        .filter((s) => s.exported === null)
        .map((s) => {
          const live = runsHandle?.find(s.run.runId);
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
      const stored = (await store.list()).find((s) => s.run.runId === runId);
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
      const stored = (await store.list()).find((s) => s.run.runId === runId);
      if (!stored) throw new InputError(`No finished release for run ${runId} is waiting for export.`);
      if (stored.exported)
        throw new InputError(
          `Release ${stored.releaseId} was exported already: there is nothing to discard.`,
        );
      await store.discard(stored.releaseId);
      try {
        await ledger.abort(stored.releaseId, 'output discarded by the curator');
      } catch {
        // already ended in the ledger: the spend is counted either way
      }
      const live = runsHandle?.find(runId);
      const message = `The synthetic data of release ${stored.releaseId} was discarded. Its privacy budget stays spent: the ledger keeps counting it.`;
      if (live) {
        live.state = { status: 'cancelled', error: { kind: 'cancelled', message } };
        ctx.emit({ type: 'run-update', run: runView(live) });
      }
      return { releaseId: stored.releaseId, message };
    },

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
