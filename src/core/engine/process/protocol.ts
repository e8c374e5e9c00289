/**
 * The engine process protocol: the typed messages the host (CLI or app main process) and the
 * engine child exchange. Both sides validate every incoming message at runtime, because a
 * message crosses a process boundary and a malformed one must fail loudly, not half-work.
 *
 * host → child:  start (once, after `ready`), cancel
 * child → host:  ready, progress*, then exactly one of done | cancelled | error
 *
 * The private data travels inside `start` as typed arrays (structured clone: Node's
 * `serialization: 'advanced'` or Electron's utilityProcess): the encoded rows, or their exact
 * tables (a Map of Float64Arrays, data/counted.ts), checked here for shape, counts and
 * completeness (every table requiredFeatureSets lists for the request). The host sends it only after the
 * ledger reserved the budget, so the child never sees private data before the spend is counted.
 */
import { z } from 'zod';
import { type CountedDataset, countedProblem, isCounted, type PrivateData } from '../../data/counted.ts';
import { BACKENDS, ENGINE_MODES } from '../../input/choices.ts';
import type { Workload } from '../../workload/types.ts';
import type { PaidOneWays } from '../paid-one-ways.ts';
import { assertTablesFor } from '../required-tables.ts';
import type { ProgressEvent, RapOptions, RapResult } from '../types.ts';

/** Where the engine's randomness comes from; the child builds the NoiseSource from this. */
export type NoiseSpec =
  | { readonly mode: 'secure' }
  | { readonly mode: 'insecure-seed'; readonly seed: number };

/** Everything a run needs, as sent in `start`. */
export interface EngineRequest {
  /** The encoded rows, or their exact tables (every set requiredFeatureSets lists: checked below). */
  readonly data: PrivateData;
  readonly workload: Workload;
  readonly options: RapOptions;
  readonly noise: NoiseSpec;
  /** Discovery's one-ways, already paid for (paid-one-ways.ts), per feature or null. */
  readonly paidOneWays?: PaidOneWays;
  readonly evalWorkload?: Workload;
  readonly evalWorkloads?: readonly Workload[];
}

export type HostMessage =
  | { readonly type: 'start'; readonly request: EngineRequest }
  | { readonly type: 'cancel' };

/** 'input' errors map to InputError (exit 2) on the host; everything else is a runtime failure. */
export type EngineErrorKind = 'input' | 'runtime';

export type ChildMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'progress'; readonly event: ProgressEvent }
  | { readonly type: 'done'; readonly result: RapResult }
  | { readonly type: 'cancelled' }
  | {
      readonly type: 'error';
      readonly kind: EngineErrorKind;
      readonly message: string;
      readonly where?: Readonly<Record<string, string | number>>;
    };

// ---- runtime validation -------------------------------------------------------------------

const finite = z.number().refine(Number.isFinite, 'must be finite');
const count = z.number().int().min(0);
const positiveInt = z.number().int().min(1);

const codeArray = z.union([z.instanceof(Uint8Array), z.instanceof(Uint16Array), z.instanceof(Uint32Array)]);

const columnBase = { name: z.string(), missing: z.boolean() };
const column = z.discriminatedUnion('kind', [
  z.object({ ...columnBase, kind: z.literal('categorical'), categories: z.array(z.string()).min(1) }),
  z.object({
    ...columnBase,
    kind: z.literal('numeric'),
    edges: z.array(finite).min(2),
    integer: z.boolean(),
  }),
]);
const schema = z.object({
  version: z.literal(1),
  origin: z.enum(['declared', 'inferred', 'discovered']),
  columns: z.array(column).min(1),
});

const dataset = z
  .object({ schema, n: count, codes: z.array(codeArray) })
  .refine((d) => d.codes.length === d.schema.columns.length, 'one code array per schema column')
  .refine((d) => d.codes.every((c) => c.length === d.n), 'every code array has n entries');

/** Exact tables instead of rows (data/counted.ts): shapes, counts and sums checked here. */
const counted = z
  .object({
    kind: z.literal('counted'),
    schema,
    n: count,
    tables: z.instanceof(Map<string, Float64Array>),
  })
  .superRefine((d, ctx) => {
    const problem = countedProblem(d as CountedDataset);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['tables'] });
  });

