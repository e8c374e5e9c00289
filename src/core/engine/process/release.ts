/**
 * One release, privacy first: everything public is checked and fixed, the private file is
 * validated, the ledger reserves the budget, and only then does the engine read the data.
 *
 *   1. prepare   public files only: the schema/domain, the workload, ε/δ/T/K (n counted, public)
 *   2. validate  load + encode the private CSV for the curator's eyes only: a file that cannot
 *                be read (empty, binary, ragged…) fails here and costs nothing; errors name
 *                lines and columns, never values, and nothing computed from the data goes on
 *   3. reserve   ledger.reserve (BudgetRefusedError: nothing reserved, the engine never starts)
 *   4. run       the engine in its own process, on the data encoded in 2
 *   5. write     synthetic CSV and report, each atomically
 *   6. commit    ledger.commit with the CSV's SHA-256
 *
 * Failure after 3 marks the release aborted (engine error, cancel): its spend stays counted,
 * because noise may have been drawn. Failure in 5 leaves it `reserved` (counted) and says the
 * file was not written. A process killed at any point leaves `reserved` (counted).
 *
 * Used by the CLI; the app's service layer can call it with its own spawner (utilityProcess).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../data/atomic-write.ts';
import { loadBenchmark } from '../../data/benchmark.ts';
import { writeCsv } from '../../data/csv-write.ts';
import { decodedRows } from '../../data/decode.ts';
import { type LoadResult, loadCsv } from '../../data/load.ts';
import { describeSchemaOrigin, type Schema } from '../../data/schema.ts';
import { InputError } from '../../errors.ts';
import { canonicalJson, sha256Hex } from '../../ledger/canonical.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { ReleaseRecord, ReserveRequest } from '../../ledger/types.ts';
import { defaultDelta, deltaWarning } from '../../privacy/accounting.ts';
import { secureNoise, seededNoise } from '../../privacy/noise.ts';
import { APP_VERSION } from '../../version.ts';
import type { Workload } from '../../workload/types.ts';
import { workloadHash, workloadToJson } from '../../workload/workload.ts';
import { defaultOptions } from '../defaults.ts';
import type { ProgressEvent, RapOptions, RapReport, RapResult } from '../types.ts';
import { type EngineSpawner, startEngine } from './client.ts';
import { CancelledError, EngineCrashedError } from './errors.ts';
import type { NoiseSpec } from './protocol.ts';
import { type PublicPlan, publicPlan } from './public-plan.ts';
import { type FileFacts, fingerprintAndCountRows } from './row-count.ts';

/** The private file and its public description (a declared schema, or a benchmark domain). */
export type DataSource =
  | { readonly kind: 'csv'; readonly path: string; readonly schema: Schema }
  | {
      readonly kind: 'benchmark';
      readonly path: string;
      readonly domainPath: string;
      readonly schema: Schema;
    };

export type EngineOverrides = Partial<
  Pick<
    RapOptions,
    'rows' | 'rounds' | 'perRound' | 'oversample' | 'mode' | 'backend' | 'maxSteps' | 'tolerance'
  >
>;

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
  readonly outPath: string;
  readonly reportPath: string;
  /** Set as the dataset's cap when it has none yet (δ defaults to the run's δ). */
  readonly budgetCap?: { readonly epsilon: number; readonly delta?: number };
}

export type ReleaseStage = 'reserved' | 'running' | 'writing' | 'committed';

export interface ReleaseHooks {
  readonly signal?: AbortSignal;
  readonly onWarning?: (message: string) => void;
  readonly onStage?: (stage: ReleaseStage, release: ReleaseRecord) => void;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Called once the engine process exists (tests use its pid). */
  readonly onEngineStarted?: (pid: number | undefined) => void;
  readonly spawner?: EngineSpawner;
}

export const NON_PRIVATE_NOTE =
  'The error metrics (presentError, roundedPresentError, meanError, roundedMeanError, all0Error, ' +
  'relativeErrorProfile, perThresholdError, futureError) compare against the EXACT answers on the ' +
  'private data: they are non-private diagnostics for the curator only. Do not publish them with ' +
  'the synthetic data; the release is the synthetic CSV alone.';

