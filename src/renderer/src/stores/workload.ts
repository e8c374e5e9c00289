/** The Workload step: the main workload and the optional evaluation workload (future error). */
import { defineStore } from 'pinia';
import { reactive, ref, shallowRef } from 'vue';
import type {
  FeatureDistributionName,
  ThresholdInput,
  WorkloadRole,
  WorkloadView,
} from '../../../shared/api';
import { call } from '../api/bridge';
import { readText, saveText } from '../lib/download';
import { useAppStore } from './app';
import { useDataStore } from './data';
import { usePrivacyStore } from './privacy';

const key = (t: ThresholdInput) => `${[...t.features].sort().join('\u0000')}|${t.r}`;

export const useWorkloadStore = defineStore('workload', () => {
  const app = useAppStore();
  const data = useDataStore();
  const privacy = usePrivacyStore();
  /** Whether the release reads the column as a released column (not left out, not the identifier). */
  const released = (name: string) => !privacy.form.exclude.includes(name) && privacy.form.unitColumn !== name;
  const views = shallowRef<Record<WorkloadRole, WorkloadView | null>>({ main: null, eval: null });
  const role = ref<WorkloadRole>('main');
  const notice = ref<string | null>(null);
  const builder = reactive({
    features: [] as string[],
    k: 3,
    r: 2,
    weight: 1,
    size: 16,
    dist: 'uniform' as FeatureDistributionName,
    seed: 1,
    /** Drift γ of an evaluation workload drawn from the main one (0 none, 0.5 random, 1 reversed). */
    drift: 0.5,
    /** Target column of the default workload ('' = none). */
    target: '',
  });

  function reset(): void {
    views.value = { main: null, eval: null };
    builder.features = [];
    notice.value = null;
  }

  function restore(main: WorkloadView | null, evalView: WorkloadView | null): void {
    views.value = { main, eval: evalView };
  }

  function current(r: WorkloadRole): ThresholdInput[] {
    return (views.value[r]?.thresholds ?? []).map((t) => ({
      features: [...t.features],
      r: t.r,
      weight: t.weight,
    }));
  }

  async function store(r: WorkloadRole, thresholds: ThresholdInput[]): Promise<boolean> {
    const ds = data.dataset;
    if (!ds) return false;
    const view = await app.guard(() => call('setWorkload', { datasetId: ds.id, role: r, thresholds }));
    if (view) views.value = { ...views.value, [r]: view };
    return view !== undefined;
  }

  /** Adds thresholds, skipping ones already there (same features and r). */
  async function add(r: WorkloadRole, generated: readonly ThresholdInput[]): Promise<void> {
    const have = current(r);
    const seen = new Set(have.map(key));
    // Thresholds on a column the release leaves out (the Schema step) would be refused at the run.
    const fresh = generated.filter((t) => t.features.every(released));
    const unreleased = generated.length - fresh.length;
    const added = fresh.filter((t) => {
      const k = key(t);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    if (await store(r, [...have, ...added])) {
      const skipped = fresh.length - added.length;
      notice.value =
        `Added ${added.length.toLocaleString('en-US')} threshold${added.length === 1 ? '' : 's'}` +
        (skipped > 0 ? `; ${skipped.toLocaleString('en-US')} already in the workload were skipped.` : '.') +
        (unreleased > 0
          ? ` ${unreleased.toLocaleString('en-US')} on columns left out of the release (or the identifier) were not added.`
          : '');
    }
  }

  async function addOne(r: WorkloadRole): Promise<void> {
    if (builder.features.length === 0) {
      app.showError('Choose the features of the threshold first (tick them in the feature list).');
      return;
    }
    await add(r, [{ features: [...builder.features], r: builder.r, weight: builder.weight }]);
  }

  async function addSubsets(r: WorkloadRole): Promise<void> {
    const ds = data.dataset;
    if (!ds) return;
    if (builder.features.length === 0) {
      app.showError('Choose at least k features first (tick them in the feature list).');
      return;
    }
    const list = await app.guard(() =>
      call('allSubsets', {
        datasetId: ds.id,
        features: builder.features,
        k: builder.k,
        r: builder.r,
        weight: builder.weight,
      }),
    );
    if (list) await add(r, [...list]);
  }

  /** Every 2-way marginal (plus 3-way with the target, when one is chosen), weight 1 each. */
  async function addDefault(r: WorkloadRole): Promise<void> {
    const ds = data.dataset;
    if (!ds) return;
    const target = builder.target || undefined;
    const list = await app.guard(() =>
      call('defaultThresholds', { datasetId: ds.id, ...(target ? { target } : {}) }),
    );
    if (list) await add(r, [...list]);
  }

  async function addRandom(r: WorkloadRole): Promise<void> {
    const ds = data.dataset;
    if (!ds) return;
    const list = await app.guard(() =>
      call('randomThresholds', {
        datasetId: ds.id,
        features:
          builder.features.length > 0
            ? builder.features
            : ds.schema.columns.map((c) => c.name).filter(released),
        k: builder.k,
        r: builder.r,
        size: builder.size,
        dist: builder.dist,
        seed: builder.seed,
        weight: builder.weight,
      }),
    );
    if (list) await add(r, [...list]);
  }

  /** Future thresholds drawn from the main workload's feature frequencies, drifted by γ. */
  async function addDrifted(r: WorkloadRole): Promise<void> {
    const ds = data.dataset;
    if (!ds) return;
    const list = await app.guard(() =>
      call('driftedThresholds', {
        datasetId: ds.id,
        k: builder.k,
        r: builder.r,
        size: builder.size,
        drift: builder.drift,
        seed: builder.seed,
        weight: builder.weight,
      }),
    );
    if (list) await add(r, [...list]);
  }

  async function remove(r: WorkloadRole, index: number): Promise<void> {
    const list = current(r);
    list.splice(index, 1);
    notice.value = null;
    await store(r, list);
  }

  async function setWeight(r: WorkloadRole, index: number, weight: number): Promise<void> {
    const list = current(r);
    list[index] = { ...list[index], weight };
    await store(r, list);
  }

  async function clear(r: WorkloadRole): Promise<void> {
    notice.value = null;
    await store(r, []);
  }

  async function importFile(r: WorkloadRole, file: File): Promise<void> {
    const ds = data.dataset;
    if (!ds) return;
    const view = await app.guard(async () =>
      call('importWorkload', { datasetId: ds.id, role: r, text: await readText(file), fileName: file.name }),
    );
    if (view) {
      views.value = { ...views.value, [r]: view };
      notice.value = `Imported ${view.thresholds.length.toLocaleString('en-US')} thresholds from ${file.name}.`;
    }
  }

  async function exportFile(r: WorkloadRole): Promise<void> {
    const ds = data.dataset;
    if (!ds) return;
    const f = await app.guard(() => call('exportWorkload', { datasetId: ds.id, role: r }));
    if (f) saveText(f.fileName, f.text);
  }

  return {
    released,
    views,
    role,
    notice,
    builder,
    reset,
    restore,
    add,
    addOne,
    addSubsets,
    addDefault,
    addRandom,
    addDrifted,
    remove,
    setWeight,
    clear,
    importFile,
    exportFile,
  };
});
