import { join } from 'node:path';
import { _electron as electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { electronBinary } from '../../scripts/native.mjs';
import { repoRoot, screenshotDir } from './harness.ts';

const binary = electronBinary();

describe.skipIf(!binary)('the Electron app', () => {
  it('opens a window with the shell', async () => {
    const app = await electron.launch({ executablePath: binary ?? undefined, args: [repoRoot] });
    const page = await app.firstWindow();
    await expect.poll(() => page.locator('h1').textContent()).toBe('RAP Studio');
    await page.screenshot({ path: join(screenshotDir, 'electron-shell.png') });
    await app.close();
  });
});

if (!binary) {
  it.skip('the Electron app: skipped because the Electron binary is not installed (it cannot be downloaded here)', () => {});
}
