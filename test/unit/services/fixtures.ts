/** Shared setup for the service tests: a small CSV uploaded into a private work directory. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { forkSpawner } from '../../../src/core/engine/process/client.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { dispatch } from '../../../src/services/dispatch.ts';
import type { NativeDialogs, ServiceContext } from '../../../src/services/service-context.ts';
import { createServices } from '../../../src/services/services.ts';
import type { ApiArg, ApiMethod, ApiResult, AppEvent, RunSettingsInput } from '../../../src/shared/api.ts';
import { isActiveStatus } from '../../../src/shared/constants.ts';

export const FAKE_CHILD = fileURLToPath(
  new URL('../../../src/core/engine/process/fixtures/fake-engine-child.ts', import.meta.url),
);

const COLORS = ['red', 'green', 'blue'];
const SIZES = ['S', 'M', 'L', 'XL'];

/** 60 rows: color (3), size (4), age (numeric 18..77). */
export function sampleCsv(): string {
  const lines = ['color,size,age'];
  for (let i = 0; i < 60; i++) lines.push(`${COLORS[i % 3]},${SIZES[i % 4]},${18 + i}`);
  return `${lines.join('\n')}\n`;
}

export interface Harness {
  readonly dir: string;
  readonly workDir: string;
  readonly events: AppEvent[];
  readonly ctx: ServiceContext;
  /** Writes a file where the web host puts uploads; returns its path. */
  upload(name: string, text: string | Uint8Array): string;
  call<M extends ApiMethod>(method: M, arg: ApiArg<M>): Promise<ApiResult<M>>;
  cleanup(): void;
}

/**
 * Services over a private work directory (the fake engine child), made inside a test: the
 * directory is removed when the test ends (or at `cleanup()`).
 */
export function harness(
  opts: { engine?: string; mode?: 'web' | 'electron'; dialogs?: NativeDialogs } = {},
): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'rap-svc-'));
  const workDir = join(dir, 'work');
  mkdirSync(join(workDir, 'uploads'), { recursive: true });
  const events: AppEvent[] = [];
  const ctx: ServiceContext = {
    mode: opts.mode ?? 'web',
    ledgerPath: join(dir, 'ledger.sqlite'),
    workDir,
    emit: (e) => events.push(e),
    offerDownload: opts.mode === 'electron' ? undefined : (_p, name) => `/download/${name}`,
    dialogs: opts.dialogs,
    spawner: forkSpawner(FAKE_CHILD, { ...process.env, FAKE_ENGINE_MODE: opts.engine ?? 'done' }),
    log: () => {},
  };
  const services = createServices(ctx);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  onTestFinished(cleanup);
  let uploads = 0;
  return {
    dir,
    workDir,
    events,
    ctx,
    upload(name, text) {
      const d = join(workDir, 'uploads', String(uploads++));
      mkdirSync(d);
      const path = join(d, name);
      writeFileSync(path, text);
      return path;
    },
    call: (method, arg) => dispatch(services, method, arg) as never,
    cleanup,
  };
}

/** Polls the run until it leaves the active states. */
export async function settle(h: Pick<Harness, 'call'>, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await h.call('runState', {});
    if (run && !isActiveStatus(run.status)) return run;
    if (Date.now() > until) throw new Error(`run still ${run?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The releases in the harness's ledger file, read with a connection of its own. */
export function ledgerReleases(h: Harness) {
  const l = Ledger.open(h.ctx.ledgerPath);
  try {
    return l.releases();
  } finally {
    l.close();
  }
}

/**
 * Web-mode services over a work directory `work-N` in `dir` (the fake engine child), with the
 * downloads they offer: two starts over one ledger stand for the app before and after a restart.
 */
export function webApp(dir: string, n: number, ledger = 'ledger.sqlite') {
  const workDir = join(dir, `work-${n}`);
  mkdirSync(join(workDir, 'uploads'), { recursive: true });
  const offered = new Map<string, string>();
  const services = createServices({
    mode: 'web',
    ledgerPath: join(dir, ledger),
    workDir,
    emit: () => {},
    offerDownload: (path, name) => {
      const url = `/download/${n}-${offered.size}-${name}`;
      offered.set(url, path);
      return url;
    },
    spawner: forkSpawner(FAKE_CHILD, { ...process.env, FAKE_ENGINE_MODE: 'done' }),
    log: () => {},
  });
  const call = <M extends ApiMethod>(m: M, arg: ApiArg<M>) =>
    dispatch(services, m, arg) as Promise<ApiResult<M>>;
  return { workDir, offered, call };
}

/** The small query-mode run the service tests start: 10 rows, one round of 5 queries, ε = 1. */
export const QUICK_SETTINGS = {
  epsilon: '1',
  rows: '10',
  rounds: '1',
  perRound: '5',
  mode: 'query',
} as const satisfies RunSettingsInput;

/** The sample's workload (sampleCsv): the 2-way marginal color × size, r = 2, as `datasetId`'s main workload. */
export function setSampleWorkload(app: Pick<Harness, 'call'>, datasetId: string) {
  return app.call('setWorkload', {
    datasetId,
    role: 'main',
    thresholds: [{ features: ['color', 'size'], r: 2, weight: 1 }],
  });
}

/** The sample workload on `datasetId`, a cap of ε = 5, and one quick run started (QUICK_SETTINGS). */
export async function startSampleRun(app: Pick<Harness, 'call'>, datasetId: string) {
  await setSampleWorkload(app, datasetId);
  await app.call('setCap', { datasetId, epsilon: '5' });
  return app.call('startRun', { datasetId, settings: QUICK_SETTINGS });
}

/** Opens `upload` (sampleCsv), runs one small query-mode release on color × size, and waits for it. */
export async function finishedSampleRun(app: Pick<Harness, 'call'>, upload: string) {
  const ds = await app.call('openDataset', { path: upload, header: 'yes' });
  await startSampleRun(app, ds.id);
  const run = await settle(app);
  if (run.status !== 'finished') throw new Error(`the run ended ${run.status}, not finished`);
  return run;
}
