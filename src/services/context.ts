/**
 * What the main-side services need from their host (Electron main or the web host): where the
 * ledger lives, how to push events to the renderer, and which mode the app runs in.
 */
import type { AppEvent, AppMode } from '../shared/api.ts';

export interface ServiceContext {
  readonly mode: AppMode;
  readonly ledgerPath: string;
  /** A private working directory (mode 0700) for uploads and exports in web mode. */
  readonly workDir: string;
  emit(event: AppEvent): void;
  /** Web mode: makes a written file downloadable by the browser; returns its URL path. */
  offerDownload?(path: string, fileName: string): string;
}
