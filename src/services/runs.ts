/**
 * Runs from the app, through the one release pipeline (src/core/release/release.ts): prepare,
 * validate and reserve are awaited (a refusal is the caller's error), the engine runs in the
 * background, and its output is decoded once and written to the result store (finished-release-store.ts)
 * BEFORE the run is shown as finished; it waits there — across restarts — until the curator
 * exports it (exporter.ts) or discards it. A failure or cancel marks the release aborted; its
 * spend stays counted. The run's state, progress history included, lives here, so a reloaded
 * renderer finds it again.
 *
 * One start at a time: the start is recorded synchronously, before the first await, so two Run
 * requests at the same instant (two tabs, a double click, a reload while reserving) make one
 * reservation, and a start can be cancelled before it reserves.
 */
import { randomUUID } from 'node:crypto';
import type { Schema } from '../core/data/schema.ts';
import type { ProgressEvent } from '../core/engine/types.ts';
import { InputError } from '../core/errors.ts';
import { ReleaseAbortedError, type ReleaseWarningCode } from '../core/release/messages.ts';
import { writeSyntheticCsv } from '../core/release/output.ts';
import { describeUnit, workloadWithoutUnit } from '../core/release/person.ts';
import type { LedgerPort } from '../core/release/release.ts';
import * as release from '../core/release/release.ts';
import { buildReportData } from '../core/release/report/index.ts';
import { dataSource, releaseSpec } from '../core/release/spec.ts';
import type { Workload } from '../core/workload/types.ts';
import type {
  ApiErrorPayload,
  ExportView,
  ProgressPoint,
  RunSettingsInput,
  RunStatus,
  RunView,
} from '../shared/api.ts';
import { isActiveStatus } from '../shared/constants.ts';
import { keptSchema, keptWorkload, undecidedColumns, undecidedReason } from './columns.ts';
import { namedAs, type OpenedDataset } from './datasets.ts';
import { manifestFields } from './exporter.ts';
import type { ResultStore, StoredRelease } from './finished-release-store.ts';
import type { ServiceContext } from './service-context.ts';
import { domainPlan, INSECURE_SEED_NOTE, type ParsedSettings, parseSettings } from './settings.ts';
import { resolveWorkload } from './workloads.ts';

/** Progress samples kept per run; older ones are thinned, so long runs stay cheap to restore. */
const MAX_HISTORY = 4000;

/** Warnings the app's screens show already (InferredNotice, the Data step's rejected rows). */
const SHOWN_ELSEWHERE: readonly ReleaseWarningCode[] = ['schema-from-data', 'rows-kept-missing'];

/** Where a run is; a finished or exported run always has its result. */
export type RunState =
  | { readonly status: 'loading' }
  | { readonly status: 'running'; readonly enginePid: number | null }
  | {
      readonly status: 'finished';
      readonly finished: release.Finished;
      readonly stored: StoredRelease | null;
    }
  | { readonly status: 'exported'; readonly finished: release.Finished; readonly exported: ExportView }
  | { readonly status: 'failed' | 'cancelled'; readonly error: ApiErrorPayload };

/**
 * What a run names of its source: an opened file (OpenedDataset), or a database source
 * (database-runs.ts), whose `path` is its location (no rows in the app, nothing to read again).
 */
export interface RunDataset {
  readonly id: string;
  readonly fileName: string;
  readonly path: string;
  readonly database?: true;
}

/** A run and everything the Results and Export steps need afterwards (private: never sent whole). */
export interface RunRecord {
  readonly id: string;
  readonly dataset: RunDataset;
  readonly prepared: release.Prepared;
  readonly releaseId: string;
  readonly startedAt: string;
  readonly warnings: readonly string[];
  readonly controller: AbortController;
  state: RunState;
  endedAt: string | null;
  history: ProgressPoint[];
}

export function isActive(run: RunRecord | undefined): boolean {
  return run !== undefined && isActiveStatus(run.state.status);
}

/** The run's result, when it has one. */
export function finishedOf(run: RunRecord): release.Finished | undefined {
  return 'finished' in run.state ? run.state.finished : undefined;
}

