/**
 * The web host's doors beyond the page and the API (web-shell.test.ts covers those): the event
 * WebSocket, uploads and downloads. Each refusal is checked next to a positive control (the same
 * request done right succeeds), so a refusal cannot pass because the door is simply broken.
 */

import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { uploadsIn } from './harness.ts';
import { useApp } from './use-app.ts';

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
  const app = useApp({ name: 'host', host: (dir) => ({ workDir: join(dir, 'work') }), browser: false });
  const uploads = () => uploadsIn(join(app.dir, 'work'));

  it('the event WebSocket: no token, a wrong token, a foreign Origin or Host are refused', async () => {
    const { host } = app;
    expect(await upgrade(host.port, '/ws')).toBe(401);
    expect(await upgrade(host.port, '/ws?token=wrong')).toBe(401);
    expect(await upgrade(host.port, `/ws?token=${host.token}`, { origin: 'http://evil.example' })).toBe(401);
    expect(await upgrade(host.port, `/ws?token=${host.token}`, { origin: 'http://127.0.0.1:1' })).toBe(401);
    expect(await upgrade(host.port, `/ws?token=${host.token}`, { host: `evil.example:${host.port}` })).toBe(
      401,
    );
    expect(await upgrade(host.port, `/other?token=${host.token}`)).toBe(401);
    expect(await upgrade(host.port, `/ws?token=${host.token}`)).toBe('open');
  });

  it('uploads: refused without the token or from another origin, and nothing is stored', async () => {
    const { host } = app;
    const csv = 'a,b\n1,2\n';
    expect((await raw(host.port, 'POST', '/upload?name=x.csv', {}, csv)).status).toBe(401);
    expect((await raw(host.port, 'POST', '/upload?name=x.csv&token=wrong', {}, csv)).status).toBe(401);
    const foreign = await raw(
      host.port,
      'POST',
      '/upload?name=x.csv',
      { 'x-rap-token': host.token, origin: 'http://evil.example' },
      csv,
    );
    expect(foreign.status).toBe(403);
    expect(uploads()).toEqual([]);
    const ok = await raw(host.port, 'POST', '/upload?name=x.csv', { 'x-rap-token': host.token }, csv);
    expect(ok.status).toBe(200);
    expect(uploads()).toHaveLength(1);
  });

  it('an upload name cannot climb out of the upload folder', async () => {
    const { host } = app;
    const before = uploads().length;
    const res = await raw(
      host.port,
      'POST',
      `/upload?name=${encodeURIComponent('../../../escaped.csv')}`,
      { 'x-rap-token': host.token },
      'a,b\n1,2\n',
    );
    expect(res.status).toBe(200);
    const { path } = (JSON.parse(res.body) as { result: { path: string } }).result;
    // Stored as uploads/<random id>/<a name without separators>.
    expect(dirname(dirname(path))).toBe(join(app.dir, 'work', 'uploads'));
    expect(basename(path)).not.toContain('/');
    expect(uploads()).toHaveLength(before + 1);
    expect(existsSync(join(app.dir, 'work', 'escaped.csv'))).toBe(false);
    expect(existsSync(join(app.dir, 'work', '..', 'escaped.csv'))).toBe(false);
  });

  it('downloads: an unknown id is 404, and no path is read through the download route', async () => {
    const { host } = app;
    const auth = { 'x-rap-token': host.token };
    for (const path of [
      '/download/00000000-0000-4000-8000-000000000000',
      '/download/',
      '/download/..%2f..%2fpackage.json',
      '/download/../package.json',
    ]) {
      expect([403, 404]).toContain((await raw(host.port, 'GET', path, auth)).status);
    }
    expect((await raw(host.port, 'GET', '/download/00000000-0000-4000-8000-000000000000')).status).toBe(401);
  });

  it('the API: a foreign Origin or Host is refused even with the token; other methods are not allowed', async () => {
    const { host } = app;
    const headers = { 'x-rap-token': host.token, 'content-type': 'application/json' };
    const body = JSON.stringify({ arg: {} });
    expect(
      (await raw(host.port, 'POST', '/api/appInfo', { ...headers, origin: 'http://evil.example' }, body))
        .status,
    ).toBe(403);
    expect(
      (
        await raw(
          host.port,
          'POST',
          '/api/appInfo',
          { ...headers, host: `localhost.evil.example:${host.port}` },
          body,
        )
      ).status,
    ).toBe(403);
    expect((await raw(host.port, 'PUT', '/api/appInfo', headers, body)).status).toBe(405);
    const ok = await raw(host.port, 'POST', '/api/appInfo', headers, body);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, result: { mode: 'web' } });
  });

  it('a malformed API body is an error answer, not a crash', async () => {
    const { host } = app;
    const headers = { 'x-rap-token': host.token, 'content-type': 'application/json' };
    const res = await raw(host.port, 'POST', '/api/appInfo', headers, '{not json');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { kind: expect.any(String) } });
    expect(host.process.exitCode).toBeNull();
    expect((await raw(host.port, 'POST', '/api/appInfo', headers, '{"arg":{}}')).status).toBe(200);
  });
});
