/**
 * Runs from the app, in the CLI's privacy order (src/core/engine/process/release.ts):
 *
 *   1. public inputs only: settings, the resolved workload, the schema; the file hashed and its
 *      records counted (prepareRelease)
 *   2. the ledger reserves the budget (BudgetRefusedError: nothing reserved, nothing read)
 *   3. the private file is loaded again under the run's schema and handed to the engine, which
 *      runs in its own process (a crash there never takes the app down)
 *   4. the result waits in memory for the Export step (exporter.ts), which writes the CSV and
 *      commits the release with the output's hash
 *
 * A failure or cancel after 2 marks the release aborted; its spend stays counted. The run's
 * state, progress history included, lives here, so a reloaded renderer finds it again.
 */
import { randomUUID } from 'node:crypto';
import { type LoadResult, loadCsv } from '../core/data/load.ts';
import type { Schema } from '../core/data/schema.ts';
import { type EngineHandle, startEngine } from '../core/engine/process/client.ts';
import { CancelledError, EngineCrashedError } from '../core/engine/process/errors.ts';
import type { NoiseSpec } from '../core/engine/process/protocol.ts';
import { type PreparedRelease, prepareRelease, type ReleaseSpec } from '../core/engine/process/release.ts';
import type { ProgressEvent, RapResult } from '../core/engine/types.ts';
import { InputError } from '../core/errors.ts';
import type { Ledger } from '../core/ledger/ledger.ts';
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
import type { ServiceContext } from './context.ts';
import { namedAs, type OpenedDataset } from './datasets.ts';
import { INSECURE_SEED_NOTE, parseSettings } from './settings.ts';
import { resolveWorkload } from './workloads.ts';

/** Progress samples kept per run; older ones are thinned, so long runs stay cheap to restore. */
const MAX_HISTORY = 4000;

/** A run and everything the Results and Export steps need afterwards (private: never sent whole). */
export interface RunRecord {
  readonly id: string;
  readonly dataset: OpenedDataset;
  readonly schema: Schema;
  readonly workload: Workload;
  readonly evalWorkload: Workload | undefined;
  readonly prepared: PreparedRelease;
  readonly noise: NoiseSpec;
  readonly releaseId: string;
  readonly startedAt: string;
  readonly warnings: string[];
  readonly controller: AbortController;
  status: RunStatus;
  endedAt: string | null;
  history: ProgressPoint[];
  error: ApiErrorPayload | null;
  engine?: EngineHandle;
  loaded?: LoadResult;
  result?: RapResult;
  exported: ExportView | null;
}

export function isActive(run: RunRecord | undefined): boolean {
  return run !== undefined && isActiveStatus(run.status);
}

export function runView(r: RunRecord): RunView {
  const o = r.prepared.options;
  return {
    runId: r.id,
    releaseId: r.releaseId,
    datasetId: r.dataset.id,
    datasetName: r.dataset.fileName,
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    epsilon: o.epsilon,
    delta: o.delta,
    rho: r.prepared.plan.rho,
    rounds: r.prepared.plan.rounds,
    perRound: r.prepared.plan.perRound,
    rows: o.rows,
    oversample: o.oversample,
    mode: o.mode,
    seedMode: r.noise.mode,
    backendRequested: o.backend ?? 'auto',
    backend: r.result?.report.backend ?? null,
    enginePid: r.engine?.pid ?? null,
    history: r.history,
    error: r.error,
    warnings: r.warnings,
    exported: r.exported,
  };
}

function point(e: ProgressEvent): ProgressPoint {
  return {
    round: e.round,
    rounds: e.rounds,
    step: e.step,
    loss: e.loss,
    maxSelectedError: e.maxSelectedError,
    elapsedSeconds: e.elapsedSeconds,
    etaSeconds: e.etaSeconds,
    ...(e.selectedThresholds ? { selectedThresholds: e.selectedThresholds } : {}),
    ...(e.sigma !== undefined ? { sigma: e.sigma } : {}),
  };
}

function thin(history: ProgressPoint[]): ProgressPoint[] {
  if (history.length <= MAX_HISTORY) return history;
  return history.filter(
    (p, i) => i % 2 === 0 || i === history.length - 1 || p.round !== history[i - 1]?.round,
  );
}

/**
 * The ledger's abort reason. Deliberately generic: an error message may quote a private value
 * (a CSV cell), and the ledger is shown to an oversight body.
 */
function abortReason(err: unknown, cancelled: boolean): string {
  if (cancelled || err instanceof CancelledError) return 'cancelled';
  if (err instanceof EngineCrashedError) {
    return `engine process ended unexpectedly (${err.signal ? `signal ${err.signal}` : `exit code ${err.exitCode}`})`;
  }
  if (err instanceof InputError) return 'failed: bad input (private data or engine options)';
  return 'failed: engine error';
}

