/**
 * Electron main process: window creation, security settings and the IPC bridge. All real work
 * happens in the plain-TypeScript services (src/services), the same ones web mode runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron';
import { dispatch, toErrorPayload } from '../services/dispatch.ts';
import { defaultLedgerPathForApp } from '../services/paths.ts';
import { createServices, type Services } from '../services/services.ts';
import type { AppEvent } from '../shared/api.ts';
import { IPC_CHANNELS, isActiveStatus } from '../shared/constants.ts';
import { electronDialogs } from './dialogs.ts';
import { utilityProcessSpawner } from './engine-spawner.ts';

const here = dirname(fileURLToPath(import.meta.url));
const windows = new Set<BrowserWindow>();
let services: Services | undefined;

/** Whether a run is under way (closing the window then asks first). */
async function runInProgress(): Promise<boolean> {
  const run = services ? await services.runState({}) : null;
  return run !== null && isActiveStatus(run.status);
}

function broadcast(event: AppEvent): void {
  for (const w of windows) if (!w.isDestroyed()) w.webContents.send(IPC_CHANNELS.event, event);
}

async function createWindow(): Promise<void> {
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    show: false,
    title: 'RAP Studio',
    // The application icon (resources/, beside out/ in the repository and in a packaged app).
    icon: join(here, '../../resources/icon.png'),
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
  let confirmedClose = false;
  win.on('close', (e) => {
    if (confirmedClose) return;
    e.preventDefault();
    void runInProgress().then((busy) => {
      const leave =
        !busy ||
        dialog.showMessageBoxSync(win, {
          type: 'warning',
          buttons: ['Keep running', 'Cancel the run and close'],
          defaultId: 0,
          cancelId: 0,
          title: 'A run is in progress',
          message: 'A run is in progress. Closing cancels it; its privacy spend stays counted in the ledger.',
        }) === 1;
      if (!leave) return;
      if (busy) void services?.cancelRun({});
      confirmedClose = true;
      win.close();
    });
  });
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
  app.on('will-quit', () => {
    void rm(workDir, { recursive: true, force: true });
  });
  const svc = createServices({
    mode: 'electron',
    ledgerPath: defaultLedgerPathForApp(),
    workDir,
    emit: broadcast,
    dialogs: electronDialogs(() => BrowserWindow.getFocusedWindow() ?? [...windows][0]),
    spawner: utilityProcessSpawner(join(here, 'engine-child.js')),
  });
  services = svc;
  ipcMain.handle(IPC_CHANNELS.invoke, async (_e, method: unknown, arg: unknown) => {
    try {
      return { ok: true, result: await dispatch(svc, String(method), arg) };
    } catch (err) {
      const error = toErrorPayload(err);
      if (error.kind === 'internal')
        process.stderr.write(`api ${String(method)}: ${(err as Error)?.stack ?? err}\n`);
      return { ok: false, error };
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
