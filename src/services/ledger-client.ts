/**
 * The ledger for the app, off the main event loop: the same Ledger (src/core/ledger) running in
 * a worker thread (ledger-worker-entry.ts), called through promises. better-sqlite3 is
 * synchronous and waits up to 10 s for another process's write lock; on the app's event loop
 * that wait would freeze the whole UI (web mode: every request and the progress socket). In the
 * worker it blocks only the ledger; calls queue in order.
 *
 * Errors come back as the same classes (ledger-errors.ts), so the services and the UI tell a
 * budget refusal, a bad request and a locked / read-only / full / corrupt / unanchored ledger
 * apart exactly as with the synchronous Ledger.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AnchorReport } from '../core/ledger/anchor.ts';
import type { Ledger } from '../core/ledger/ledger.ts';
import { deserializeError, type SerializedError } from './ledger-errors.ts';

/** The Ledger methods the app calls, each returning a promise. */
export type LedgerMethod =
  | 'ensureDataset'
  | 'dataset'
  | 'datasetFor'
  | 'similarTo'
  | 'datasets'
  | 'setCap'
  | 'reserve'
  | 'commit'
  | 'abort'
  | 'releases'
  | 'release'
  | 'totals'
  | 'verify'
  | 'export'
  | 'identity'
  | 'sourceKey';

/** The methods, listed once (the client builds its proxy from them). */
export const LEDGER_METHODS = [
  'ensureDataset',
  'dataset',
  'datasetFor',
  'similarTo',
  'datasets',
  'setCap',
  'reserve',
  'commit',
  'abort',
  'releases',
  'release',
  'totals',
  'verify',
  'export',
  'identity',
  // A database source's ledger identity is keyed with it (release/database.ts); it stays in this process.
  'sourceKey',
] as const satisfies readonly LedgerMethod[];

// biome-ignore lint/suspicious/noExplicitAny: mapped over Ledger's own signatures
type Fn = (...args: any[]) => any;
export type AsyncLedger = {
  readonly [M in LedgerMethod]: Ledger[M] extends Fn
    ? (...args: Parameters<Ledger[M]>) => Promise<ReturnType<Ledger[M]>>
    : never;
};

/** How to start the worker: the TypeScript entry through tsx (Node, tests), or a bundled one (Electron). */
export type WorkerEntry = { readonly kind: 'ts' } | { readonly kind: 'js'; readonly file: string };

const TS_ENTRY = new URL('./ledger-worker-entry.ts', import.meta.url).href;

function tsxApiUrl(): string {
  // tsx's ESM API (register) lives beside its CommonJS entry.
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/index\.cjs$/, 'index.mjs')).href;
}

function startWorker(entry: WorkerEntry, workerData: unknown): Worker {
  if (entry.kind === 'js') return new Worker(entry.file, { workerData });
  const code =
    `import(${JSON.stringify(tsxApiUrl())})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(TS_ENTRY)}); })`;
  return new Worker(code, { eval: true, workerData });
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class LedgerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ended: Error | null = null;
  readonly ledger: AsyncLedger;

  private constructor(
    private readonly worker: Worker,
    readonly file: string,
    readonly anchor: AnchorReport | null,
    private readonly onWarning: (m: string) => void,
  ) {
    worker.on(
      'message',
      (m: {
        type: string;
        id: number;
        ok: boolean;
        value?: unknown;
        error?: SerializedError;
        warnings?: string[];
      }) => {
        if (m.type !== 'result') return;
        for (const w of m.warnings ?? []) this.onWarning(w);
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.value);
        else p.reject(deserializeError(m.error as SerializedError));
      },
    );
    const gone = (err: Error) => {
      this.ended = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    // The worker does not keep the process alive (the host exits on a signal; tests end).
    worker.unref();
    worker.on('error', (err) => gone(new Error(`the ledger worker failed: ${err.message}`)));
    worker.on('exit', () => gone(new Error('the ledger worker has stopped')));
    const call =
      (method: string) =>
      (...args: unknown[]) =>
        this.call(method, args);
    this.ledger = Object.fromEntries(LEDGER_METHODS.map((m) => [m, call(m)])) as unknown as AsyncLedger;
  }

  /**
   * Opens the ledger in a new worker; rejects with the open error (LedgerAnchorError, a
   * LedgerError, an InputError for a file that is no ledger), the worker then gone.
   */
  static open(
    file: string,
    opts: { anchorFile?: string | null; entry?: WorkerEntry; onWarning?: (m: string) => void } = {},
  ): Promise<LedgerClient> {
    const worker = startWorker(opts.entry ?? { kind: 'ts' }, {
      file,
      ...(opts.anchorFile === undefined ? {} : { anchorFile: opts.anchorFile }),
    });
    return new Promise((resolve, reject) => {
      const onMessage = (m: { type: string; anchor?: AnchorReport | null; error?: SerializedError }) => {
        if (m.type === 'ready') {
          cleanup();
          resolve(new LedgerClient(worker, file, m.anchor ?? null, opts.onWarning ?? (() => {})));
        } else if (m.type === 'open-error') {
          cleanup();
          void worker.terminate();
          reject(deserializeError(m.error as SerializedError));
        }
      };
      const onError = (err: Error) => {
        cleanup();
        reject(new Error(`the ledger worker could not start: ${err.message}`));
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
    });
  }

  private call(method: string, args: unknown[]): Promise<never> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, method, args });
    });
  }

  get alive(): boolean {
    return this.ended === null;
  }

  async close(): Promise<void> {
    if (this.ended) return;
    await this.call('close', []).catch(() => undefined);
    await this.worker.terminate();
  }
}

/** The bundled worker's path beside the Electron main bundle (electron.vite.config.ts input). */
export function bundledWorkerEntry(mainDir: string): WorkerEntry {
  return { kind: 'js', file: join(mainDir, 'ledger-worker.js') };
}
