/**
 * Exports for an oversight body. JSON carries everything, including the event log so a chain can
 * be recomputed independently; CSV is one row per release (the workload itself is left out of
 * CSV: its hash identifies it and the JSON export carries it).
 *
 * No value in an export is a deterministic function of a private file (issue 26): each dataset
 * fingerprint (the SHA-256 of the file) is replaced by its keyed fingerprint, HMAC-SHA256 under
 * the ledger's secret key (key.ts), in the datasets, the releases and every event payload; and
 * since the ledger's own chain hashes cover the raw fingerprints, the export carries the chain
 * recomputed over the payloads it shows (same rule, so the oversight body re-hashes it from the
 * export alone). The curator, holding the ledger and its key, regenerates the same export.
 */
import { canonicalJson } from './canonical.ts';
import { type EventRow, eventHash, GENESIS_HASH } from './events.ts';
import { type BudgetTotals, type DatasetRecord, type ReleaseRecord, SCHEMA_ORIGIN_WORDS } from './types.ts';

export interface ExportInput {
  readonly datasets: readonly { dataset: DatasetRecord; totals: BudgetTotals }[];
  readonly releases: readonly ReleaseRecord[];
  readonly events: readonly EventRow[];
  /** A dataset fingerprint → its keyed fingerprint (HMAC under the ledger's key). */
  readonly keyFingerprint: (fingerprint: string) => string;
}

/** The events as exported (keyed payloads, chain recomputed over them), and each raw hash's exported one. */
function exportedChain(input: ExportInput): { events: EventRow[]; hashOf: Map<string, string> } {
  const hashOf = new Map<string, string>([[GENESIS_HASH, GENESIS_HASH]]);
  let prev = GENESIS_HASH;
  const events = input.events.map((e) => {
    const payload = keyedPayload(e.payload, input.keyFingerprint);
    const hash = eventHash(prev, e.id, e.ts, e.kind, payload);
    const row = { id: e.id, ts: e.ts, kind: e.kind, payload, prev_hash: prev, hash };
    hashOf.set(e.hash, hash);
    prev = hash;
    return row;
  });
  return { events, hashOf };
}

/** The members of an event payload that hold a file's fingerprint. */
const FINGERPRINT_MEMBERS = ['fingerprint', 'dataset', 'fileFingerprint'] as const;

/** The payload with every file fingerprint keyed (`fingerprint`; `dataset`, `fileFingerprint`). */
function keyedPayload(payload: string, keyFingerprint: (fp: string) => string): string {
  const value = JSON.parse(payload) as Record<string, unknown>;
  const keyed = { ...value };
  let changed = false;
  for (const m of FINGERPRINT_MEMBERS) {
    if (typeof value[m] === 'string' && /^[0-9a-f]{64}$/.test(value[m] as string)) {
      keyed[m] = keyFingerprint(value[m] as string);
      changed = true;
    }
  }
  return changed ? canonicalJson(keyed) : payload;
}

export const CSV_COLUMNS = [
  'id',
  'dataset_keyed_fingerprint',
  'dataset_name',
  'created_at',
  'status',
  'status_changed_at',
  'mechanism',
  'epsilon',
  'delta',
  'rho',
  'approx_delta',
  'rounds',
  'per_round',
  'synthetic_rows',
  'oversample',
  'params_json',
  'workload_hash',
  'schema_hash',
  'schema_origin',
  'seed_mode',
  'backend',
  'app_version',
  'output_sha256',
  'output_path',
  'abort_reason',
  'prev_hash',
  'row_hash',
] as const;

export function exportLedger(format: 'csv' | 'json', input: ExportInput): string {
  return format === 'csv' ? toCsv(input) : toJson(input);
}

function toJson(input: ExportInput): string {
  const { events, hashOf } = exportedChain(input);
  const key = input.keyFingerprint;
  const doc = {
    format: 'rap-studio-ledger',
    version: 2,
    hashRule:
      'hash = sha256(prev_hash + "\\n" + id + "\\n" + ts + "\\n" + kind + "\\n" + payload); first prev_hash = 64 zeros',
    fingerprintRule:
      'a dataset\'s fingerprint is HMAC-SHA256(the ledger\'s secret key, "dataset\\n" + SHA-256 of the file): ' +
      'it identifies the dataset within this ledger and says nothing about the file without the key',
    headHash: events.at(-1)?.hash ?? GENESIS_HASH,
    // What each release's schema.origin means, for a reader without the code (ledger schema 3).
    schemaOrigins: SCHEMA_ORIGIN_WORDS,
    datasets: input.datasets.map(({ dataset, totals }) => ({
      ...dataset,
      fingerprint: key(dataset.fingerprint),
      totals: { ...totals, fingerprint: key(totals.fingerprint) },
    })),
    releases: input.releases.map((r) => ({
      ...r,
      datasetFingerprint: key(r.datasetFingerprint),
      prevHash: hashOf.get(r.prevHash) ?? '',
      rowHash: hashOf.get(r.rowHash) ?? '',
    })),
    events: events.map((e) => ({
      id: e.id,
      ts: e.ts,
      kind: e.kind,
      payload: e.payload,
      prevHash: e.prev_hash,
      hash: e.hash,
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function toCsv(input: ExportInput): string {
  const { hashOf } = exportedChain(input);
  const names = new Map(input.datasets.map(({ dataset }) => [dataset.fingerprint, dataset.name]));
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of input.releases) {
    const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
      id: r.id,
      dataset_keyed_fingerprint: input.keyFingerprint(r.datasetFingerprint),
      dataset_name: names.get(r.datasetFingerprint) ?? '',
      created_at: r.createdAt,
      status: r.status,
      status_changed_at: r.statusChangedAt,
      mechanism: r.mechanism,
      epsilon: r.epsilon,
      delta: r.delta,
      rho: r.rho,
      approx_delta: r.approxDelta,
      rounds: r.params.rounds,
      per_round: r.params.perRound,
      synthetic_rows: r.params.rows,
      oversample: r.params.oversample,
      params_json: JSON.stringify(r.params),
      workload_hash: r.workload.hash,
      schema_hash: r.schema.hash,
      schema_origin: r.schema.origin,
      seed_mode: r.seedMode,
      backend: r.backend,
      app_version: r.appVersion,
      output_sha256: r.outputSha256 ?? '',
      output_path: r.outputPath ?? '',
      abort_reason: r.abortReason ?? '',
      prev_hash: hashOf.get(r.prevHash) ?? '',
      row_hash: hashOf.get(r.rowHash) ?? '',
    };
    lines.push(CSV_COLUMNS.map((c) => csvField(row[c])).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** RFC 4180 quoting; a leading =, +, -, @ is prefixed with ' so spreadsheets do not run it. */
export function csvField(value: unknown): string {
  let text = value === undefined || value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
