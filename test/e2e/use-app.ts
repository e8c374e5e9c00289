/**
 * The app a describe block drives: a temp folder of its own, the web host, and (unless told not
 * to) Chromium with a page on the app; started before the block's tests, closed after them in
 * reverse order, also when starting failed half way. Shared by the e2e specs, so that each
 * states only what differs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type HostOptions, launchBrowser, type RunningHost, startHost } from './harness.ts';
import { gotoApp, openApp, type Viewport } from './ui.ts';

export interface AppOptions {
  /** Names the temp folder: rap-e2e-<name>-XXXXXX. */
  readonly name: string;
  /** Writes the block's inputs into its temp folder, before the host starts. */
  readonly prepare?: (dir: string) => void;
  /** The host's options, given the temp folder (default: a ledger and a work folder of its own). */
  readonly host?: (dir: string) => HostOptions;
  /** false: no browser (and no page), for tests that speak to the host alone. */
  readonly browser?: false;
  /** The page's viewport; false opens no page (the tests open their own from `browser`). */
  readonly page?: Viewport | false;
}

export interface App {
  /** The block's temp folder, removed after its tests. */
  readonly dir: string;
  readonly host: RunningHost;
  readonly browser: Browser;
  /** The app, loaded in web mode (absent with `page: false` or `browser: false`). */
  readonly page: Page;
  /** Stops the host (if still running) and starts another with `opts`; the page goes to the new one. */
  restart(opts: HostOptions): Promise<void>;
}

/** Registers the block's beforeAll/afterAll; the returned app is usable inside its tests and hooks. */
export function useApp(opts: AppOptions): App {
  let dir: string | undefined;
  let host: RunningHost | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const started = <T>(what: string, v: T | undefined): T => {
    if (v === undefined)
      throw new Error(`useApp(${opts.name}): no ${what} (not started, or started without one)`);
    return v;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `rap-e2e-${opts.name}-`));
    opts.prepare?.(dir);
    host = await startHost(opts.host?.(dir));
    if (opts.browser === false) return;
    browser = await launchBrowser();
    if (opts.page !== false) page = await openApp(browser, host, opts.page);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return {
    get dir() {
      return started('temp folder', dir);
    },
    get host() {
      return started('host', host);
    },
    get browser() {
      return started('browser', browser);
    },
    get page() {
      return started('page', page);
    },
    async restart(hostOpts) {
      await started('host', host).stop();
      host = undefined;
      host = await startHost(hostOpts);
      if (page) await gotoApp(page, host);
    },
  };
}
