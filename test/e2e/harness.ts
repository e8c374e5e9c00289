/**
 * End-to-end harness: starts web mode as a curator would (a separate Node process) and drives
 * Debian's Chromium with playwright-core. Screenshots go under test-results/ (not committed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const screenshotDir = join(repoRoot, 'test-results', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface RunningHost {
  readonly url: string;
  readonly origin: string;
  readonly token: string;
  readonly ledgerPath: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export async function startHost(
  opts: { ledgerPath?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunningHost> {
  const ledgerPath = opts.ledgerPath ?? join(mkdtempSync(join(tmpdir(), 'rap-e2e-')), 'ledger.sqlite');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/host/main.ts'), '--ledger', ledgerPath],
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
    token: parsed.searchParams.get('token') ?? '',
    ledgerPath,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((ok) => setTimeout(ok, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
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
