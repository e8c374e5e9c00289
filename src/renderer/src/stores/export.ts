/** The Export step: write the synthetic CSV and its manifest; commit the release in the ledger. */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ExportView } from '../../../shared/api';
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
    }
  }

  function download(view: ExportView): void {
    if (view.downloadUrl) follow(view.downloadUrl, view.fileName);
  }

  function downloadManifest(view: ExportView): void {
    if (view.manifestUrl) follow(view.manifestUrl, view.manifestPath.split(/[\\/]/).pop() ?? 'manifest.json');
  }

  return { fileName, exporting, last, failure, exportRun, download, downloadManifest };
});
