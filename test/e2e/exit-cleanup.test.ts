/**
 * Private copies never outlive the app: the uploaded copy of a private CSV is removed when
 * `npm start` gets Ctrl-C twice (SIGINT to the whole process group, as a terminal sends it, and
 * again), on SIGTERM, and — after a SIGKILL — at the next start. Each host runs with its own
 * TMPDIR, so "nothing left under the temp directory" is checked exactly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { peopleCsv } from './fixtures.ts';
import { repoRoot, startHost } from './harness.ts';

const bases: string[] = [];
afterAll(() => {
  for (const b of bases) rmSync(b, { recursive: true, force: true });
});

function tempBase(): string {
  const b = mkdtempSync(join(tmpdir(), 'rap-e2e-exit-'));
  bases.push(b);
  return b;
}

/**
 * What RAP Studio left under `dir`: its folders and any copy of the private file. (tsx keeps a
 * compile cache under TMPDIR too; that is not ours.)
 */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((p) => p.startsWith('rap-studio-') || p.includes('private.csv'));
}

async function urlOf(child: ChildProcess): Promise<URL> {
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL within 120 s\n${err}`)), 120_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(new URL(m[1]));
      }
    });
    child.once('exit', (code) => fail(new Error(`exited with ${code}\n${err}`)));
  });
}

/** Uploads a private CSV and opens it, as the Data step does; returns the copy's path. */
async function openPrivateFile(url: URL): Promise<string> {
  const token = url.searchParams.get('token') ?? '';
  const up = await fetch(`${url.origin}/upload?name=private.csv`, {
    method: 'POST',
    headers: { 'x-rap-token': token },
    body: peopleCsv(),
  });
  const { result } = (await up.json()) as { result: { path: string } };
  const open = await fetch(`${url.origin}/api/openDataset`, {
    method: 'POST',
    headers: { 'x-rap-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ arg: { path: result.path, name: 'private.csv' } }),
  });
  expect(((await open.json()) as { ok: boolean }).ok).toBe(true);
  expect(existsSync(result.path)).toBe(true);
  return result.path;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) ok();
    else child.once('exit', () => ok());
  });
}

describe('private copies are removed on every way out', () => {
  it('SIGINT twice to `npm start` (the whole process group, like Ctrl-C in a terminal)', async () => {
    const base = tempBase();
    const ledgerDir = tempBase();
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'scripts/start.mjs'), '--ledger', join(ledgerDir, 'l.sqlite')],
      {
        cwd: repoRoot,
        env: { ...process.env, TMPDIR: base },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, as a terminal's foreground job
      },
    );
    const url = await urlOf(child);
    const copy = await openPrivateFile(url);
    expect(copy.startsWith(base)).toBe(true);
    process.kill(-child.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      // already gone
    }
    await exited(child);
    // `npm start` waits for the host, and the host removes the copy before it exits.
    expect(existsSync(copy)).toBe(false);
    expect(filesUnder(base)).toEqual([]);
  });

  it('SIGTERM to the host, and SIGKILL then the next start removing the stale copy', async () => {
    const base = tempBase();
    const env = { TMPDIR: base };
    const first = await startHost({ env });
    const copy = await openPrivateFile(new URL(first.url));
    first.process.kill('SIGTERM');
    await exited(first.process);
    expect(existsSync(copy)).toBe(false);
    expect(filesUnder(base)).toEqual([]);
    await first.stop();

    const second = await startHost({ env });
    const stale = await openPrivateFile(new URL(second.url));
    second.process.kill('SIGKILL');
    await exited(second.process);
    expect(existsSync(stale)).toBe(true); // a crash cannot clean up after itself…
    const third = await startHost({ env });
    expect(existsSync(stale)).toBe(false); // …the next start does
    await third.stop();
    await second.stop();
    await waitFor(
      'the last host to clean up',
      () => (filesUnder(base).length === 0 ? true : undefined),
      10_000,
    );
  });
});
