/** The Results step: the finished run's report and the real-vs-synthetic marginal the curator picks. */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { MarginalView, ReleaseReportView, ResultsView, RunView } from '../../../shared/api';
import { call } from '../api/bridge';
import { useAppStore } from './app';

export const useResultsStore = defineStore('results', () => {
  const app = useAppStore();
  const results = shallowRef<ResultsView | null>(null);
  const marginal = shallowRef<MarginalView | null>(null);
  const first = ref<string>('');
  const second = ref<string>('');
  const loading = ref(false);
  /** The kept report of the release shown (the live run's, or one inspected from the kept list). */
  const report = shallowRef<ReleaseReportView | null>(null);
  /** Releases kept in the result store (for re-inspection after a restart). */
  const kept = shallowRef<readonly RunView[]>([]);
  /** Only the latest comparison asked for is shown: a numeric one (it reads the released rows) can answer after a later pick. */
  let marginalSeq = 0;

  async function load(runId: string): Promise<void> {
    if (results.value?.runId === runId) return;
    loading.value = true;
    try {
      const r = await app.guard(() => call('results', { runId }));
      if (!r) return;
      results.value = r;
      marginal.value = null;
      if (!r.features.includes(first.value)) first.value = r.features[0] ?? '';
      if (second.value && !r.features.includes(second.value)) second.value = '';
      await loadMarginal();
    } finally {
      loading.value = false;
    }
  }

  async function loadMarginal(): Promise<void> {
    const r = results.value;
    if (!r || !first.value) return;
    const features =
      second.value && second.value !== first.value ? [first.value, second.value] : [first.value];
    const mine = ++marginalSeq;
    const m = await app.guard(() => call('marginalCompare', { runId: r.runId, features }));
    if (m && mine === marginalSeq) marginal.value = m;
  }

  /** The kept report of a stored release; quietly none while it is being stored. */
  async function loadReport(runId: string): Promise<void> {
    if (report.value?.runId === runId && report.value.data) return;
    try {
      report.value = await call('releaseReport', { runId });
    } catch {
      if (report.value?.runId !== runId) report.value = null;
    }
  }

  async function loadKept(): Promise<void> {
    try {
      kept.value = await call('keptReleases', {});
    } catch {
      // the list stays as it was
    }
  }

  function clear(): void {
    results.value = null;
    marginal.value = null;
  }

  return {
    results,
    marginal,
    first,
    second,
    loading,
    report,
    kept,
    load,
    loadMarginal,
    loadReport,
    loadKept,
    clear,
  };
});