export function runView(r: RunRecord): RunView {
  const o = r.prepared.options;
  const { state } = r;
  return {
    runId: r.id,
    releaseId: r.releaseId,
    datasetId: r.dataset.id,
    datasetName: r.dataset.fileName,
    status: state.status as RunStatus,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    // One ε on every screen: the one the curator chose (with discovery the engine runs on
    // synthesis's part of its ρ, whose own ε is smaller; see the Results step's report).
    epsilon: r.prepared.spec.epsilon,
    delta: r.prepared.delta,
    rho: r.prepared.request.rho,
    rounds: r.prepared.plan.rounds,
    perRound: r.prepared.plan.perRound,
    rows: o.rows,
    oversample: o.oversample,
    mode: o.mode,
    seedMode: r.prepared.spec.noise.mode,
    backendRequested: o.backend ?? 'auto',
    backend: finishedOf(r)?.result.report.backend ?? null,
    backendNote: finishedOf(r)?.result.report.backendNote ?? null,
    enginePid: state.status === 'running' ? state.enginePid : null,
    history: r.history,
    error: 'error' in state ? state.error : null,
    warnings: r.warnings,
    exported: state.status === 'exported' ? state.exported : null,
    unit: unitStatement(r),
  };
}

/** The unit of privacy in words, for the Run, Results and Export screens. */
function unitStatement(r: RunRecord): string {
  const person = finishedOf(r)?.person;
  if (person) return describeUnit(person);
  const unit = r.prepared.unit;
  return unit ? `person, identified by column ${unit.spec.column}` : 'one row';
}

function thin(history: ProgressPoint[]): ProgressPoint[] {
  if (history.length <= MAX_HISTORY) return history;
  return history.filter(
    (p, i) => i % 2 === 0 || i === history.length - 1 || p.round !== history[i - 1]?.round,
  );
}

/** What the app's release reads of an opened dataset (public: its path, name, schema, workloads). */
export interface AppReleaseInputs {
  readonly path: string;
  readonly fileName: string;
  readonly schema: Schema;
  readonly header: boolean;
  readonly workload: Workload;
  readonly evalWorkload?: Workload;
  /** The dataset picker's answer (views.ts, ledgerChoice); default the file's own, not chosen. */
  readonly ledgerDataset?: { readonly name: string; readonly chosen: boolean };
}

/**
 * The app's release spec, by the spec module the CLI uses (core/release/spec.ts). In a schema
 * read off the data (inferred, confirmed or edited), the columns the curator did not declare
 * (edit in the schema editor) are discovered privately at release (the default), or, when the
 * curator chose so, released over as read: the release refuses that before any reservation
 * unless the curator ticked the override (the CLI's --allow-non-private-domain). Either way a
 * declared column that cannot hold a record is refused before the reservation.
 */
export function appReleaseSpec(ds: AppReleaseInputs, parsed: ParsedSettings): release.ReleaseSpec {
  const source = dataSource({
    path: ds.path,
    schema: ds.schema,
    header: ds.header,
    undeclared: domainPlan(ds.schema, parsed.domain) === 'discover' ? 'discover' : 'as-read',
    ...(parsed.hierarchies && { hierarchies: parsed.hierarchies }),
  });
  return releaseSpec(parsed, {
    source,
    datasetName: ds.ledgerDataset?.name ?? ds.fileName,
    datasetChosen: ds.ledgerDataset?.chosen === true,
    workload: ds.workload,
    columns: ds.schema.columns.length,
    ...(ds.evalWorkload && { evalWorkload: ds.evalWorkload }),
    allowNonPrivateDomain: parsed.allowNonPrivateDomain,
    ...(parsed.unit && { unit: parsed.unit }),
  });
}

