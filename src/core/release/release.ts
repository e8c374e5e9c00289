/**
 * One release, privacy first: the order the README states, in this order, for the CLI and the
 * app alike. Each stage takes the previous stage's value, so no stage can run early.
 *
 *   1. prepare   public inputs only: the schema/domain, the workload, ε/δ/T/K; the data file
 *                hashed and its records counted (n is public)
 *   2. validate  load + encode the private CSV for the curator's eyes only: a file that cannot
 *                be read (empty, binary, ragged…) fails here and costs nothing; errors name
 *                lines and columns, never values, and nothing computed from the data goes on
 *   3. reserve   the dataset registered, then ledger.reserve (BudgetRefusedError: nothing
 *                reserved, the engine never starts)
 *   4. run       the engine in its own process, on the data encoded in 2
 *   5. write     the synthetic CSV and its sidecar (CLI: report; app: manifest), each atomically,
 *      commit    then ledger.commit with the CSV's SHA-256
 *
 * The CLI runs 1–5 straight through (releaseStraightThrough); the app runs 1–4 when the curator
 * starts a run and 5 when they export. Failure in 4 marks the release aborted (engine error,
 * cancel): its spend stays counted, because noise may have been drawn. Failure in 5 leaves it
 * `reserved` (counted) and says the file was not written. A process killed at any point leaves
 * `reserved` (counted). Warnings and abort reasons are typed codes (messages.ts).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../data/atomic-write.ts';
import { fingerprintFile } from '../data/fingerprint.ts';
import { type LoadResult, loadCsv } from '../data/load.ts';
import { describeSchemaOrigin, type Schema } from '../data/schema.ts';
import { defaultOptions } from '../engine/defaults.ts';
import { type EngineSpawner, startEngine } from '../engine/process/client.ts';
import { CancelledError } from '../engine/process/errors.ts';
import type { NoiseSpec } from '../engine/process/protocol.ts';
import { type PublicPlan, publicPlan } from '../engine/process/public-plan.ts';
import { type FileFacts, fingerprintAndCountRows } from '../engine/process/row-count.ts';
import type { ProgressEvent, RapOptions, RapResult } from '../engine/types.ts';
import { canonicalJson, sha256Hex } from '../ledger/canonical.ts';
import type { Ledger, LedgerIdentity } from '../ledger/ledger.ts';
import type { ReleaseRecord, ReserveRequest } from '../ledger/types.ts';
import { defaultDelta, deltaWarning } from '../privacy/accounting.ts';
import { APP_VERSION } from '../version.ts';
import type { Workload } from '../workload/types.ts';
import { workloadHash, workloadToJson } from '../workload/workload.ts';
import {
  abortCode,
  CANCELLED_BEFORE_RESERVE,
  fileChangedWhileRead,
  ledgerAbortReason,
  NON_PRIVATE_NOTE,
  outputNotWritten,
  ReleaseAbortedError,
  type ReleaseWarning,
  type Voice,
  warnings,
} from './messages.ts';
import { type WrittenCsv, writeSyntheticCsv } from './output.ts';

/** The private file and its public schema (declared, a benchmark domain's, or confirmed). */
export interface DataSource {
  readonly path: string;
  readonly schema: Schema;
  /** Whether the first row names the columns; default: guessed. */
  readonly header?: boolean;
}

export type EngineOverrides = Partial<
  Pick<
    RapOptions,
    'rows' | 'rounds' | 'perRound' | 'oversample' | 'mode' | 'backend' | 'threads' | 'maxSteps' | 'tolerance'
  >
>;

/** What the curator asks for: all public. */
export interface ReleaseSpec {
  readonly source: DataSource;
  /** Display name for the ledger; default the file's base name. */
  readonly datasetName?: string;
  readonly workload: Workload;
  readonly evalWorkload?: Workload;
  readonly epsilon: number;
  /** Default 1/n². */
  readonly delta?: number;
  readonly overrides?: EngineOverrides;
  readonly noise: NoiseSpec;
  /** Set as the dataset's cap when it has none yet (δ defaults to the run's δ). */
  readonly budgetCap?: { readonly epsilon: number; readonly delta?: number };
}

