/**
 * The web host's doors beyond the page and the API (web-shell.test.ts covers those): the event
 * WebSocket, uploads and downloads. Each refusal is checked next to a positive control (the same
 * request done right succeeds), so a refusal cannot pass because the door is simply broken.
 */

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningHost, startHost } from './harness.ts';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A raw HTTP request that keeps the path and headers exactly as given. */
function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Opens the event socket; resolves 'open' or the HTTP status that refused the upgrade. */
function upgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<'open' | number> {
  return new Promise((ok) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    ws.on('open', () => {
      ws.close();
      ok('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      ok(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', () => ok(-1));
  });
}

describe('the web host refuses what it must', () => {
  let host: RunningHost;
  let port: number;
  let workDir: string;
  const uploads = () => (existsSync(join(workDir, 'uploads')) ? readdirSync(join(workDir, 'uploads')) : []);

  beforeAll(async () => {
    workDir = join(mkdtempSync(join(tmpdir(), 'rap-e2e-host-')), 'work');
    host = await startHost({ workDir });
    port = Number(new URL(host.url).port);
  });
  afterAll(async () => {
    await host?.stop();
    rmSync(join(workDir, '..'), { recursive: true, force: true });
  });

  it('the event WebSocket: no token, a wrong token, a foreign Origin or Host are refused', async () => {
    expect(await upgrade(port, '/ws')).toBe(401);
    expect(await upgrade(port, '/ws?token=wrong')).toBe(401);
    expect(await upgrade(port, `/ws?token=${host.token}`, { origin: 'http://evil.example' })).toBe(401);
    expect(await upgrade(port, `/ws?token=${host.token}`, { origin: 'http://127.0.0.1:1' })).toBe(401);
    expect(await upgrade(port, `/ws?token=${host.token}`, { host: `evil.example:${port}` })).toBe(401);
    expect(await upgrade(port, `/other?token=${host.token}`)).toBe(401);
    expect(await upgrade(port, `/ws?token=${host.token}`)).toBe('open');
  });

  it('uploads: refused without the token or from another origin, and nothing is stored', async () => {
    const csv = 'a,b\n1,2\n';
    expect((await raw(port, 'POST', '/upload?name=x.csv', {}, csv)).status).toBe(401);
    expect((await raw(port, 'POST', '/upload?name=x.csv&token=wrong', {}, csv)).status).toBe(401);
    const foreign = await raw(
      port,
      'POST',
      '/upload?name=x.csv',
      { 'x-rap-token': host.token, origin: 'http://evil.example' },
      csv,
    );
    expect(foreign.status).toBe(403);
    expect(uploads()).toEqual([]);
    const ok = await raw(port, 'POST', '/upload?name=x.csv', { 'x-rap-token': host.token }, csv);
    expect(ok.status).toBe(200);
    expect(uploads()).toHaveLength(1);
  });

  it('an upload name cannot climb out of the upload folder', async () => {
    const before = uploads().length;
    const res = await raw(
      port,
      'POST',
      `/upload?name=${encodeURIComponent('../../../escaped.csv')}`,
      { 'x-rap-token': host.token },
      'a,b\n1,2\n',
    );
    expect(res.status).toBe(200);
    const { path } = (JSON.parse(res.body) as { result: { path: string } }).result;
    // Stored as uploads/<random id>/<a name without separators>.
    expect(dirname(dirname(path))).toBe(join(workDir, 'uploads'));
    expect(basename(path)).not.toContain('/');
    expect(uploads()).toHaveLength(before + 1);
    expect(existsSync(join(workDir, 'escaped.csv'))).toBe(false);
    expect(existsSync(join(workDir, '..', 'escaped.csv'))).toBe(false);
  });

  it('downloads: an unknown id is 404, and no path is read through the download route', async () => {
    const auth = { 'x-rap-token': host.token };
    for (const path of [
      '/download/00000000-0000-4000-8000-000000000000',
      '/download/',
      '/download/..%2f..%2fpackage.json',
      '/download/../package.json',
    ]) {
      expect([403, 404]).toContain((await raw(port, 'GET', path, auth)).status);
    }
    expect((await raw(port, 'GET', '/download/00000000-0000-4000-8000-000000000000')).status).toBe(401);
  });

  it('the API: a foreign Origin or Host is refused even with the token; other methods are not allowed', async () => {
    const headers = { 'x-rap-token': host.token, 'content-type': 'application/json' };
    const body = JSON.stringify({ arg: {} });
    expect(
      (await raw(port, 'POST', '/api/appInfo', { ...headers, origin: 'http://evil.example' }, body)).status,
    ).toBe(403);
    expect(
      (await raw(port, 'POST', '/api/appInfo', { ...headers, host: `localhost.evil.example:${port}` }, body))
        .status,
    ).toBe(403);
    expect((await raw(port, 'PUT', '/api/appInfo', headers, body)).status).toBe(405);
    const ok = await raw(port, 'POST', '/api/appInfo', headers, body);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, result: { mode: 'web' } });
  });

  it('a malformed API body is an error answer, not a crash', async () => {
    const headers = { 'x-rap-token': host.token, 'content-type': 'application/json' };
    const res = await raw(port, 'POST', '/api/appInfo', headers, '{not json');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { kind: expect.any(String) } });
    expect(host.process.exitCode).toBeNull();
    expect((await raw(port, 'POST', '/api/appInfo', headers, '{"arg":{}}')).status).toBe(200);
  });
});
