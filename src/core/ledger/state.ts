/**
 * The state tables (datasets, dataset_aliases, releases) as a pure function of the event log.
 * The ledger writes an event and applies `reduce` in the same transaction; verify() replays the
 * whole log through the same `reduce` in memory and compares, so a state row edited outside the
 * app no longer matches the events that produced it.
 */
import { canonicalJson } from './canonical.ts';
import type { ChainedEvent, ReservedPayload } from './events.ts';

export interface DatasetRow {
  fingerprint: string;
  name: string;
  rows: number;
  created_at: string;
  cap_rho: number | null;
  cap_epsilon: number | null;
  cap_delta: number | null;
  cap_set_at: string | null;
  /** The column names as JSON (ledger schema 4); null when not known. */
  columns: string | null;
}

/** Another file released against a dataset's budget (ledger schema 4). */
export interface DatasetFileRow {
  fingerprint: string;
  dataset_fingerprint: string;
  name: string;
  rows: number;
  added_at: string;
}

export interface AliasRow {
  fingerprint: string;
  name: string;
  added_at: string;
}

export interface ReleaseRow {
  id: string;
  dataset_fingerprint: string;
  reserve_event_id: number;
  created_at: string;
  mechanism: string;
  epsilon: number;
  delta: number;
  rho: number;
  /** ReleaseRecord.approxDelta (ledger schema 4). */
  approx_delta: number;
  params: string;
  workload_hash: string;
  workload_json: string;
  schema_hash: string;
  schema_origin: string;
  seed_mode: string;
  backend: string;
  app_version: string;
  prev_hash: string;
  row_hash: string;
  status: string;
  status_changed_at: string;
  output_sha256: string | null;
  output_path: string | null;
  abort_reason: string | null;
}

export type RowChange =
  | { table: 'datasets'; row: DatasetRow }
  | { table: 'dataset_aliases'; row: AliasRow }
  | { table: 'dataset_files'; row: DatasetFileRow }
  | { table: 'releases'; row: ReleaseRow };

export type TableName = RowChange['table'];

/** Primary-key columns per state table. */
export const TABLE_KEYS: Readonly<Record<TableName, readonly string[]>> = {
  datasets: ['fingerprint'],
  dataset_aliases: ['fingerprint', 'name'],
  dataset_files: ['fingerprint'],
  releases: ['id'],
};

export interface StateReader {
  dataset(fingerprint: string): DatasetRow | undefined;
  alias(fingerprint: string, name: string): AliasRow | undefined;
  file(fingerprint: string): DatasetFileRow | undefined;
  release(id: string): ReleaseRow | undefined;
}

/** An event that cannot follow the state before it (e.g. committing an unknown release). */
export class ReplayError extends Error {}

