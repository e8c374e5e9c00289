/**
 * The ledger's append-only event log: what each event says and how it is chained. An event's
 * hash is SHA-256 over `prev_hash \n id \n ts \n kind \n payload` (payload = canonical JSON), so an
 * auditor can recompute the chain with nothing but the `events` table and sha256sum.
 */
import { canonicalJson, sha256Hex } from './canonical.ts';
import { type ReserveRequest, SCHEMA_ORIGINS } from './types.ts';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * A cap set before the tight (ε, δ) → ρ conversion (issue 19), re-converted: same (ε, δ), ρ
 * raised from `previousRho` (the loose conversion the cap was enforced with) to `rho`.
 */
export interface CapReconvertedPayload {
  fingerprint: string;
  epsilon: number;
  delta: number;
  previousRho: number;
  rho: number;
}

/** A reservation as the event log records it: the request plus the release id. */
export type ReservedPayload = ReserveRequest & { id: string };

export type LedgerEvent =
  | {
      kind: 'dataset-registered';
      /** columns: the file's column names (ledger schema 4 on; absent when not known). */
      payload: { fingerprint: string; name: string; rows: number; columns?: string[] };
    }
  /** A dataset's column names, learned after it was registered (once). */
  | { kind: 'dataset-columns'; payload: { fingerprint: string; columns: string[] } }
  /** Another file (`fingerprint`) released against the budget of `dataset`, by the curator's choice. */
  | { kind: 'dataset-file'; payload: { fingerprint: string; dataset: string; name: string; rows: number } }
  | { kind: 'dataset-alias'; payload: { fingerprint: string; name: string } }
  | { kind: 'dataset-rows'; payload: { fingerprint: string; rows: number } }
  | {
      kind: 'cap-set';
      /** unit: the column identifying persons when the budget is per person (absent: per row). */
      payload: { fingerprint: string; rho: number; epsilon: number; delta: number; unit?: string };
    }
  /** Migration (issue 19): a cap's (ε, δ) re-converted to ρ by the tight conversion. */
  | { kind: 'cap-reconverted'; payload: CapReconvertedPayload }
  | { kind: 'release-reserved'; payload: ReservedPayload }
  | { kind: 'release-committed'; payload: { id: string; outputSha256: string; outputPath: string | null } }
  | { kind: 'release-aborted'; payload: { id: string; reason: string } };

export type EventKind = LedgerEvent['kind'];

// Shape checks for payloads read back from the file (verify). Hand-written rather than zod:
// every CLI process loads this module, and this keeps its start-up light.
/** Returns what is wrong with a value, or undefined when it fits. */
type Check = (value: unknown) => string | undefined;

const is =
  (test: (v: unknown) => boolean, what: string): Check =>
  (v) =>
    test(v) ? undefined : `expected ${what}, got ${JSON.stringify(v)}`;
const text = is((v) => typeof v === 'string' && v.length > 0, 'a non-empty string');
const anyText = is((v) => typeof v === 'string', 'a string');
const hex64 = is((v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v), 'a SHA-256 hex digest');
const positive = is((v) => typeof v === 'number' && Number.isFinite(v) && v > 0, 'a finite number > 0');
const probability = is((v) => typeof v === 'number' && v > 0 && v < 1, 'a number in (0, 1)');
const count = (min: number) => is((v) => Number.isInteger(v) && (v as number) >= min, `an integer >= ${min}`);
const number = is((v) => typeof v === 'number', 'a number');
const oneOf = (...options: readonly string[]) =>
  is((v) => options.includes(v as string), options.join(' or '));
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null ? undefined : check(v);
/** A member that events written before it was introduced do not carry. */
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? undefined : check(v);
const names = is(
  (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'),
  'a non-empty list of column names',
);
const subProbability = is((v) => typeof v === 'number' && v >= 0 && v < 1, 'a number in [0, 1)');

/** An object with exactly these members (or at least these, when `open`). */
function object(members: Record<string, Check>, open = false): Check {
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'expected an object';
    const record = v as Record<string, unknown>;
    for (const [key, check] of Object.entries(members)) {
      const problem = check(record[key]);
      if (problem) return `${key}: ${problem}`;
    }
    const extra = open ? undefined : Object.keys(record).find((k) => !(k in members));
    return extra === undefined ? undefined : `unexpected member ${extra}`;
  };
}

