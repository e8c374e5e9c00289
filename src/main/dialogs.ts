/** Native open/save dialogs for the services (src/services/service-context.ts NativeDialogs). */
import { type BrowserWindow, dialog } from 'electron';
import type { NativeDialogs } from '../services/service-context.ts';

export function electronDialogs(window: () => BrowserWindow | undefined): NativeDialogs {
  return {
    async openFile({ title, filters }) {
      const win = window();
      const opts = { title, filters, properties: ['openFile' as const] };
      const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
    },
    async saveFile({ title, defaultName, filters }) {
      const win = window();
      const opts = { title, defaultPath: defaultName, filters };
      const r = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts);
      return r.canceled || !r.filePath ? null : r.filePath;
    },
  };
}
