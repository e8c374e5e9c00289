/**
 * A web host for the host's own tests: a static folder with one page, a work folder beside it,
 * the real resources, and no services. Started before the file's tests, closed after them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startWebHost, type WebHost } from '../../../src/host/web-host.ts';
import type { Services } from '../../../src/services/services.ts';

/** The app's resources folder (its icons), which the host serves. */
export const resources = fileURLToPath(new URL('../../../resources/', import.meta.url));

export interface BareHost {
  readonly host: WebHost;
  /** The static folder; the host's work folder is its work/ sub-folder. */
  readonly dir: string;
}

export function useBareHost(): BareHost {
  let host: WebHost | undefined;
  let dir: string | undefined;
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
    await host?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get host() {
      if (!host) throw new Error('the host has not started');
      return host;
    },
    get dir() {
      if (!dir) throw new Error('the host has not started');
      return dir;
    },
  };
}
