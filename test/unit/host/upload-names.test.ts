/** Web host: an upload named '.' or '..' (a folder, not a file) is a clean 400 that stores nothing. */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../../src/host/web-host.ts';
import type { Services } from '../../../src/services/services.ts';

const resources = fileURLToPath(new URL('../../../resources/', import.meta.url));

describe('web host: upload names', () => {
  let host: WebHost;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rap-host-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    host = await startWebHost({
      staticDir: dir,
      workDir: join(dir, 'work'),
      resourcesDir: resources,
      createServices: () => ({}) as Services,
    });
  });

  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const upload = (name: string) =>
    fetch(`http://127.0.0.1:${host.port}/upload?token=${host.token}&name=${encodeURIComponent(name)}`, {
      method: 'POST',
      body: 'a,b\n1,2\n',
    });

  it.each([
    '.',
    '..',
    '...',
  ])('an upload named %j is answered 400 with a message, and nothing is stored', async (name) => {
    const res = await upload(name);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { ok: boolean; error: { kind: string; message: string } };
    expect(body.ok).toBe(false);
    expect(body.error.kind).toBe('input');
    expect(body.error.message).toMatch(/not a file name/);
    expect(readdirSync(join(dir, 'work', 'uploads'))).toEqual([]);
  });

  it('an ordinary name is still stored', async () => {
    const res = await upload('data.csv');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { name: string } };
    expect(body.result.name).toBe('data.csv');
  });
});
