/**
 * What the services share, made once per start: the datasets open in this session, the ledger
 * (in its worker thread, opened on first use), the result store of finished releases, and the
 * run manager. Each service (dataset-service.ts, …) works over this and nothing else.
 */
import { dirname, join } from 'node:path';
import { InputError } from '../core/errors.ts';
import { PendingWrites, pendingDirFor } from '../core/release/pending-writes.ts';
import type { OpenedDataset } from './datasets.ts';
import { ResultStore } from './finished-release-store.ts';
import { type AsyncLedger, LEDGER_METHODS, LedgerClient } from './ledger-client.ts';
import { RunManager } from './runs.ts';
import type { ServiceContext } from './service-context.ts';

/** Datasets kept open at once (each holds encoded private rows in memory). */
const MAX_OPEN = 4;

/** The datasets open in this session, the latest one current, at most MAX_OPEN. */
export class OpenDatasets {
  private readonly byId = new Map<string, OpenedDataset>();
  /**
   * Desktop app: the paths the native file dialog returned. Only those open, so a page that ran
   * foreign script could not make the app read any file by path. (Web mode opens only uploads,
   * upload-guard.ts.)
   */
  private readonly picked = new Set<string>();
  private currentId: string | undefined;

  pick(path: string): void {
    this.picked.add(path);
  }

  wasPicked(path: string): boolean {
    return this.picked.has(path);
  }

  get(id: string): OpenedDataset {
    const ds = this.byId.get(id);
    if (!ds) throw new InputError('That dataset is no longer open: open the file again on the Data step.');
    return ds;
  }

  get current(): OpenedDataset | undefined {
    return this.currentId ? this.byId.get(this.currentId) : undefined;
  }

  /** Opens `ds` as the current dataset; the oldest beyond MAX_OPEN are closed. */
  add(ds: OpenedDataset): void {
    this.byId.set(ds.id, ds);
    this.currentId = ds.id;
    const ids = [...this.byId.keys()];
    for (const id of ids.slice(0, Math.max(0, ids.length - MAX_OPEN))) this.byId.delete(id);
  }

  /** The same dataset read again (another header choice): same id. */
  replace(ds: OpenedDataset): void {
    this.byId.set(ds.id, ds);
  }
}

export interface AppState {
  readonly ctx: ServiceContext;
  readonly datasets: OpenDatasets;
  readonly ledger: AsyncLedger;
  /** Finished releases until exported or discarded. */
  readonly store: ResultStore;
  /** The run manager, made on first use. */
  runs(): RunManager;
  /** The run manager if a run was ever started in this session. */
  startedRuns(): RunManager | undefined;
}

/**
 * The ledger runs in a worker thread (ledger-client.ts): a lock wait blocks the worker, never
 * this event loop. Opened on first use; a failed open (anchor refused, read-only…) is retried on
 * the next call.
 */
function lazyLedger(ctx: ServiceContext): AsyncLedger {
  let client: Promise<LedgerClient> | undefined;
  const open = (): Promise<LedgerClient> => {
    client ??= LedgerClient.open(ctx.ledgerPath, {
      ...(ctx.ledgerWorker ? { entry: ctx.ledgerWorker } : {}),
      onWarning: (m) => (ctx.log ?? ((x: string) => process.stderr.write(`${x}\n`)))(m),
    }).catch((err: unknown) => {
      client = undefined;
      throw err;
    });
    return client;
  };
  return Object.fromEntries(
    LEDGER_METHODS.map((m) => [
      m,
      async (...args: unknown[]) =>
        ((await open()).ledger[m] as (...a: unknown[]) => Promise<unknown>)(...args),
    ]),
  ) as unknown as AsyncLedger;
}

export function createAppState(ctx: ServiceContext): AppState {
  const store = new ResultStore(ctx.resultsDir ?? join(dirname(ctx.ledgerPath), 'results'));
  // Temp files an export crashed in the middle of writing (core/release/pending-writes.ts).
  void new PendingWrites(pendingDirFor(ctx.ledgerPath))
    .sweep()
    .then((removed) => {
      if (removed.length > 0)
        (ctx.log ?? (() => {}))(`removed ${removed.length} temp file(s) of an interrupted export`);
    })
    .catch(() => undefined);
  const ledger = lazyLedger(ctx);
  let runs: RunManager | undefined;
  return {
    ctx,
    datasets: new OpenDatasets(),
    ledger,
    store,
    runs: () => {
      runs ??= new RunManager(ctx, ledger, store);
      return runs;
    },
    startedRuns: () => runs,
  };
}