export class RunManager {
  private current: RunRecord | undefined;
  private readonly byId = new Map<string, RunRecord>();
  /** A start under way (before its record exists): set before the first await. */
  private starting: AbortController | undefined;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly ledger: LedgerPort,
    readonly store: ResultStore,
  ) {}

  get latest(): RunRecord | undefined {
    return this.current;
  }

  get busy(): boolean {
    return this.starting !== undefined || isActive(this.current);
  }

  /** This session's run, if it is still in memory. */
  find(runId: string): RunRecord | undefined {
    return this.byId.get(runId);
  }

  get(runId: string): RunRecord {
    const run = this.byId.get(runId);
    if (!run) throw new InputError(`No run with id ${runId} in this session: start a run on the Run step.`);
    return run;
  }

  /** Stages 1–3, awaited (so a refusal is the caller's error); stage 4 goes on in the background. */
  async start(
    ds: OpenedDataset,
    settings: RunSettingsInput,
    /** The dataset picker's answer: the ledger dataset this file spends (views.ts, ledgerChoice). */
    ledgerDataset: { readonly name: string; readonly chosen: boolean } = { name: ds.fileName, chosen: false },
  ): Promise<RunRecord> {
    if (this.busy) throw new InputError('A run is in progress: wait for it to finish or cancel it.');
    // Synchronously, before any await: a second request now finds the app busy.
    const starting = new AbortController();
    this.starting = starting;
    try {
      return await this.startReserving(ds, settings, starting.signal, ledgerDataset);
    } finally {
      this.starting = undefined;
    }
  }

  private async startReserving(
    ds: OpenedDataset,
    settings: RunSettingsInput,
    signal: AbortSignal,
    ledgerDataset: { readonly name: string; readonly chosen: boolean },
  ): Promise<RunRecord> {
    const { parsed, problems } = parseSettings(settings);
    if (!parsed) throw new InputError(problems[0].message, { field: problems[0].field });
    if (ds.headerGuessed) {
      throw new InputError(
        `${ds.fileName}: line 1 was taken for the column names by a guess; RAP Studio publishes column ` +
          'names only when you say the row holds them (a record taken for a header would be published). ' +
          'Answer "Does line 1 name the columns?" on the Data step. Nothing was reserved.',
        { field: 'header' },
      );
    }
    if (ds.workloads.main.length === 0) {
      throw new InputError('The workload has no thresholds: add some on the Workload step.');
    }
    // One person, several rows: the identifier column is no column of the release (never
    // released, never in the workload: a threshold on it is refused), release/person.ts.
    // Columns left out (the Schema step) are no columns of the release either; one set aside for
    // its category limit waits until the curator says what it is.
    const unit = parsed.unit;
    const overLimit = ds.loaded.summary.overLimit;
    const undecided = undecidedColumns(overLimit, parsed.columns, unit?.column);
    if (undecided.length > 0)
      throw new InputError(undecidedReason(ds.fileName, undecided), { field: 'schema' });
    const kept = keptSchema(ds.schema, parsed.columns);
    const unitIndex = unit ? kept.columns.findIndex((c) => c.name === unit.column) : -1;
    if (unit && unitIndex < 0 && !overLimit.some((o) => o.column === unit.column)) {
      throw new InputError(
        `${ds.fileName}: no column named "${unit.column}": choose the column that identifies a person.`,
      );
    }
    const schema =
      unitIndex >= 0 ? { ...kept, columns: kept.columns.filter((_, i) => i !== unitIndex) } : kept;
    const resolved = (w: typeof ds.workloads.main) => {
      const r = keptWorkload(resolveWorkload(w, ds.schema), ds.schema, parsed.columns);
      return unitIndex >= 0 && unit ? workloadWithoutUnit(r, unitIndex, unit.column) : r;
    };
    const spec = appReleaseSpec(
      {
        path: ds.path,
        fileName: ds.fileName,
        schema,
        header: ds.loaded.summary.hasHeader,
        workload: resolved(ds.workloads.main),
        ...(ds.workloads.eval.length > 0 && { evalWorkload: resolved(ds.workloads.eval) }),
        ledgerDataset,
      },
      parsed,
    );
    return this.launch(ds, spec, signal, {
      check: (prepared) => {
        if (prepared.facts.fingerprint !== ds.loaded.fingerprint) {
          throw new InputError(`${ds.fileName}: the file changed since it was opened; open it again.`);
        }
      },
    });
  }

  /**
   * A release from a database source (database-runs.ts builds its spec; its ledger identity is
   * keyed with `ledgerKey`): the same stages as a file's, one start at a time.
   */
  async startDatabase(dataset: RunDataset, spec: release.ReleaseSpec, ledgerKey: Buffer): Promise<RunRecord> {
    if (this.busy) throw new InputError('A run is in progress: wait for it to finish or cancel it.');
    const starting = new AbortController();
    this.starting = starting;
    try {
      return await this.launch(dataset, spec, starting.signal, { prepareOptions: { ledgerKey } });
    } finally {
      this.starting = undefined;
    }
  }

  /** Prepare, validate and reserve (awaited), then the engine in the background. */
  private async launch(
    ds: RunDataset,
    spec: release.ReleaseSpec,
    signal: AbortSignal,
    opts: { check?: (prepared: release.Prepared) => void; prepareOptions?: release.PrepareOptions },
  ): Promise<RunRecord> {
    const warnings: string[] = [];
    if (spec.noise.mode === 'insecure-seed') warnings.push(INSECURE_SEED_NOTE);
    const warn: release.Warn = (w) => {
      if (!SHOWN_ELSEWHERE.includes(w.code)) warnings.push(w.message);
    };
    const prepared = await namedAs(ds.path, ds.fileName, () =>
      release.prepare(spec, warn, opts.prepareOptions),
    );
    try {
      opts.check?.(prepared);
    } catch (err) {
      // A database source's snapshot goes with the refusal (release.ts disposeValidated).
      await release.disposeValidated(prepared);
      throw err;
    }
    const validated = await namedAs(ds.path, ds.fileName, () => release.validate(prepared, warn, signal));
    // The DuckDB table the checks loaded goes with a refused reservation (the run removes it otherwise).
    const reserved = await release
      .reserve(this.ledger, validated, warn, signal)
      .catch(async (err: unknown) => {
        await release.disposeValidated(validated);
        throw err;
      });
    const record: RunRecord = {
      id: randomUUID(),
      dataset: ds,
      prepared,
      releaseId: reserved.release.id,
      startedAt: new Date().toISOString(),
      warnings,
      controller: new AbortController(),
      state: { status: 'loading' },
      endedAt: null,
      history: [],
    };
    this.current = record;
    this.byId.set(record.id, record);
    this.forgetOldRuns();
    this.update(record);
    // The engine starts after this call answers, which reports the run as 'loading'.
    setImmediate(() => void this.execute(record, reserved));
    return record;
  }

  /**
   * Results hold private rows in memory: keep the last few runs only. A finished run's output
   * is in the result store, so forgetting its record loses nothing paid for; a run whose output
   * could not be stored stays.
   */
  private forgetOldRuns(): void {
    const ids = [...this.byId.keys()];
    for (const id of ids.slice(0, Math.max(0, ids.length - 3))) {
      const r = this.byId.get(id);
      if (r?.state.status === 'finished' && r.state.stored === null) continue;
      this.byId.delete(id);
    }
  }

  cancel(): RunRecord | undefined {
    this.starting?.abort();
    const r = this.current;
    if (!r || !isActive(r)) return r;
    r.controller.abort();
    return r;
  }

  private update(r: RunRecord): void {
    this.ctx.emit({ type: 'run-update', run: runView(r) });
  }

  /** Stage 4; stage 5 is the Export step's (exporter.ts). */
  private async execute(r: RunRecord, reserved: release.Reserved): Promise<void> {
    try {
      const finished = await release.run(this.ledger, reserved, {
        signal: r.controller.signal,
        spawner: this.ctx.spawner,
        onProgress: (e) => this.progress(r, e),
        onEngineStarted: (pid) => {
          r.state = { status: 'running', enginePid: pid ?? null };
          this.update(r);
        },
      });
      // Stored before it is shown as finished: from here on a crash or restart loses nothing.
      r.state = { status: 'finished', finished, stored: await this.keep(r, finished) };
    } catch (err) {
      this.fail(r, err);
    } finally {
      r.endedAt = new Date().toISOString();
      this.update(r);
    }
  }

  /**
   * Writes the finished release to the result store; null when it cannot (full disk…): the run
   * is still finished, the output stays in memory, the curator is told to export it now, and the
   * export stores it again first.
   */
  async keep(r: RunRecord, finished: release.Finished): Promise<StoredRelease | null> {
    try {
      // A database source is named as the ledger and the CLI name it (database/table).
      const datasetName = r.dataset.database ? finished.name : r.dataset.fileName;
      const manifest = manifestFields({ releaseId: r.releaseId, datasetName }, finished);
      return await this.store.save(
        {
          releaseId: r.releaseId,
          run: { ...runView(r), status: 'finished', endedAt: new Date().toISOString(), enginePid: null },
          manifest,
          report: finished.result.report,
        },
        (csvPath) =>
          writeSyntheticCsv(csvPath, finished.loaded, finished.result, finished.spec.noise, { mode: 0o600 }),
        // The private report, kept with the release: the Results step and the private HTML
        // report draw from it, before and after a restart.
        (csvPath) => buildReportData(finished, finished.spec.source.path, csvPath, manifest),
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      this.log(`run ${r.id}: could not store release ${r.releaseId} (${code})`);
      (r.warnings as string[]).push(
        `The finished release could not be saved to ${this.store.dir} (${code}): it lives in memory only. ` +
          'Export it now, before closing RAP Studio.',
      );
      return null;
    }
  }

  private progress(r: RunRecord, e: ProgressEvent): void {
    r.history.push(e);
    r.history = thin(r.history);
    this.ctx.emit({ type: 'run-progress', runId: r.id, point: e });
  }

  private fail(r: RunRecord, err: unknown): void {
    const aborted =
      err instanceof ReleaseAbortedError
        ? err
        : new ReleaseAbortedError('engine-error', err, r.releaseId, false);
    const { code, error } = aborted;
    if (code === 'engine-crashed' || code === 'engine-error') {
      this.log(`run ${r.id}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    }
    if (!aborted.marked) this.log(`run ${r.id}: could not mark release ${r.releaseId} aborted`);
    r.state = { status: code === 'cancelled' ? 'cancelled' : 'failed', error: aborted.forApp() };
  }

  private log(message: string): void {
    (this.ctx.log ?? ((m: string) => process.stderr.write(`${m}\n`)))(message);
  }
}
