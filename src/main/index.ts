/**
 * Electron main process: window creation, security settings and the IPC bridge. All real work
 * happens in the plain-TypeScript services (src/services), the same ones web mode runs.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, session, shell } from 'electron';
import { dispatch, toErrorPayload } from '../services/dispatch.ts';
import { defaultLedgerPathForApp } from '../services/paths.ts';
import { createServices } from '../services/services.ts';
import type { AppEvent } from '../shared/api.ts';

const here = dirname(fileURLToPath(import.meta.url));
const windows = new Set<BrowserWindow>();

function broadcast(event: AppEvent): void {
  for (const w of windows) if (!w.isDestroyed()) w.webContents.send('rap:event', event);
}

async function createWindow(): Promise<void> {
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    show: false,
    title: 'RAP Studio',
    webPreferences: {
      preload: join(here, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  windows.add(win);
  win.on('closed', () => windows.delete(win));
  win.once('ready-to-show', () => win.show());
  // No navigation away from the app and no new windows: links open in the system browser.
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  if (process.env.ELECTRON_RENDERER_URL) await win.loadURL(process.env.ELECTRON_RENDERER_URL);
  else await win.loadFile(join(here, '../renderer/index.html'));
}

app.whenReady().then(async () => {
  // No remote content, ever.
  session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
    const ok = /^(file|devtools|blob|data):/.test(details.url) || details.url.startsWith('http://localhost');
    callback({ cancel: !ok });
  });
  const workDir = await mkdtemp(join(tmpdir(), 'rap-studio-'));
  const services = createServices({
    mode: 'electron',
    ledgerPath: defaultLedgerPathForApp(),
    workDir,
    emit: broadcast,
  });
  ipcMain.handle('rap:invoke', async (_e, method: unknown, arg: unknown) => {
    try {
      return { ok: true, result: await dispatch(services, String(method), arg) };
    } catch (err) {
      return { ok: false, error: toErrorPayload(err) };
    }
  });
  await createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
