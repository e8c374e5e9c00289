/**
 * End-to-end harness: starts web mode as a curator would (a separate Node process) and drives
 * Debian's Chromium with playwright-core. Screenshots go under test-results/ (not committed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type Browser, chromium } from 'playwright-core';
import type { ApiArg, ApiErrorPayload, ApiMethod, ApiResult } from '../../src/shared/api.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const screenshotDir = join(repoRoot, 'test-results', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface RunningHost {
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  readonly ledgerPath: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface HostOptions {
  readonly ledgerPath?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The host's private folder for uploads and exports (`--work-dir`); a fresh temp one if absent. */
  readonly workDir?: string;
  /** More host flags (e.g. `--max-upload-bytes N`). */
  readonly args?: readonly string[];
}

export async function startHost(opts: HostOptions = {}): Promise<RunningHost> {
  // A ledger in a temp folder of our own unless given; that folder goes when the host stops.
  const ownDir = opts.ledgerPath ? null : mkdtempSync(join(tmpdir(), 'rap-e2e-'));
  const ledgerPath = opts.ledgerPath ?? join(ownDir!, 'ledger.sqlite');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(repoRoot, 'src/host/main.ts'),
      '--ledger',
      ledgerPath,
      ...(opts.workDir ? ['--work-dir', opts.workDir] : []),
      ...(opts.args ?? []),
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    const timer = setTimeout(
      () => fail(new Error(`web host did not print its URL within 60 s\n${stderr}`)),
      60_000,
    );
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    child.once('exit', (code) => fail(new Error(`web host exited with ${code}\n${stderr}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    token: parsed.searchParams.get('token') ?? '',
    ledgerPath,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((ok) => child.once('exit', ok));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((ok) => setTimeout(ok, 3000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** One API call as the renderer makes it (token header, JSON body); the host's answer as is. */
export async function callApi<M extends ApiMethod>(
  host: RunningHost,
  method: M,
  arg: ApiArg<M>,
): Promise<{ ok: true; result: ApiResult<M> } | { ok: false; error: ApiErrorPayload }> {
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'x-rap-token': host.token, 'content-type': 'application/json' },
    body: JSON.stringify({ arg }),
  });
  if (!res.ok) throw new Error(`the host answered ${res.status} to ${method}`);
  return (await res.json()) as never;
}

/** Uploads `text` as the page's file picker does; the host's private copy's path. */
export async function uploadFile(host: RunningHost, name: string, text: string): Promise<string> {
  const res = await fetch(`${host.origin}/upload?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'x-rap-token': host.token },
    body: text,
  });
  if (!res.ok) throw new Error(`the host answered ${res.status} to the upload`);
  return ((await res.json()) as { result: { path: string } }).result.path;
}

/** The names of the uploads a host keeps under its work folder (none before the first). */
export function uploadsIn(workDir: string): string[] {
  const dir = join(workDir, 'uploads');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** What the ledger file holds, read without writing (read-only connection; zeros if no file). */
export interface LedgerCounts {
  readonly events: number;
  readonly datasets: number;
  readonly releases: number;
  /** Release ids by status. */
  readonly byStatus: Readonly<Record<string, readonly string[]>>;
  /** Sum of ρ over every release (reserved, committed and aborted all count). */
  readonly spentRho: number;
}

export function ledgerCounts(ledgerPath: string): LedgerCounts {
  if (!existsSync(ledgerPath)) return { events: 0, datasets: 0, releases: 0, byStatus: {}, spentRho: 0 };
  const db = new Database(ledgerPath, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (t) => t.name,
      ),
    );
    if (!tables.has('releases')) return { events: 0, datasets: 0, releases: 0, byStatus: {}, spentRho: 0 };
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const rows = db.prepare('SELECT id, status, rho FROM releases ORDER BY rowid').all() as {
      id: string;
      status: string;
      rho: number;
    }[];
    const byStatus: Record<string, string[]> = {};
    for (const r of rows) (byStatus[r.status] ??= []).push(r.id);
    return {
      events: count('events'),
      datasets: count('datasets'),
      releases: rows.length,
      byStatus,
      spentRho: rows.reduce((s, r) => s + r.rho, 0),
    };
  } finally {
    db.close();
  }
}
