import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumAvailable, screenshotDir } from './harness.ts';
import { useApp } from './use-app.ts';

/** A raw HTTP GET that keeps the path and headers exactly as given (fetch would normalize them). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      res.resume();
      ok(res.statusCode ?? 0);
    });
    req.on('error', fail);
    req.end();
  });
}

describe.skipIf(!chromiumAvailable())(`web mode in Chromium (${CHROMIUM})`, () => {
  const app = useApp({ name: 'shell', page: false });

  it('renders the shell with the stepper and the app info from the services', async () => {
    const { host, browser } = app;
    const page = await browser.newPage();
    await page.goto(host.url);
    await expect.poll(() => page.locator('h1').textContent()).toBe('RAP Studio');
    await expect
      .poll(() => page.getByTestId('app-meta').textContent(), { timeout: 15_000 })
      .toContain('web mode');
    const steps = await page.locator('nav.stepper button').allTextContents();
    expect(steps.map((s) => s.replace(/^\s*\d+\s*/, '').trim())).toEqual([
      'Data',
      'Schema',
      'Workload',
      'Privacy',
      'Run',
      'Results',
      'Export',
      'Ledger',
    ]);
    await page.screenshot({ path: join(screenshotDir, 'shell.png') });
    await page.close();
  });

  it('refuses requests without the token', async () => {
    const { host } = app;
    expect(await rawGet(host.port, '/')).toBe(401);
    expect(await rawGet(host.port, '/?token=wrong')).toBe(401);
    const res = await fetch(`${host.origin}/api/appInfo`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });

  it('refuses a non-loopback Host or Origin header', async () => {
    const { host } = app;
    const auth = { 'x-rap-token': host.token };
    expect(await rawGet(host.port, '/', { ...auth, host: `evil.example:${host.port}` })).toBe(403);
    expect(await rawGet(host.port, '/', { ...auth, origin: 'http://evil.example' })).toBe(403);
    expect(await rawGet(host.port, '/', auth)).toBe(200);
  });

  it('does not serve files outside the renderer directory', async () => {
    const { host } = app;
    const auth = { 'x-rap-token': host.token };
    for (const path of [
      '/../package.json',
      '/..%2fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
      '/assets/../../package.json',
    ]) {
      expect([403, 404]).toContain(await rawGet(host.port, path, auth));
    }
  });

  it('answers API calls with the token and rejects unknown methods with a clear error', async () => {
    const { host } = app;
    const call = async (method: string, arg: unknown) => {
      const res = await fetch(`${host.origin}/api/${method}`, {
        method: 'POST',
        headers: { 'x-rap-token': host.token, 'content-type': 'application/json' },
        body: JSON.stringify({ arg }),
      });
      return res.json();
    };
    const info = await call('appInfo', {});
    expect(info).toMatchObject({ ok: true, result: { mode: 'web', ledgerPath: host.ledgerPath } });
    expect(await call('dropTables', {})).toEqual({
      ok: false,
      error: { kind: 'input', message: 'Unknown API method "dropTables".' },
    });
    expect(await call('appInfo', { extra: 1 })).toMatchObject({ ok: false, error: { kind: 'input' } });
  });
});
