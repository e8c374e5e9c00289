/**
 * One entry point for every API call, used by Electron's IPC handlers and by the web host:
 * validate the method name and its argument (zod), call the service, and turn failures into
 * the error payload the renderer understands. Internal error details never leave the process
 * (they could quote private values); the curator gets the actionable message of an InputError.
 */
import { z } from 'zod';
import { MAX_DOMAIN_SIZE } from '../core/data/schema.ts';
import { CancelledError } from '../core/engine/process/errors.ts';
import { BudgetRefusedError, InputError } from '../core/errors.ts';
import { LedgerError } from '../core/ledger/errors.ts';
import { OutputNotWrittenError } from '../core/release/messages.ts';
import { TEXT_SETTINGS, type TextSettingName } from '../core/release/spec.ts';
import type { ApiErrorPayload, ApiMethod, ApiMethods } from '../shared/api.ts';
import type { Services } from './services.ts';

const empty = z.object({}).strict();
const id = z.string().min(1).max(200);
const datasetRef = { datasetId: id };
const text = z.string().max(64 * 1024 * 1024);
const fileName = z.string().min(1).max(500).optional();
const feature = z.string().min(1).max(1000);
const role = z.enum(['main', 'eval']);
const count = z.int().min(1).max(1_000_000);
const field = z.string().max(100);

const temporal = z
  .object({ kind: z.enum(['date', 'time', 'datetime']), format: z.string().min(1).max(100) })
  .strict();

const columnSchema = z.discriminatedUnion('kind', [
  z.object({
    name: feature,
    kind: z.literal('categorical'),
    categories: z.array(z.string().max(10_000)).max(100_000),
    missing: z.boolean(),
    temporal: temporal.optional(),
    declare: z.boolean().optional(),
  }),
  z.object({
    name: feature,
    kind: z.literal('numeric'),
    edges: z.array(z.number()).max(100_000),
    integer: z.boolean(),
    missing: z.boolean(),
    temporal: temporal.optional(),
    declare: z.boolean().optional(),
  }),
]);

const threshold = z
  .object({ features: z.array(feature).min(1).max(1000), r: z.int(), weight: z.number() })
  .strict();

/** The dataset picker's choice (shared/api.ts, LedgerDatasetChoice). */
const ledgerDataset = z.union([
  z.object({ spend: z.string().min(1).max(500) }).strict(),
  z.object({ new: z.literal(true) }).strict(),
]);

/** Every plain text setting of the release spec (core/release/spec.ts, TEXT_SETTINGS). */
const textSettings = Object.fromEntries(TEXT_SETTINGS.map((name) => [name, field.optional()])) as Record<
  TextSettingName,
  z.ZodOptional<typeof field>
>;

const settings = z
  .object({
    ...textSettings,
    epsilon: field,
    mode: z.enum(['query', 'table']).optional(),
    selection: z.enum(['one-shot', 'adaptive']).optional(),
    relaxation: z.enum(['sparsemax', 'softmax']).optional(),
    importance: z.enum(['none', 'history']).optional(),
    insecureSeed: field.optional(),
    domain: z.enum(['discover', 'as-read']).optional(),
    allowNonPrivateDomain: z.boolean().optional(),
    ledgerDataset: ledgerDataset.optional(),
    unitColumn: z.string().max(1000).optional(),
    rowsPerPerson: field.optional(),
    exclude: z.array(feature).max(10_000).optional(),
    hierarchy: z.array(z.string().max(2000)).max(10_000).optional(),
  })
  .strict();

/** A database source as the Data step names it (database-service.ts); the password in memory only. */
const databaseSource = z
  .object({
    url: z.string().min(1).max(2000),
    table: z.string().min(1).max(1000).optional(),
    sql: z
      .string()
      .min(1)
      .max(1024 * 1024)
      .optional(),
    password: z.string().max(10_000).optional(),
  })
  .strict();

