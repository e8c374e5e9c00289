/**
 * Exports for an oversight body. JSON carries everything, including the raw event log so the
 * chain can be recomputed independently; CSV is one row per release (the workload itself is
 * left out of CSV: its hash identifies it and the JSON export carries it).
 */
import { type EventRow, GENESIS_HASH } from './events.ts';
import { type BudgetTotals, type DatasetRecord, type ReleaseRecord, SCHEMA_ORIGIN_WORDS } from './types.ts';

export interface ExportInput {
  readonly datasets: readonly { dataset: DatasetRecord; totals: BudgetTotals }[];
  readonly releases: readonly ReleaseRecord[];
  readonly events: readonly EventRow[];
}

export const CSV_COLUMNS = [
  'id',
  'dataset_fingerprint',
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
  const head = input.events.at(-1)?.hash ?? GENESIS_HASH;
  const doc = {
    format: 'rap-studio-ledger',
    version: 1,
    hashRule:
      'hash = sha256(prev_hash + "\\n" + id + "\\n" + ts + "\\n" + kind + "\\n" + payload); first prev_hash = 64 zeros',
    headHash: head,
    // What each release's schema.origin means, for a reader without the code (ledger schema 3).
    schemaOrigins: SCHEMA_ORIGIN_WORDS,
    datasets: input.datasets.map(({ dataset, totals }) => ({ ...dataset, totals })),
    releases: input.releases,
    events: input.events.map((e) => ({
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
  const names = new Map(input.datasets.map(({ dataset }) => [dataset.fingerprint, dataset.name]));
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of input.releases) {
    const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
      id: r.id,
      dataset_fingerprint: r.datasetFingerprint,
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
      prev_hash: r.prevHash,
      row_hash: r.rowHash,
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
