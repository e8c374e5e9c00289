/** State-table rows → the public records. */
import type { AliasRow, DatasetRow, ReleaseRow } from './state.ts';
import type { DatasetRecord, LedgerSeedMode, ReleaseParams, ReleaseRecord, SchemaOrigin } from './types.ts';

export function toDatasetRecord(row: DatasetRow, aliases: readonly AliasRow[]): DatasetRecord {
  const cap =
    row.cap_rho !== null && row.cap_epsilon !== null && row.cap_delta !== null && row.cap_set_at !== null
      ? { rho: row.cap_rho, epsilon: row.cap_epsilon, delta: row.cap_delta, setAt: row.cap_set_at }
      : null;
  return {
    fingerprint: row.fingerprint,
    name: row.name,
    aliases: aliases.map((a) => a.name),
    rows: row.rows,
    createdAt: row.created_at,
    cap,
    columns: row.columns === null || row.columns === undefined ? null : (JSON.parse(row.columns) as string[]),
  };
}

export function toReleaseRecord(row: ReleaseRow): ReleaseRecord {
  const base = {
    id: row.id,
    datasetFingerprint: row.dataset_fingerprint,
    createdAt: row.created_at,
    mechanism: row.mechanism,
    epsilon: row.epsilon,
    delta: row.delta,
    rho: row.rho,
    approxDelta: row.approx_delta,
    params: JSON.parse(row.params) as ReleaseParams,
    workload: { hash: row.workload_hash, json: row.workload_json },
    schema: { hash: row.schema_hash, origin: row.schema_origin as SchemaOrigin },
    seedMode: row.seed_mode as LedgerSeedMode,
    backend: row.backend,
    appVersion: row.app_version,
    statusChangedAt: row.status_changed_at,
    prevHash: row.prev_hash,
    rowHash: row.row_hash,
  };
  switch (row.status) {
    case 'committed':
      return {
        ...base,
        status: 'committed',
        outputSha256: row.output_sha256 ?? '',
        ...(row.output_path !== null ? { outputPath: row.output_path } : {}),
      };
    case 'aborted':
      return { ...base, status: 'aborted', abortReason: row.abort_reason ?? '' };
    default:
      return { ...base, status: 'reserved' };
  }
}