export type Warn = (warning: ReleaseWarning) => void;

// ---- the stages' values: each stage's output is the next one's input ------------------------

/** 1. The public part of a run, fixed before the private file is read or the ledger touched. */
export interface Prepared {
  readonly stage: 'prepared';
  readonly spec: ReleaseSpec;
  readonly name: string;
  readonly facts: FileFacts;
  readonly delta: number;
  readonly options: RapOptions;
  readonly plan: PublicPlan;
  readonly request: ReserveRequest;
}

type After<T, S extends string> = Omit<T, 'stage'> & { readonly stage: S };

/** 2. The private file read and encoded (for the engine once the budget is reserved). */
export type Validated = After<Prepared, 'validated'> & { readonly loaded: LoadResult };

type Awaitable<T> = T | Promise<T>;

/**
 * What the release needs of the ledger. The CLI passes the Ledger itself (synchronous); the app
 * passes the same Ledger running in a worker thread (src/services/ledger-client.ts), whose calls
 * answer with promises, so a lock wait never blocks the app's event loop.
 */
export type LedgerPort = {
  readonly [M in 'ensureDataset' | 'setCap' | 'reserve' | 'abort' | 'commit']: (
    ...args: Parameters<Ledger[M]>
  ) => Awaitable<ReturnType<Ledger[M]>>;
} & { identity(): Awaitable<LedgerIdentity> };

/** 3. The budget reserved in the ledger. */
export type Reserved = After<Validated, 'reserved'> & { readonly release: ReleaseRecord };

/** 4. The engine's result, waiting to be written (in the app: until the curator exports). */
export type Finished = After<Reserved, 'finished'> & { readonly result: RapResult };

/** 5. Written and committed. */
export interface Committed {
  readonly stage: 'committed';
  readonly release: ReleaseRecord;
  readonly csv: WrittenCsv;
}

// ---- 1. prepare ------------------------------------------------------------------------------

export async function prepare(spec: ReleaseSpec, warn: Warn = () => {}): Promise<Prepared> {
  const { schema } = spec.source;
  const facts = await fingerprintAndCountRows(
    spec.source.path,
    schema.columns.map((c) => c.name),
  );
  const delta = spec.delta ?? defaultDelta(Math.max(2, facts.rows));
  const dw = deltaWarning(delta, facts.rows);
  if (dw) warn(warnings.deltaLarge(dw));
  if (schema.origin === 'inferred' || schema.confirmedFromInferred) {
    warn(warnings.schemaFromData(describeSchemaOrigin(schema)));
  }
  const requested = defaultOptions({ epsilon: spec.epsilon, delta, ...spec.overrides });
  const plan = publicPlan(requested, schema, facts.rows, spec.workload);
  // Pin T and K so the engine runs exactly what the ledger records.
  const options: RapOptions = { ...requested, rounds: plan.rounds, perRound: plan.perRound };
  const name = spec.datasetName ?? path.basename(spec.source.path);
  const request: ReserveRequest = {
    fingerprint: facts.fingerprint,
    mechanism: `rap-${options.mode}`,
    epsilon: options.epsilon,
    delta,
    rho: plan.rho,
    params: {
      rounds: plan.rounds,
      perRound: plan.perRound,
      rows: options.rows,
      oversample: options.oversample,
      kind: plan.kind,
      numQueries: plan.numQueries,
      selection: options.selection,
      learningRate: options.learningRate,
      maxSteps: options.maxSteps,
      tolerance: options.tolerance,
      batchSize: options.batchSize,
      ...(spec.evalWorkload ? { evalWorkloadHash: workloadHash(spec.evalWorkload, schema) } : {}),
    },
    workload: { hash: workloadHash(spec.workload, schema), json: workloadToJson(spec.workload, schema) },
    schema: { hash: sha256Hex(canonicalJson(schema)), origin: schema.origin },
    seedMode: spec.noise.mode,
    backend: options.backend ?? 'auto',
    appVersion: APP_VERSION,
  };
  return { stage: 'prepared', spec, name, facts, delta, options, plan, request };
}