/** Argument validators: one per API method (the `satisfies` clause makes a missing one a type error). */
export const argSchemas = {
  appInfo: empty,
  session: empty,
  pickFile: z.object({ purpose: z.literal('data') }).strict(),
  describeDatabase: databaseSource,
  setDatabaseCap: z
    .object({
      source: databaseSource,
      epsilon: field,
      delta: field.optional(),
      unitColumn: z.string().max(1000).optional(),
    })
    .strict(),
  startDatabaseRun: z
    .object({
      source: databaseSource,
      thresholds: z.array(threshold).max(100_000),
      schema: z
        .object({ columns: z.array(columnSchema).max(10_000) })
        .strict()
        .optional(),
      temporal: z.record(feature, temporal).optional(),
      settings,
    })
    .strict(),
  planDatabaseRun: z
    .object({
      source: databaseSource,
      schema: z
        .object({ columns: z.array(columnSchema).max(10_000) })
        .strict()
        .optional(),
      temporal: z.record(feature, temporal).optional(),
      settings,
    })
    .strict(),
  openDataset: z
    .object({
      path: z.string().min(1).max(4096),
      name: z.string().min(1).max(500).optional(),
      header: z.enum(['auto', 'yes', 'no']).optional(),
      schemaText: text.optional(),
      domainText: text.optional(),
    })
    .strict(),
  setHeader: z.object({ ...datasetRef, header: z.enum(['yes', 'no']) }).strict(),
  histogram: z.object({ ...datasetRef, column: feature }).strict(),
  unitHints: z.object({ ...datasetRef }).strict(),
  setCategoryLimit: z
    .object({ ...datasetRef, column: feature, limit: z.int().min(1).max(MAX_DOMAIN_SIZE) })
    .strict(),
  setSchema: z
    .object({ ...datasetRef, schema: z.object({ columns: z.array(columnSchema).max(10_000) }).strict() })
    .strict(),
  importSchema: z.object({ ...datasetRef, text, fileName }).strict(),
  exportSchema: z.object(datasetRef).strict(),
  confirmSchema: z.object(datasetRef).strict(),
  setWorkload: z.object({ ...datasetRef, role, thresholds: z.array(threshold).max(100_000) }).strict(),
  importWorkload: z.object({ ...datasetRef, role, text, fileName }).strict(),
  exportWorkload: z.object({ ...datasetRef, role }).strict(),
  allSubsets: z
    .object({
      ...datasetRef,
      features: z.array(feature).min(1).max(1000),
      k: count,
      r: count,
      weight: z.number(),
    })
    .strict(),
  defaultThresholds: z.object({ ...datasetRef, target: feature.optional() }).strict(),
  randomThresholds: z
    .object({
      ...datasetRef,
      features: z.array(feature).max(1000).optional(),
      k: count,
      r: count,
      size: count,
      dist: z.enum(['uniform', 'zipf', 'geometric']),
      seed: z.int().min(0),
      weight: z.number(),
    })
    .strict(),
  driftedThresholds: z
    .object({
      ...datasetRef,
      k: count,
      r: count,
      size: count,
      drift: z.number().min(0).max(1),
      seed: z.int().min(0),
      weight: z.number(),
    })
    .strict(),
  runPlan: z.object({ ...datasetRef, settings }).strict(),
  setCap: z
    .object({
      ...datasetRef,
      epsilon: field,
      delta: field.optional(),
      ledgerDataset: ledgerDataset.optional(),
      unitColumn: z.string().max(1000).optional(),
    })
    .strict(),
  startRun: z.object({ ...datasetRef, settings }).strict(),
  runState: empty,
  cancelRun: empty,
  results: z.object({ runId: id }).strict(),
  marginalCompare: z.object({ runId: id, features: z.array(feature).min(1).max(2) }).strict(),
  exportRun: z.object({ runId: id, fileName }).strict(),
  pendingReleases: empty,
  ledgerTimeline: z.object({ fingerprint: id, format: z.enum(['csv', 'html']) }).strict(),
  releaseReport: z.object({ runId: id }).strict(),
  keptReleases: empty,
  discardRun: z.object({ runId: id, confirm: z.literal('discard') }).strict(),
  ledgerOverview: empty,
  ledgerVerify: empty,
  ledgerExport: z.object({ format: z.enum(['csv', 'json']) }).strict(),
} satisfies { [M in ApiMethod]: z.ZodType<ApiMethods[M][0]> };

export class ApiError extends Error {
  constructor(readonly payload: ApiErrorPayload) {
    super(payload.message);
  }
}

function isApiMethod(name: string): name is ApiMethod {
  return Object.hasOwn(argSchemas, name);
}

export function toErrorPayload(err: unknown): ApiErrorPayload {
  if (err instanceof ApiError) return err.payload;
  if (err instanceof InputError) return { kind: 'input', message: err.message };
  if (err instanceof BudgetRefusedError) return { kind: 'budget', message: err.message };
  if (err instanceof OutputNotWrittenError) return { kind: 'output', message: err.message };
  if (err instanceof LedgerError) return { kind: 'ledger', message: err.message };
  if (err instanceof CancelledError) return { kind: 'cancelled', message: err.message };
  return { kind: 'internal', message: 'Internal error: see the application log for details.' };
}

export async function dispatch(services: Services, method: string, rawArg: unknown): Promise<unknown> {
  if (!isApiMethod(method)) {
    throw new ApiError({ kind: 'input', message: `Unknown API method "${method}".` });
  }
  const parsed = argSchemas[method].safeParse(rawArg ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` at "${issue.path.join('.')}"` : '';
    throw new ApiError({ kind: 'input', message: `Invalid argument for ${method}${at}: ${issue?.message}` });
  }
  const fn = services[method] as (arg: unknown) => Promise<unknown>;
  return fn.call(services, parsed.data);
}
