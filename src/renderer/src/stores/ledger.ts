/** The Ledger step: every dataset and release, verification and export. */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { LedgerOverview, LedgerVerifyView } from '../../../shared/api';
import { call } from '../api/bridge';
import { saveText } from '../lib/download';
import { useAppStore } from './app';

export const useLedgerStore = defineStore('ledger', () => {
  const app = useAppStore();
  const overview = shallowRef<LedgerOverview | null>(null);
  const verified = shallowRef<LedgerVerifyView | null>(null);
  const loading = ref(false);

  async function load(): Promise<void> {
    loading.value = true;
    try {
      const o = await app.guard(() => call('ledgerOverview', {}));
      if (o) overview.value = o;
    } finally {
      loading.value = false;
    }
  }

  async function verify(): Promise<void> {
    const v = await app.guard(() => call('ledgerVerify', {}));
    if (v) verified.value = v;
  }

  async function exportAs(format: 'csv' | 'json'): Promise<void> {
    const f = await app.guard(() => call('ledgerExport', { format }));
    if (f) saveText(f.fileName, f.text, format === 'csv' ? 'text/csv' : 'application/json');
  }

  /** A dataset's printable timeline, shown in the step (and printed from there). */
  const printable = shallowRef<{
    readonly fingerprint: string;
    readonly fileName: string;
    readonly html: string;
  } | null>(null);

  async function timeline(fingerprint: string, format: 'csv' | 'html'): Promise<void> {
    const f = await app.guard(() => call('ledgerTimeline', { fingerprint, format }));
    if (!f) return;
    if (format === 'csv') saveText(f.fileName, f.text, 'text/csv');
    else printable.value = { fingerprint, fileName: f.fileName, html: f.text };
  }

  return { overview, verified, loading, printable, load, verify, exportAs, timeline };
});