// ---- 2. validate -----------------------------------------------------------------------------

/** Reads the private file for the curator only; the engine has not started. */
export async function validate(
  prepared: Prepared,
  warn: Warn = () => {},
  signal?: AbortSignal,
): Promise<Validated> {
  const { source } = prepared.spec;
  const loaded = await loadCsv(source.path, {
    schema: source.schema,
    signal,
    ...(source.header !== undefined && { header: source.header }),
  });
  // The ledger records the bytes fingerprinted when n was counted; the file must not change meanwhile.
  if (loaded.fingerprint !== prepared.facts.fingerprint) throw fileChangedWhileRead(source.path);
  const rejected = loaded.summary.rejected.reduce((s, r) => s + r.count, 0);
  if (rejected > 0) warn(warnings.rowsRejected(rejected, loaded.summary.rowsRead, loaded.summary.file));
  return { ...prepared, stage: 'validated', loaded };
}

// ---- 3. reserve ------------------------------------------------------------------------------

/** Registers the dataset (and its cap when asked), then reserves in one BEGIN IMMEDIATE. */
export async function reserve(
  ledger: LedgerPort,
  validated: Validated,
  warn: Warn = () => {},
  signal?: AbortSignal,
): Promise<Reserved> {
  const { facts, spec, name } = validated;
  const dataset = await ledger.ensureDataset({ fingerprint: facts.fingerprint, name, rows: facts.rows });
  const cap = spec.budgetCap;
  if (cap && dataset.cap) warn(warnings.capExists(dataset.name, dataset.cap.epsilon, dataset.cap.delta));
  else if (cap) await ledger.setCap(facts.fingerprint, cap.epsilon, cap.delta ?? validated.delta);
  if (signal?.aborted) throw new CancelledError(CANCELLED_BEFORE_RESERVE);
  return { ...validated, stage: 'reserved', release: await ledger.reserve(validated.request) };
}

// ---- 4. run ----------------------------------------------------------------------------------

export interface RunHooks {
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Called once the engine process exists (the app shows its pid; tests kill it). */
  readonly onEngineStarted?: (pid: number | undefined) => void;
  readonly spawner?: EngineSpawner;
}

/** The engine on the validated data; any failure marks the release aborted (ReleaseAbortedError). */
export async function run(ledger: LedgerPort, reserved: Reserved, hooks: RunHooks = {}): Promise<Finished> {
  const { signal } = hooks;
  const releaseId = reserved.release.id;
  try {
    if (signal?.aborted) throw new CancelledError();
    const { spec } = reserved;
    const engine = startEngine(
      {
        data: reserved.loaded.dataset,
        workload: spec.workload,
        options: reserved.options,
        noise: spec.noise,
        ...(spec.evalWorkload ? { evalWorkload: spec.evalWorkload } : {}),
      },
      { onProgress: hooks.onProgress, spawner: hooks.spawner },
    );
    hooks.onEngineStarted?.(engine.pid);
    const onAbort = () => engine.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) engine.cancel();
    try {
      return { ...reserved, stage: 'finished', result: await engine.result };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  } catch (err) {
    const code = abortCode(err, signal?.aborted === true);
    let marked = true;
    try {
      await ledger.abort(releaseId, ledgerAbortReason(code, err));
    } catch {
      marked = false;
    }
    throw new ReleaseAbortedError(code, err, releaseId, marked);
  }
}

// ---- 5. write & commit -----------------------------------------------------------------------

/** Where the release goes: the CSV, and the JSON beside it (the CLI's report, the app's manifest). */
export interface WriteTarget {
  readonly voice: Voice;
  readonly csvPath: string;
  readonly sidecar: {
    readonly what: 'report' | 'release manifest';
    readonly path: string;
    readonly content: (csv: WrittenCsv) => unknown;
    /** The app removes a CSV whose manifest could not be written (it can export again). */
    readonly removeCsvIfUnwritten: boolean;
  };
}

