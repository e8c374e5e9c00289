import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resources, useBareHost } from './bare-host.ts';

describe('web host: the application icon as favicon', () => {
  const app = useBareHost();

  const get = (path: string, token = true) =>
    fetch(`http://127.0.0.1:${app.host.port}${path}${token ? `?token=${app.host.token}` : ''}`);

  it('serves resources/icon.svg at /favicon.svg and icon.png at /favicon.png and /favicon.ico', async () => {
    const svg = await get('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toBe(readFileSync(join(resources, 'icon.svg'), 'utf8'));
    for (const path of ['/favicon.png', '/favicon.ico']) {
      const png = await get(path);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await png.arrayBuffer())).toEqual(readFileSync(join(resources, 'icon.png')));
    }
  });

  it('asks for the token like every other path', async () => {
    expect((await get('/favicon.svg', false)).status).toBe(401);
  });

  it('the page links the icon', () => {
    const html = readFileSync(
      fileURLToPath(new URL('../../../src/renderer/index.html', import.meta.url)),
      'utf8',
    );
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg" />');
  });
});