/** The one row an event inserts or replaces. */
export function reduce(state: StateReader, ce: ChainedEvent): RowChange {
  const { event, ts } = ce;
  switch (event.kind) {
    case 'dataset-registered': {
      const p = event.payload;
      if (state.dataset(p.fingerprint) || state.file(p.fingerprint))
        throw new ReplayError(`dataset ${p.fingerprint} registered twice`);
      return {
        table: 'datasets',
        row: {
          fingerprint: p.fingerprint,
          name: p.name,
          rows: p.rows,
          created_at: ts,
          cap_rho: null,
          cap_epsilon: null,
          cap_delta: null,
          cap_set_at: null,
          columns: p.columns ? JSON.stringify(p.columns) : null,
        },
      };
    }
    case 'dataset-columns': {
      const d = existingDataset(state, event.payload.fingerprint);
      if (d.columns !== null) throw new ReplayError(`columns of ${d.fingerprint} recorded twice`);
      return { table: 'datasets', row: { ...d, columns: JSON.stringify(event.payload.columns) } };
    }
    case 'dataset-file': {
      const p = event.payload;
      existingDataset(state, p.dataset);
      if (state.dataset(p.fingerprint) || state.file(p.fingerprint))
        throw new ReplayError(`file ${p.fingerprint} is already known to the ledger`);
      return {
        table: 'dataset_files',
        row: {
          fingerprint: p.fingerprint,
          dataset_fingerprint: p.dataset,
          name: p.name,
          rows: p.rows,
          added_at: ts,
        },
      };
    }
    case 'dataset-alias': {
      const p = event.payload;
      const d = existingDataset(state, p.fingerprint);
      if (p.name === d.name || state.alias(p.fingerprint, p.name))
        throw new ReplayError(`alias ${p.name} repeated`);
      return { table: 'dataset_aliases', row: { fingerprint: p.fingerprint, name: p.name, added_at: ts } };
    }
    case 'dataset-rows': {
      const d = existingDataset(state, event.payload.fingerprint);
      if (d.rows !== 0) throw new ReplayError(`row count of ${d.fingerprint} recorded twice`);
      return { table: 'datasets', row: { ...d, rows: event.payload.rows } };
    }
    case 'cap-set': {
      const p = event.payload;
      const d = existingDataset(state, p.fingerprint);
      return {
        table: 'datasets',
        row: { ...d, cap_rho: p.rho, cap_epsilon: p.epsilon, cap_delta: p.delta, cap_set_at: ts },
      };
    }
    case 'cap-reconverted': {
      // Only the ρ of the cap in force changes; its (ε, δ) and the time it was set stay.
      const p = event.payload;
      const d = existingDataset(state, p.fingerprint);
      if (d.cap_rho !== p.previousRho || d.cap_epsilon !== p.epsilon || d.cap_delta !== p.delta)
        throw new ReplayError(`cap of ${p.fingerprint} re-converted from a cap it does not have`);
      return { table: 'datasets', row: { ...d, cap_rho: p.rho } };
    }
    case 'release-reserved': {
      const p = event.payload;
      existingDataset(state, p.fingerprint);
      if (state.release(p.id)) throw new ReplayError(`release ${p.id} reserved twice`);
      return {
        table: 'releases',
        row: {
          id: p.id,
          dataset_fingerprint: p.fingerprint,
          reserve_event_id: ce.id,
          created_at: ts,
          mechanism: p.mechanism,
          epsilon: p.epsilon,
          delta: p.delta,
          rho: p.rho,
          approx_delta: approxDeltaOf(p),
          params: canonicalJson(p.params),
          workload_hash: p.workload.hash,
          workload_json: p.workload.json,
          schema_hash: p.schema.hash,
          schema_origin: p.schema.origin,
          seed_mode: p.seedMode,
          backend: p.backend,
          app_version: p.appVersion,
          prev_hash: ce.prevHash,
          row_hash: ce.hash,
          status: 'reserved',
          status_changed_at: ts,
          output_sha256: null,
          output_path: null,
          abort_reason: null,
        },
      };
    }
    case 'release-committed': {
      const r = reservedRelease(state, event.payload.id);
      const { outputSha256, outputPath } = event.payload;
      return {
        table: 'releases',
        row: {
          ...r,
          status: 'committed',
          status_changed_at: ts,
          output_sha256: outputSha256,
          output_path: outputPath,
        },
      };
    }
    case 'release-aborted': {
      const r = reservedRelease(state, event.payload.id);
      return {
        table: 'releases',
        row: { ...r, status: 'aborted', status_changed_at: ts, abort_reason: event.payload.reason },
      };
    }
  }
}

/**
 * A reservation's approximate-zCDP δ. Events before ledger schema 4 do not state it: a discovery
 * release of that time ran partition selection with δ/2 of its δ, which it recorded as
 * `params.discovery.delta` (migration 4 fills the column by the same rule).
 */
export function approxDeltaOf(p: ReservedPayload): number {
  if (p.approxDelta !== undefined) return p.approxDelta;
  const discovery = (p.params as { discovery?: { delta?: unknown } }).discovery;
  return typeof discovery?.delta === 'number' ? discovery.delta : 0;
}

function existingDataset(state: StateReader, fingerprint: string): DatasetRow {
  const d = state.dataset(fingerprint);
  if (!d) throw new ReplayError(`dataset ${fingerprint} is not registered`);
  return d;
}

function reservedRelease(state: StateReader, id: string): ReleaseRow {
  const r = state.release(id);
  if (!r) throw new ReplayError(`release ${id} does not exist`);
  if (r.status !== 'reserved') throw new ReplayError(`release ${id} is already ${r.status}`);
  return r;
}

/** In-memory state for replay. */
export class MemoryState implements StateReader {
  readonly datasets = new Map<string, DatasetRow>();
  readonly aliases = new Map<string, AliasRow>();
  readonly files = new Map<string, DatasetFileRow>();
  readonly releases = new Map<string, ReleaseRow>();

  dataset(fingerprint: string): DatasetRow | undefined {
    return this.datasets.get(fingerprint);
  }
  alias(fingerprint: string, name: string): AliasRow | undefined {
    return this.aliases.get(rowKey('dataset_aliases', { fingerprint, name }));
  }
  release(id: string): ReleaseRow | undefined {
    return this.releases.get(id);
  }
  file(fingerprint: string): DatasetFileRow | undefined {
    return this.files.get(fingerprint);
  }

  apply(change: RowChange): void {
    const key = rowKey(change.table, change.row);
    if (change.table === 'datasets') this.datasets.set(key, change.row);
    else if (change.table === 'dataset_aliases') this.aliases.set(key, change.row);
    else if (change.table === 'dataset_files') this.files.set(key, change.row);
    else this.releases.set(key, change.row);
  }

  rows(table: TableName): Map<string, object> {
    if (table === 'datasets') return this.datasets;
    if (table === 'dataset_aliases') return this.aliases;
    if (table === 'dataset_files') return this.files;
    return this.releases;
  }
}

/** A row's primary key as one string (NUL-joined for composite keys). */
export function rowKey(table: TableName, row: object): string {
  return TABLE_KEYS[table].map((c) => String((row as Record<string, unknown>)[c])).join('\u0000');
}
