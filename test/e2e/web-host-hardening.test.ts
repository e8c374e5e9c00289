/**
 * Web host hardening: an oversize or broken upload leaves nothing and answers 413 (not a reset);
 * the event socket has a payload cap and survives a bad frame; the token cookie is per port; the
 * page takes the token out of its address bar once read.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { waitFor } from '../support/processes.ts';
import { chromiumAvailable, uploadsIn } from './harness.ts';
import { useApp } from './use-app.ts';

const LIMIT = 4096;

/** A chunked upload (no Content-Length) of `bytes`, or one dropped half-way. */
function chunkedUpload(port: number, token: string, bytes: number, drop = false): Promise<number> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/upload?name=big.csv',
        method: 'POST',
        headers: { 'x-rap-token': token },
      },
      (res) => {
        res.resume();
        ok(res.statusCode ?? 0);
      },
    );
    req.on('error', (err) => (drop ? ok(-1) : fail(err)));
    const chunk = Buffer.alloc(1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (drop && sent > bytes / 2) {
          req.destroy();
          return;
        }
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('web host hardening', () => {
  const app = useApp({
    name: 'harden',
    host: (dir) => ({ workDir: join(dir, 'work'), args: ['--max-upload-bytes', String(LIMIT)] }),
    browser: false,
  });
  const uploads = () => uploadsIn(join(app.dir, 'work'));

  it('an upload over the limit is answered 413 and leaves nothing: with Content-Length and chunked', async () => {
    const { host } = app;
    const big = await fetch(`${host.origin}/upload?name=big.csv`, {
      method: 'POST',
      headers: { 'x-rap-token': host.token },
      body: Buffer.alloc(LIMIT + 1, 0x61),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(
      /nothing was stored/,
    );
    expect(await chunkedUpload(host.port, host.token, 4 * LIMIT)).toBe(413);
    expect(uploads()).toEqual([]);
    const ok = await fetch(`${host.origin}/upload?name=ok.csv`, {
      method: 'POST',
      headers: { 'x-rap-token': host.token },
      body: 'a,b\n1,2\n',
    });
    expect(ok.status).toBe(200);
    expect(uploads()).toHaveLength(1);
  });

  it('an upload dropped half-way leaves no partial file', async () => {
    const { host } = app;
    const before = uploads().length;
    await chunkedUpload(host.port, host.token, LIMIT - 100, true);
    await waitFor(
      'the partial upload to be removed',
      () => (uploads().length === before ? true : undefined),
      5000,
    );
    expect(host.process.exitCode).toBeNull();
  });

  it('the event socket: an oversize frame closes that socket (1009), the host lives on', async () => {
    const { host } = app;
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`);
    await new Promise((ok) => ws.once('open', ok));
    const closed = new Promise<number>((ok) => ws.once('close', (code) => ok(code)));
    ws.send(Buffer.alloc(128 * 1024));
    expect(await closed).toBe(1009);
    const again = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`);
    await new Promise((ok) => again.once('open', ok));
    again.close();
    expect(host.process.exitCode).toBeNull();
  });

  it('the token cookie is named after the port, so another local host cannot take or clobber it', async () => {
    const { host } = app;
    const res = await fetch(host.url);
    expect(res.headers.get('set-cookie')).toMatch(
      new RegExp(`^rap_token_${host.port}=${host.token}; HttpOnly; SameSite=Strict`),
    );
    const other = await fetch(`${host.origin}/`, { headers: { cookie: `rap_token=${host.token}` } });
    expect(other.status).toBe(401);
    const mine = await fetch(`${host.origin}/`, {
      headers: { cookie: `rap_token_${host.port}=${host.token}` },
    });
    expect(mine.status).toBe(200);
  });
});

describe.skipIf(!chromiumAvailable())('the token leaves the address bar', () => {
  const app = useApp({ name: 'token', page: false });

  it('once read, the URL has no token; a reload still works', async () => {
    const { host, browser } = app;
    const page = await browser.newPage();
    await page.goto(host.url);
    await page.getByTestId('app-meta').filter({ hasText: 'web mode' }).waitFor({ timeout: 30_000 });
    expect(page.url()).not.toContain('token');
    expect(page.url()).toBe(`${host.origin}/`);
    await page.reload();
    await page.getByTestId('app-meta').filter({ hasText: 'web mode' }).waitFor({ timeout: 30_000 });
    await page.close();
  });
});
