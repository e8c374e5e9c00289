/** Web host: an upload named '.' or '..' (a folder, not a file) is a clean 400 that stores nothing. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBareHost } from './bare-host.ts';

describe('web host: upload names', () => {
  const app = useBareHost();

  const upload = (name: string) =>
    fetch(
      `http://127.0.0.1:${app.host.port}/upload?token=${app.host.token}&name=${encodeURIComponent(name)}`,
      {
        method: 'POST',
        body: 'a,b\n1,2\n',
      },
    );

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
    expect(readdirSync(join(app.dir, 'work', 'uploads'))).toEqual([]);
  });

  it('an ordinary name is still stored', async () => {
    const res = await upload('data.csv');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { name: string } };
    expect(body.result.name).toBe('data.csv');
  });
});
