/**
 * What the main-side services need from their host (Electron main or the web host): where the
 * ledger lives, how to push events to the renderer, which mode the app runs in, and the
 * host-specific pieces (native dialogs, how the engine process is started).
 */
import type { EngineSpawner } from '../core/engine/process/client.ts';
import type { AppEvent, AppMode } from '../shared/api.ts';
import type { WorkerEntry } from './ledger-client.ts';

/** Native file dialogs (Electron); web mode has none and uses uploads and downloads instead. */
export interface NativeDialogs {
  /** A file to open; null when the curator cancels. */
  openFile(opts: {
    title: string;
    filters: { name: string; extensions: string[] }[];
  }): Promise<string | null>;
  /** Where to save; null when the curator cancels. */
  saveFile(opts: {
    title: string;
    defaultName: string;
    filters: { name: string; extensions: string[] }[];
  }): Promise<string | null>;
}

export interface ServiceContext {
  readonly mode: AppMode;
  readonly ledgerPath: string;
  /** A private working directory (mode 0700) for uploads and exports in web mode. */
  readonly workDir: string;
  /** How to start the ledger's worker thread (Electron: the bundled entry); default the TypeScript one. */
  readonly ledgerWorker?: WorkerEntry;
  /** The result store's folder (finished releases until exported); default `results/` beside the ledger. */
  readonly resultsDir?: string;
  emit(event: AppEvent): void;
  /** Web mode: makes a written file downloadable by the browser; returns its URL path. */
  offerDownload?(path: string, fileName: string): string;
  /** Electron: native dialogs. */
  readonly dialogs?: NativeDialogs;
  /** How the engine process starts (Electron: utilityProcess); default Node's fork. */
  readonly spawner?: EngineSpawner;
  /** Diagnostics for the application log (never private values); default stderr. */
  log?(message: string): void;
}