function failurePayload(err: unknown, releaseId: string, cancelled: boolean): ApiErrorPayload {
  const tail = `Release ${releaseId} was marked aborted; its privacy spend stays counted in the ledger.`;
  if (cancelled || err instanceof CancelledError)
    return { kind: 'cancelled', message: `The run was cancelled. ${tail}` };
  if (err instanceof EngineCrashedError)
    return { kind: 'internal', message: `${capitalize(err.message)}. ${tail}` };
  if (err instanceof InputError) return { kind: 'input', message: `${err.message} ${tail}` };
  return {
    kind: 'internal',
    message: `The engine failed (see the application log). ${tail} Start a new run when the problem is fixed.`,
  };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export class RunManager {
  private current: RunRecord | undefined;
  private readonly byId = new Map<string, RunRecord>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly ledger: Ledger,
  ) {}

  get latest(): RunRecord | undefined {
    return this.current;
  }

  get busy(): boolean {
    return isActive(this.current);
  }

  get(runId: string): RunRecord {
    const run = this.byId.get(runId);
    if (!run) throw new InputError(`No run with id ${runId} in this session: start a run on the Run step.`);
    return run;
  }

  /** Steps 1 and 2, awaited (so a refusal is the caller's error); the rest goes on in the background. */
  async start(ds: OpenedDataset, settings: RunSettingsInput): Promise<RunRecord> {
    if (this.busy) throw new InputError('A run is in progress: wait for it to finish or cancel it.');
    const { parsed, problems } = parseSettings(settings);
    if (!parsed) throw new InputError(problems[0].message, { field: problems[0].field });
    if (ds.workloads.main.length === 0) {
      throw new InputError('The workload has no thresholds: add some on the Workload step.');
    }
    const schema = ds.schema;
    const workload = resolveWorkload(ds.workloads.main, schema);
    const evalWorkload =
      ds.workloads.eval.length > 0 ? resolveWorkload(ds.workloads.eval, schema) : undefined;
    const warnings: string[] = [];
    if (parsed.noise.mode === 'insecure-seed') warnings.push(INSECURE_SEED_NOTE);
    const spec: ReleaseSpec = {
      source: { kind: 'csv', path: ds.path, schema },
      datasetName: ds.fileName,
      workload,
      evalWorkload,
      epsilon: parsed.epsilon,
      delta: parsed.delta,
      overrides: parsed.overrides,
      noise: parsed.noise,
      outPath: '',
      reportPath: '',
    };
    // The schema's origin is shown on every screen already (InferredNotice); other warnings go to the run.
    const prepared = await namedAs(ds.path, ds.fileName, () =>
      prepareRelease(spec, (m) => {
        if (!m.startsWith('the schema was')) warnings.push(m);
      }),
    );
    if (prepared.facts.fingerprint !== ds.loaded.fingerprint) {
      throw new InputError(`${ds.fileName}: the file changed since it was opened; open it again.`);
    }
    this.ledger.ensureDataset({
      fingerprint: prepared.facts.fingerprint,
      name: ds.fileName,
      rows: prepared.facts.rows,
    });
    const release = this.ledger.reserve(prepared.request);
    const run: RunRecord = {
      id: randomUUID(),
      dataset: ds,
      schema,
      workload,
      evalWorkload,
      prepared,
      noise: parsed.noise,
      releaseId: release.id,
      startedAt: new Date().toISOString(),
      warnings,
      controller: new AbortController(),
      status: 'loading',
      endedAt: null,
      history: [],
      error: null,
      exported: null,
    };
    this.current = run;
    this.byId.set(run.id, run);
    this.forgetOldRuns();
    this.update(run);
    void this.execute(run);
    return run;
  }

  /** Results hold private rows in memory: keep the last few runs only. */
  private forgetOldRuns(): void {
    const ids = [...this.byId.keys()];
    for (const id of ids.slice(0, Math.max(0, ids.length - 3))) this.byId.delete(id);
  }

  cancel(): RunRecord | undefined {
    const run = this.current;
    if (!run || !isActive(run)) return run;
    run.controller.abort();
    run.engine?.cancel();
    return run;
  }

  private update(run: RunRecord): void {
    this.ctx.emit({ type: 'run-update', run: runView(run) });
  }

  private async execute(run: RunRecord): Promise<void> {
    const { signal } = run.controller;
    try {
      const loaded = await namedAs(run.dataset.path, run.dataset.fileName, () =>
        loadCsv(run.dataset.path, {
          schema: run.schema,
          header: run.dataset.loaded.summary.hasHeader,
          signal,
        }),
      );
      if (loaded.fingerprint !== run.prepared.facts.fingerprint) {
        throw new InputError(`${run.dataset.fileName}: the file changed after the budget was reserved.`);
      }
      if (signal.aborted) throw new CancelledError();
      run.loaded = loaded;
      run.engine = startEngine(
        {
          data: loaded.dataset,
          workload: run.workload,
          options: run.prepared.options,
          noise: run.noise,
          ...(run.evalWorkload ? { evalWorkload: run.evalWorkload } : {}),
        },
        { onProgress: (e) => this.progress(run, e), spawner: this.ctx.spawner },
      );
      run.status = 'running';
      this.update(run);
      if (signal.aborted) run.engine.cancel();
      run.result = await run.engine.result;
      run.status = 'finished';
    } catch (err) {
      this.fail(run, err);
    } finally {
      run.endedAt = new Date().toISOString();
      run.engine = undefined;
      this.update(run);
    }
  }

  private progress(run: RunRecord, e: ProgressEvent): void {
    const p = point(e);
    run.history.push(p);
    run.history = thin(run.history);
    this.ctx.emit({ type: 'run-progress', runId: run.id, point: p });
  }

  private fail(run: RunRecord, err: unknown): void {
    const cancelled = run.controller.signal.aborted;
    if (!cancelled && !(err instanceof InputError)) {
      this.log(`run ${run.id}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    }
    try {
      this.ledger.abort(run.releaseId, abortReason(err, cancelled));
    } catch (abortErr) {
      this.log(
        `run ${run.id}: could not mark release ${run.releaseId} aborted: ${(abortErr as Error).message}`,
      );
    }
    run.status = cancelled || err instanceof CancelledError ? 'cancelled' : 'failed';
    run.error = failurePayload(err, run.releaseId, cancelled);
  }

  private log(message: string): void {
    (this.ctx.log ?? ((m: string) => process.stderr.write(`${m}\n`)))(message);
  }
}
