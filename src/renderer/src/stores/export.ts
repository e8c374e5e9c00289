/** The Export step: write the synthetic CSV and its manifest; commit the release in the ledger. */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ExportView, RunView } from '../../../shared/api';
import { call } from '../api/bridge';
import { follow } from '../lib/download';
import { useAppStore } from './app';
import { useRunStore } from './run';

export const useExportStore = defineStore('export', () => {
  const app = useAppStore();
  const runs = useRunStore();
  const fileName = ref('');
  const exporting = ref(false);
  const last = shallowRef<ExportView | null>(null);
  /** The last export failure (the file was not written), kept beside the button. */
  const failure = ref<string | null>(null);
  /** Finished releases not exported yet (this session's and earlier ones', from the result store). */
  const pending = shallowRef<readonly RunView[]>([]);
  /** The release being exported or discarded from the pending list. */
  const busyRelease = ref<string | null>(null);

  /** Quietly: a refresh must not replace (or clear) the banner of the action that preceded it. */
  async function loadPending(): Promise<void> {
    try {
      pending.value = await call('pendingReleases', {});
    } catch {
      // the list stays as it was; the next refresh tries again
    }
  }

  /** Exports a pending release under its default name (web mode: then downloads it). */
  async function exportPending(view: RunView): Promise<void> {
    busyRelease.value = view.releaseId;
    try {
      const outcome = await app.guard(() => call('exportRun', { runId: view.runId }));
      if (outcome?.written) {
        last.value = outcome;
        if (outcome.downloadUrl) download(outcome);
      }
    } finally {
      busyRelease.value = null;
      await loadPending();
    }
  }

  /** Discards a pending release after the curator confirms that its budget stays spent. */
  async function discard(view: RunView): Promise<void> {
    const ok = window.confirm(
      `Discard the synthetic data of release ${(view.releaseId ?? '').slice(0, 8)} (${view.datasetName}, ε = ${view.epsilon})?\n\n` +
        'Its privacy budget stays spent: the ledger keeps counting it. The output cannot be recovered.',
    );
    if (!ok) return;
    busyRelease.value = view.releaseId;
    try {
      await app.guard(() => call('discardRun', { runId: view.runId, confirm: 'discard' }));
    } finally {
      busyRelease.value = null;
      await loadPending();
    }
  }

  async function exportRun(): Promise<void> {
    const run = runs.run;
    if (!run) return;
    exporting.value = true;
    failure.value = null;
    try {
      const name = fileName.value.trim();
      const outcome = await app.guard(() =>
        call('exportRun', { runId: run.runId, ...(name ? { fileName: name } : {}) }),
      );
      if (outcome === undefined) {
        failure.value = app.error?.message ?? 'The file was not written.';
        return;
      }
      if (!outcome.written) return;
      last.value = outcome;
      if (outcome.downloadUrl) download(outcome);
    } finally {
      exporting.value = false;
      void loadPending();
    }
  }

  function download(view: ExportView): void {
    if (view.downloadUrl) follow(view.downloadUrl, view.fileName);
  }

  function downloadManifest(view: ExportView): void {
    if (view.manifestUrl) follow(view.manifestUrl, view.manifestPath.split(/[\\/]/).pop() ?? 'manifest.json');
  }

  function downloadReport(view: ExportView, which: 'public' | 'private'): void {
    const r = view.reports;
    if (!r) return;
    const url = which === 'public' ? r.publicUrl : r.privateUrl;
    const file = which === 'public' ? r.publicPath : r.privatePath;
    if (url) follow(url, file.split(/[\\/]/).pop() ?? `${which}.html`);
  }

  return {
    fileName,
    downloadReport,
    exporting,
    last,
    failure,
    pending,
    busyRelease,
    exportRun,
    loadPending,
    exportPending,
    discard,
    download,
    downloadManifest,
  };
});