const PAYLOADS: Record<EventKind, Check> = {
  'dataset-registered': object({ fingerprint: hex64, name: text, rows: count(0), columns: optional(names) }),
  'dataset-columns': object({ fingerprint: hex64, columns: names }),
  'dataset-file': object({ fingerprint: hex64, dataset: hex64, name: text, rows: count(0) }),
  'dataset-alias': object({ fingerprint: hex64, name: text }),
  'dataset-rows': object({ fingerprint: hex64, rows: count(1) }),
  'cap-set': object({
    fingerprint: hex64,
    rho: positive,
    epsilon: positive,
    delta: probability,
    unit: (v) => (v === undefined ? undefined : text(v)),
  }),
  'cap-reconverted': object({
    fingerprint: hex64,
    epsilon: positive,
    delta: probability,
    previousRho: positive,
    rho: positive,
  }),
  'release-reserved': object({
    id: text,
    fingerprint: hex64,
    mechanism: text,
    epsilon: positive,
    delta: probability,
    rho: positive,
    // Ledger schema 4 on; absent in earlier events (see approxDeltaOf, state.ts).
    approxDelta: optional(subProbability),
    // The file released, when it is not the dataset's own (a file of a named dataset).
    fileFingerprint: optional(hex64),
    params: object({ rounds: number, perRound: number, rows: number, oversample: number }, true),
    workload: object({ hash: text, json: anyText }),
    schema: object({ hash: text, origin: oneOf(...SCHEMA_ORIGINS) }),
    seedMode: oneOf('secure', 'insecure-seed'),
    backend: text,
    appVersion: text,
  }),
  'release-committed': object({ id: text, outputSha256: hex64, outputPath: nullable(anyText) }),
  'release-aborted': object({ id: text, reason: text }),
};

/** An event with its place in the chain. */
export interface ChainedEvent {
  readonly id: number;
  readonly ts: string;
  readonly prevHash: string;
  readonly hash: string;
  readonly event: LedgerEvent;
}

/** The `events` table's row, as stored. */
export interface EventRow {
  id: number;
  ts: string;
  kind: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

export function eventHash(prevHash: string, id: number, ts: string, kind: string, payload: string): string {
  return sha256Hex(`${prevHash}\n${id}\n${ts}\n${kind}\n${payload}`);
}

/** Builds the stored row for the event that follows `prev` (undefined for the first). */
export function chainEvent(
  prev: { id: number; hash: string } | undefined,
  ts: string,
  event: LedgerEvent,
): EventRow {
  const id = (prev?.id ?? 0) + 1;
  const prevHash = prev?.hash ?? GENESIS_HASH;
  const payload = canonicalJson(event.payload);
  return {
    id,
    ts,
    kind: event.kind,
    payload,
    prev_hash: prevHash,
    hash: eventHash(prevHash, id, ts, event.kind, payload),
  };
}

/** Parses a stored row back into a typed event; a reason string when it is not one. */
export function parseEventRow(row: EventRow): ChainedEvent | string {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return 'payload is not valid JSON';
  }
  if (canonicalJson(payload) !== row.payload) return 'payload is not in canonical form';
  if (!Object.hasOwn(PAYLOADS, row.kind)) return `unknown event kind ${JSON.stringify(row.kind)}`;
  const problem = PAYLOADS[row.kind as EventKind](payload);
  if (problem) return `not a valid ${row.kind} event: ${problem}`;
  const event = { kind: row.kind, payload } as LedgerEvent;
  return { id: row.id, ts: row.ts, prevHash: row.prev_hash, hash: row.hash, event };
}