/** What REPORT.json holds: the engine's report plus the release's identity. */
export type ReleaseReport = RapReport & {
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

/** The public part of a run, fixed before the ledger is touched. */
export interface PreparedRelease {
  readonly facts: FileFacts;
  readonly delta: number;
  readonly options: RapOptions;
  readonly plan: PublicPlan;
  readonly request: ReserveRequest;
}

/** Step 1: public inputs only (plus the data file's bytes hashed and its records counted). */
export async function prepareRelease(
  spec: ReleaseSpec,
  warn: (m: string) => void = () => {},
): Promise<PreparedRelease> {
  const { schema } = spec.source;
  const facts = await fingerprintAndCountRows(
    spec.source.path,
    schema.columns.map((c) => c.name),
  );
  const delta = spec.delta ?? defaultDelta(Math.max(2, facts.rows));
  const warning = deltaWarning(delta, facts.rows);
  if (warning) warn(warning);
  if (schema.origin === 'inferred' || schema.confirmedFromInferred) {
    warn(`the schema was ${describeSchemaOrigin(schema)}`);
  }
  const requested = defaultOptions({ epsilon: spec.epsilon, delta, ...spec.overrides });
  const plan = publicPlan(requested, schema, facts.rows, spec.workload);
  // Pin T and K so the engine runs exactly what the ledger records.
  const options: RapOptions = { ...requested, rounds: plan.rounds, perRound: plan.perRound };
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
  return { facts, delta, options, plan, request };
}

/** Steps 2–5. The caller opens (and closes) the ledger. */
export async function runRelease(
  ledger: Ledger,
  spec: ReleaseSpec,
  hooks: ReleaseHooks = {},
): Promise<ReleaseOutcome> {
  const warn = hooks.onWarning ?? (() => {});
  const prepared = await prepareRelease(spec, warn);
  const name = spec.datasetName ?? path.basename(spec.source.path);
  // Step 2: validation reads the file only for the curator; the engine has not started.
  const loaded = await loadPrivateData(spec.source, hooks.signal);
  assertSameFile(spec.source.path, prepared.facts.fingerprint, loaded.fingerprint);
  reportRejections(loaded, warn);
  registerDataset(ledger, spec, prepared, name, warn);
  throwIfCancelled(hooks.signal, 'cancelled before the budget was reserved: nothing was spent');
  const release = ledger.reserve(prepared.request);
  hooks.onStage?.('reserved', release);

  let result: RapResult;
  try {
    throwIfCancelled(hooks.signal);
    hooks.onStage?.('running', release);
    result = await runEngine(spec, prepared.options, loaded, hooks);
  } catch (err) {
    throw explainAbort(
      err,
      release.id,
      hooks.signal,
      markAborted(ledger, release.id, abortReason(err, hooks.signal)),
    );
  }

  hooks.onStage?.('writing', release);
  const report = await writeOutputs(spec, release, ledger.file, name, prepared, loaded, result);
  const committed = ledger.commit(release.id, { sha256: report.output.sha256, path: report.output.path });
  hooks.onStage?.('committed', committed);
  return { release: committed, report };
}

function registerDataset(
  ledger: Ledger,
  spec: ReleaseSpec,
  prepared: PreparedRelease,
  name: string,
  warn: (m: string) => void,
): void {
  const dataset = ledger.ensureDataset({
    fingerprint: prepared.facts.fingerprint,
    name,
    rows: prepared.facts.rows,
  });
  const cap = spec.budgetCap;
  if (!cap) return;
  if (dataset.cap) {
    warn(
      `dataset "${dataset.name}" already has a budget cap (ε = ${dataset.cap.epsilon} at δ = ${dataset.cap.delta}); ` +
        '--budget-epsilon is ignored (change a cap with `rap-studio ledger set-cap`)',
    );
    return;
  }
  ledger.setCap(prepared.facts.fingerprint, cap.epsilon, cap.delta ?? prepared.delta);
}

async function loadPrivateData(source: DataSource, signal: AbortSignal | undefined): Promise<LoadResult> {
  return source.kind === 'benchmark'
    ? loadBenchmark(source.path, source.domainPath, { signal })
    : loadCsv(source.path, { schema: source.schema, signal });
}

/** The ledger records the bytes fingerprinted when n was counted; the file must not change meanwhile. */
function assertSameFile(file: string, reserved: string, loaded: string): void {
  if (reserved !== loaded) {
    throw new InputError(
      `${file}: the file changed while it was being read (its SHA-256 differs between two reads); ` +
        'run again once nothing is writing to it',
      { file },
    );
  }
}

function reportRejections(loaded: LoadResult, warn: (m: string) => void): void {
  const rejected = loaded.summary.rejected.reduce((s, r) => s + r.count, 0);
  if (rejected > 0) {
    warn(
      `${rejected} of ${loaded.summary.rowsRead} rows of ${loaded.summary.file} were rejected ` +
        '(see `rap-studio schema check`); the release covers the accepted rows only',
    );
  }
}

async function runEngine(
  spec: ReleaseSpec,
  options: RapOptions,
  loaded: LoadResult,
  hooks: ReleaseHooks,
): Promise<RapResult> {
  const engine = startEngine(
    {
      data: loaded.dataset,
      workload: spec.workload,
      options,
      noise: spec.noise,
      ...(spec.evalWorkload ? { evalWorkload: spec.evalWorkload } : {}),
    },
    { onProgress: hooks.onProgress, spawner: hooks.spawner },
  );
  hooks.onEngineStarted?.(engine.pid);
  const onAbort = () => engine.cancel();
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  if (hooks.signal?.aborted) engine.cancel();
  try {
    return await engine.result;
  } finally {
    hooks.signal?.removeEventListener('abort', onAbort);
  }
}

function throwIfCancelled(signal: AbortSignal | undefined, message?: string): void {
  if (signal?.aborted) throw new CancelledError(message);
}

/**
 * The ledger's abort reason. Deliberately generic: an error message may quote a private value
 * (a CSV cell), and the ledger is shown to an oversight body.
 */
function abortReason(err: unknown, signal: AbortSignal | undefined): string {
  if (err instanceof CancelledError || signal?.aborted) return 'cancelled';
  if (err instanceof EngineCrashedError) {
    return `engine process ended unexpectedly (${err.signal ? `signal ${err.signal}` : `exit code ${err.exitCode}`})`;
  }
  if (err instanceof InputError) return 'failed: bad input (private data or engine options)';
  return 'failed: engine error';
}

/** Marks the release aborted; false when the ledger could not be written (it then stays reserved). */
function markAborted(ledger: Ledger, releaseId: string, reason: string): boolean {
  try {
    ledger.abort(releaseId, reason);
    return true;
  } catch {
    return false;
  }
}

function explainAbort(
  err: unknown,
  releaseId: string,
  signal: AbortSignal | undefined,
  aborted: boolean,
): Error {
  const tail = aborted
    ? `release ${releaseId} was marked aborted; its privacy spend stays counted`
    : `release ${releaseId} stays reserved (the ledger could not be updated); its privacy spend stays counted`;
  if (err instanceof CancelledError || signal?.aborted)
    return new CancelledError(`the run was cancelled: ${tail}`);
  if (err instanceof InputError) return new InputError(`${err.message} (${tail})`, err.where);
  return new Error(`${(err as Error).message ?? String(err)} (${tail})`, { cause: err });
}

/** Thrown when the synthetic CSV or the report cannot be written; the release stays reserved. */
export class OutputNotWrittenError extends Error {
  override readonly name = 'OutputNotWrittenError';
}

async function writeOutputs(
  spec: ReleaseSpec,
  release: ReleaseRecord,
  ledgerFile: string,
  name: string,
  prepared: PreparedRelease,
  loaded: LoadResult,
  result: RapResult,
): Promise<ReleaseReport> {
  const outPath = path.resolve(spec.outPath);
  const reportPath = path.resolve(spec.reportPath);
  const table = outputTable(loaded, result);
  const random = decodeRandom(spec.noise);
  const rows = decodedRows(table.schema, table.codes, result.synthetic.n, { random });
  await writeOrExplain(outPath, release.id, 'synthetic data', () => writeCsv(outPath, table.header, rows));
  const sha256 = createHash('sha256')
    .update(await readFile(outPath))
    .digest('hex');
  const report: ReleaseReport = {
    format: 'rap-studio-report',
    releaseId: release.id,
    ledger: path.resolve(ledgerFile),
    dataset: { fingerprint: prepared.facts.fingerprint, name, rows: prepared.facts.rows },
    output: { path: outPath, sha256, rows: result.synthetic.n },
    ...result.report,
    seedMode: spec.noise.mode,
    schemaOrigin: describeSchemaOrigin(loaded.dataset.schema),
    nonPrivateDiagnostics: NON_PRIVATE_NOTE,
  };
  await writeOrExplain(reportPath, release.id, 'report', () =>
    writeFileAtomic(reportPath, `${JSON.stringify(report, null, 2)}\n`),
  );
  return report;
}

async function writeOrExplain(
  file: string,
  releaseId: string,
  what: string,
  write: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new OutputNotWrittenError(
      `could not write the ${what} to ${file} (${code}): the file was NOT written. ` +
        `Release ${releaseId} stays reserved and its privacy spend stays counted; ` +
        'free space or fix permissions before running again',
    );
  }
}