/** The rows or their tables, told apart by `kind` (so a malformed one gets its own form's message). */
const privateData = z.unknown().transform((raw, ctx) => {
  const form = (raw as { kind?: unknown } | null)?.kind === 'counted' ? counted : dataset;
  const parsed = form.safeParse(raw);
  if (parsed.success) return parsed.data as PrivateData;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

const threshold = z.object({
  features: z.array(count).min(1),
  r: positiveInt,
  weight: finite.refine((w) => w > 0, 'must be > 0'),
});
const workload = z.object({ thresholds: z.array(threshold) });

const backend = z.enum(BACKENDS);

const options = z.object({
  epsilon: finite.refine((e) => e > 0, 'must be > 0'),
  delta: z.number().gt(0).lt(1),
  rows: positiveInt,
  rounds: positiveInt.optional(),
  perRound: positiveInt.optional(),
  oversample: positiveInt,
  mode: z.enum(ENGINE_MODES),
  tablePlan: z.enum(['direct', 'mixed', 'adaptive']).optional(),
  selection: z.enum(['oneshot', 'iterative']),
  learningRate: finite,
  maxSteps: positiveInt,
  tolerance: finite,
  batchSize: positiveInt,
  backend: backend.optional(),
  relaxation: z.enum(['sparsemax', 'softmax']).optional(),
  threads: positiveInt.optional(),
  certify: z
    .object({
      zeta: z.number().gt(0).lt(1),
      share: z.number().gt(0).lt(1),
      beta: z.number().gt(0).lt(1).optional(),
      maxViolations: positiveInt.optional(),
    })
    .optional(),
  unit: z.object({ bound: positiveInt, normaliser: positiveInt }).optional(),
});

const paidOneWay = z
  .object({ values: z.instanceof(Float64Array), variances: z.instanceof(Float64Array) })
  .refine((p) => p.values.length === p.variances.length, 'one variance per value')
  .refine((p) => p.values.every(Number.isFinite), 'finite values')
  .refine((p) => p.variances.every((v) => v >= 0 && Number.isFinite(v)), 'finite variances >= 0');

const noise = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('secure') }),
  z.object({ mode: z.literal('insecure-seed'), seed: z.number().int() }),
]);

const hostMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    request: z
      .object({
        data: privateData,
        workload,
        options,
        noise,
        paidOneWays: z.array(paidOneWay.nullable()).optional(),
        evalWorkload: workload.optional(),
        evalWorkloads: z.array(workload).optional(),
      })
      .superRefine((request, ctx) => {
        const missing = missingTables(request);
        if (missing) ctx.addIssue({ code: 'custom', message: missing, path: ['data', 'tables'] });
      }),
  }),
  z.object({ type: z.literal('cancel') }),
]);

const progressEvent = z.object({
  round: count,
  rounds: count,
  step: count,
  loss: z.number(),
  maxSelectedError: z.number(),
  elapsedSeconds: z.number(),
  etaSeconds: z.number(),
  selectedThresholds: z.array(count).optional(),
  sigma: z.number().positive().optional(),
});

// The report is a wide record the engine owns; check the fields the host relies on and keep the rest.
const report = z.looseObject({
  mode: z.enum(['query', 'table']),
  presentError: z.number(),
  roundedPresentError: z.number(),
  numQueries: count,
  rho: z.number(),
  epsilon: z.number(),
  delta: z.number(),
  rounds: count,
  perRound: count,
  rows: count,
  backend,
  seedMode: z.string(),
});

const childMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('progress'), event: progressEvent }),
  z.object({
    type: z.literal('done'),
    result: z.object({ report, synthetic: z.object({ n: count, codes: z.array(codeArray) }) }),
  }),
  z.object({ type: z.literal('cancelled') }),
  z.object({
    type: z.literal('error'),
    kind: z.enum(['input', 'runtime']),
    message: z.string(),
    where: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  }),
]);

/**
 * A counted input without a table the run will read (required-tables.ts): an internal error of
 * the counting step, named here before the run starts rather than halfway through it.
 */
function missingTables(request: {
  data: PrivateData;
  workload: Workload;
  evalWorkload?: Workload | undefined;
  evalWorkloads?: readonly Workload[] | undefined;
}): string | undefined {
  const data = request.data;
  if (!isCounted(data)) return undefined;
  try {
    assertTablesFor(data, {
      workload: request.workload,
      ...(request.evalWorkload ? { evalWorkload: request.evalWorkload } : {}),
      ...(request.evalWorkloads ? { evalWorkloads: request.evalWorkloads } : {}),
    });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Thrown when a message does not follow the protocol (a bug or a version mismatch, never user input). */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`)
    .join('; ');
}

function parseWith<T>(validator: z.ZodType, raw: unknown, direction: string): T {
  const parsed = validator.safeParse(raw);
  if (!parsed.success)
    throw new ProtocolError(`invalid ${direction} message: ${describeIssues(parsed.error)}`);
  // The validator is written against the exported types; the cast only restores readonly-ness.
  return parsed.data as T;
}

export function parseHostMessage(raw: unknown): HostMessage {
  return parseWith<HostMessage>(hostMessage, raw, 'host→engine');
}

export function parseChildMessage(raw: unknown): ChildMessage {
  return parseWith<ChildMessage>(childMessage, raw, 'engine→host');
}
