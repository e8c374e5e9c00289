/**
 * Electron main process: window creation, security settings and the IPC bridge. All real work
 * happens in the plain-TypeScript services (src/services), the same ones web mode runs.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron';
import { defaultLedgerPath } from '../core/ledger/paths.ts';
import { dispatch, toErrorPayload } from '../services/dispatch.ts';
import { bundledWorkerEntry } from '../services/ledger-client.ts';
import { createServices, type Services } from '../services/services.ts';
import { createWorkDir, privateFilesRemover, removeStaleWorkDirs } from '../services/work-dir.ts';
import type { AppEvent } from '../shared/api.ts';
import { IPC_CHANNELS, isActiveStatus } from '../shared/constants.ts';
import { type CloseState, closePrompt } from './close-prompt.ts';
import { electronDialogs } from './dialogs.ts';
import { utilityProcessSpawner } from './engine-spawner.ts';
import {
  devToolsAllowed,
  permissionCheckHandler,
  permissionRequestHandler,
  rendererSource,
  requestAllowed,
  trustedSender,
  willPreventUnloadHandler,
} from './security.ts';

const here = dirname(fileURLToPath(import.meta.url));
const source = rendererSource(process.env, app.isPackaged, join(here, '../renderer/index.html'));
const windows = new Set<BrowserWindow>();
let services: Services | undefined;

/** What closing must ask about: a run under way, finished releases not exported yet. */
async function closeState(): Promise<CloseState> {
  const run = services ? await services.runState({}) : null;
  const pending = services ? await services.pendingReleases({}).catch(() => []) : [];
  return { active: run !== null && isActiveStatus(run.status), unexported: pending.length };
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
      devTools: devToolsAllowed(app.isPackaged),
    },
  });
  windows.add(win);
  win.on('closed', () => windows.delete(win));
  let confirmedClose = false;
  win.on('close', (e) => {
    if (confirmedClose) return;
    e.preventDefault();
    void closeState().then((state) => {
      const prompt = closePrompt(state);
      const leave =
        prompt === null ||
        dialog.showMessageBoxSync(win, {
          type: 'warning',
          buttons: [...prompt.buttons],
          defaultId: 0,
          cancelId: 0,
          title: prompt.title,
          message: prompt.message,
          detail: prompt.detail,
        }) === 1;
      if (!leave) return;
      if (state.active) void services?.cancelRun({});
      confirmedClose = true;
      win.close();
    });
  });
  // The page's beforeunload must not silently cancel a close the curator already confirmed here.
  win.webContents.on(
    'will-prevent-unload',
    willPreventUnloadHandler(() => confirmedClose),
  );
  win.once('ready-to-show', () => win.show());
  // No navigation away from the app and no new windows: links open in the system browser.
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  if (source.kind === 'dev') await win.loadURL(source.url);
  else await win.loadFile(source.file);
}

app.whenReady().then(async () => {
  // No remote content, ever.
  session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !requestAllowed(details.url, app.isPackaged, source) });
  });
  session.defaultSession.setPermissionRequestHandler(permissionRequestHandler);
  session.defaultSession.setPermissionCheckHandler(permissionCheckHandler);
  removeStaleWorkDirs();
  const workDir = createWorkDir();
  // Synchronous: the process may end right after will-quit.
  const removePrivateFiles = privateFilesRemover(workDir, true);
  app.on('will-quit', removePrivateFiles);
  process.on('exit', removePrivateFiles);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => app.quit());
  const svc = createServices({
    mode: 'electron',
    ledgerPath: defaultLedgerPath(),
    workDir,
    ledgerWorker: bundledWorkerEntry(here),
    emit: broadcast,
    dialogs: electronDialogs(() => BrowserWindow.getFocusedWindow() ?? [...windows][0]),
    spawner: utilityProcessSpawner(join(here, 'engine-child.js')),
  });
  services = svc;
  ipcMain.handle(IPC_CHANNELS.invoke, async (e, method: unknown, arg: unknown) => {
    if (!trustedSender(e.senderFrame?.url, source)) {
      return {
        ok: false,
        error: { kind: 'input', message: 'Refused: the call did not come from RAP Studio.' },
      };
    }
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
