/**
 * The preload script: exposes only the typed bridge (src/shared/api.ts) to the sandboxed
 * renderer. No Node or Electron object crosses into the page.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { ApiErrorPayload, AppEvent, RapStudioBridge } from '../shared/api.ts';
import { IPC_CHANNELS } from '../shared/constants.ts';

const bridge: RapStudioBridge = {
  mode: 'electron',
  async invoke(method, arg) {
    const res = (await ipcRenderer.invoke(IPC_CHANNELS.invoke, method, arg)) as
      | { ok: true; result: never }
      | { ok: false; error: ApiErrorPayload };
    if (!res.ok) {
      const err = new Error(res.error.message) as Error & { payload: ApiErrorPayload };
      err.payload = res.error;
      throw err;
    }
    return res.result;
  },
  onEvent(listener) {
    const wrapped = (_e: unknown, event: AppEvent) => listener(event);
    ipcRenderer.on(IPC_CHANNELS.event, wrapped);
    return () => ipcRenderer.removeListener(IPC_CHANNELS.event, wrapped);
  },
};

contextBridge.exposeInMainWorld('rapStudio', bridge);