export async function writeAndCommit(
  ledger: Ledger,
  finished: Finished,
  target: WriteTarget,
): Promise<Committed> {
  const { voice, csvPath, sidecar } = target;
  const releaseId = finished.release.id;
  let written: Omit<WrittenCsv, 'sha256'>;
  try {
    written = await writeSyntheticCsv(csvPath, finished.loaded, finished.result, finished.spec.noise);
  } catch (err) {
    throw outputNotWritten(voice, 'synthetic data', csvPath, releaseId, err);
  }
  const csv: WrittenCsv = { ...written, sha256: await fingerprintFile(csvPath) };
  try {
    await writeFileAtomic(sidecar.path, `${JSON.stringify(sidecar.content(csv), null, 2)}\n`);
  } catch (err) {
    if (sidecar.removeCsvIfUnwritten) await rm(csvPath, { force: true });
    throw outputNotWritten(voice, sidecar.what, sidecar.path, releaseId, err);
  }
  const release = ledger.commit(releaseId, { sha256: csv.sha256, path: csv.path });
  return { stage: 'committed', release, csv };
}

// ---- the CLI: 1–5 straight through -----------------------------------------------------------

export interface ReleaseHooks extends RunHooks {
  readonly onWarning?: Warn;
  readonly onReserved?: (release: ReleaseRecord) => void;
}

/** What REPORT.json holds: the engine's report plus the release's identity. */
export type ReleaseReport = RapResult['report'] & {
  readonly format: 'rap-studio-report';
  readonly releaseId: string;
  readonly ledger: string;
  readonly dataset: { readonly fingerprint: string; readonly name: string; readonly rows: number };
  readonly output: { readonly path: string; readonly sha256: string; readonly rows: number };
  readonly schemaOrigin: string;
  readonly nonPrivateDiagnostics: string;
};

export interface ReleaseOutcome {
  readonly release: ReleaseRecord;
  readonly report: ReleaseReport;
}

/** The CLI's release; the caller opens (and closes) the ledger. */
export async function releaseStraightThrough(
  ledger: Ledger,
  spec: ReleaseSpec,
  paths: { readonly outPath: string; readonly reportPath: string },
  hooks: ReleaseHooks = {},
): Promise<ReleaseOutcome> {
  const warn = hooks.onWarning ?? (() => {});
  const validated = await validate(await prepare(spec, warn), warn, hooks.signal);
  const reserved = await reserve(ledger, validated, warn, hooks.signal);
  hooks.onReserved?.(reserved.release);
  const finished = await run(ledger, reserved, hooks).catch((err: unknown) => {
    throw err instanceof ReleaseAbortedError ? err.forCli() : err;
  });
  let report: ReleaseReport | undefined;
  const committed = await writeAndCommit(ledger, finished, {
    voice: 'cli',
    csvPath: path.resolve(paths.outPath),
    sidecar: {
      what: 'report',
      path: path.resolve(paths.reportPath),
      removeCsvIfUnwritten: false,
      content: (csv) => (report = cliReport(ledger, finished, csv)),
    },
  });
  return { release: committed.release, report: report! };
}

function cliReport(ledger: Ledger, f: Finished, csv: WrittenCsv): ReleaseReport {
  return {
    format: 'rap-studio-report',
    releaseId: f.release.id,
    ledger: path.resolve(ledger.file),
    dataset: { fingerprint: f.facts.fingerprint, name: f.name, rows: f.facts.rows },
    output: { path: csv.path, sha256: csv.sha256, rows: csv.rows },
    ...f.result.report,
    seedMode: f.spec.noise.mode,
    schemaOrigin: describeSchemaOrigin(f.loaded.dataset.schema),
    nonPrivateDiagnostics: NON_PRIVATE_NOTE,
  };
}