export interface OutputTable {
  readonly schema: Schema;
  readonly header: readonly string[];
  readonly codes: RapResult['synthetic']['codes'];
}

/**
 * The synthetic table in the input's column order (header equal to the input's header, less
 * columns the schema leaves out); schema order for a file without a header.
 */
export function outputTable(loaded: LoadResult, result: RapResult): OutputTable {
  const { schema } = loaded.dataset;
  const names = schema.columns.map((c) => c.name);
  if (!loaded.summary.hasHeader) return { schema, header: names, codes: result.synthetic.codes };
  const index = new Map(names.map((n, j) => [n, j]));
  const order = loaded.header.filter((h) => index.has(h)).map((h) => index.get(h)!);
  return {
    schema: { ...schema, columns: order.map((j) => schema.columns[j]) },
    header: order.map((j) => names[j]),
    codes: order.map((j) => result.synthetic.codes[j]),
  };
}

/**
 * Values inside a numeric bin are spread uniformly. Not privacy noise (the codes are already
 * private), but drawn from the privacy module's sources anyway so that a seeded run is
 * byte-for-byte reproducible and a secure run uses no predictable generator.
 */
export function decodeRandom(noise: NoiseSpec): () => number {
  const source = noise.mode === 'secure' ? secureNoise() : seededNoise(`${noise.seed}/decode`);
  return () => source.uniform();
}
