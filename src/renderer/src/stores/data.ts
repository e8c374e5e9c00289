/** The Data and Schema steps: the open dataset, its schema, and the curator's histograms. */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { DatasetView, HistogramView, SchemaInput } from '../../../shared/api';
import { api, call, uploadFile } from '../api/bridge';
import { readText, saveText } from '../lib/download';
import { useAppStore } from './app';

export type HeaderChoice = 'auto' | 'yes' | 'no';

export interface LoadProgress {
  readonly bytes: number;
  readonly totalBytes: number;
  readonly phase: string;
}

export const useDataStore = defineStore('data', () => {
  const app = useAppStore();
  const dataset = shallowRef<DatasetView | null>(null);
  const loading = ref<string | null>(null);
  const progress = ref<LoadProgress | null>(null);
  const header = ref<HeaderChoice>('auto');
  const histograms = ref<Record<string, HistogramView>>({});
  const histogramColumn = ref<string | null>(null);
  /** Bumped whenever a dataset or schema change invalidates what other steps computed. */
  const revision = ref(0);

  api().onEvent((e) => {
    if (e.type === 'load-progress' && loading.value) progress.value = e;
  });

  function adopt(view: DatasetView): void {
    dataset.value = view;
    histograms.value = {};
    if (!view.schema.columns.some((c) => c.name === histogramColumn.value)) {
      histogramColumn.value = view.schema.columns[0]?.name ?? null;
    }
    revision.value++;
  }

  async function withLoading<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    loading.value = what;
    progress.value = null;
    try {
      return await app.guard(fn);
    } finally {
      loading.value = null;
      progress.value = null;
    }
  }

  /** Web mode (and drag and drop): upload the file, then open it on the host. */
  async function openFile(file: File, declared: { schema?: File; domain?: File } = {}): Promise<void> {
    await withLoading(`Loading ${file.name}…`, async () => {
      const schemaText = declared.schema ? await readText(declared.schema) : undefined;
      const domainText = declared.domain ? await readText(declared.domain) : undefined;
      const uploaded = await uploadFile(file);
      const view = await call('openDataset', {
        path: uploaded.path,
        name: file.name,
        header: header.value,
        ...(schemaText !== undefined ? { schemaText } : {}),
        ...(domainText !== undefined ? { domainText } : {}),
      });
      adopt(view);
    });
  }

  /** Electron: the native open dialog. */
  async function openNative(declared: { schema?: File; domain?: File } = {}): Promise<void> {
    const picked = await app.guard(() => call('pickFile', { purpose: 'data' }));
    if (!picked) return;
    await withLoading(`Loading ${picked.name}…`, async () => {
      const schemaText = declared.schema ? await readText(declared.schema) : undefined;
      const domainText = declared.domain ? await readText(declared.domain) : undefined;
      adopt(
        await call('openDataset', {
          path: picked.path,
          name: picked.name,
          header: header.value,
          ...(schemaText !== undefined ? { schemaText } : {}),
          ...(domainText !== undefined ? { domainText } : {}),
        }),
      );
    });
  }

  function restore(view: DatasetView | null): void {
    if (view) adopt(view);
  }

  async function loadHistogram(column: string): Promise<void> {
    const ds = dataset.value;
    if (!ds || histograms.value[column]) return;
    const h = await app.guard(() => call('histogram', { datasetId: ds.id, column }));
    if (h) histograms.value = { ...histograms.value, [column]: h };
  }

  async function setSchema(schema: SchemaInput): Promise<boolean> {
    const ds = dataset.value;
    if (!ds) return false;
    const view = await withLoading('Applying the schema…', () =>
      call('setSchema', { datasetId: ds.id, schema }),
    );
    if (view) adopt(view);
    return view !== undefined;
  }

  async function importSchema(file: File): Promise<void> {
    const ds = dataset.value;
    if (!ds) return;
    const view = await withLoading(`Importing ${file.name}…`, async () =>
      call('importSchema', { datasetId: ds.id, text: await readText(file), fileName: file.name }),
    );
    if (view) adopt(view);
  }

  async function exportSchema(): Promise<void> {
    const ds = dataset.value;
    if (!ds) return;
    const f = await app.guard(() => call('exportSchema', { datasetId: ds.id }));
    if (f) saveText(f.fileName, f.text);
  }

  /** The curator's answer to "does line 1 name the columns?" (asked when it was guessed). */
  async function setHeader(answer: 'yes' | 'no'): Promise<void> {
    const ds = dataset.value;
    if (!ds) return;
    const view = await withLoading(answer === 'yes' ? 'Keeping the header…' : 'Reading the file again…', () =>
      call('setHeader', { datasetId: ds.id, header: answer }),
    );
    if (view) {
      histograms.value = {};
      adopt(view);
    }
  }

  async function confirmSchema(): Promise<void> {
    const ds = dataset.value;
    if (!ds) return;
    const view = await app.guard(() => call('confirmSchema', { datasetId: ds.id }));
    if (view) adopt(view);
  }

  /** A column's category limit on these screens: the file is read again with it. */
  async function setCategoryLimit(column: string, limit: number): Promise<void> {
    const ds = dataset.value;
    if (!ds) return;
    const view = await withLoading(`Reading ${ds.fileName} again…`, () =>
      call('setCategoryLimit', { datasetId: ds.id, column, limit }),
    );
    if (view) adopt(view);
  }

  /** The ledger record changed (cap set, run reserved): refresh the dataset's budget view. */
  async function refreshBudget(): Promise<void> {
    const s = await app.guard(() => call('session', {}));
    if (s?.dataset && s.dataset.id === dataset.value?.id) dataset.value = s.dataset;
  }

  return {
    dataset,
    loading,
    progress,
    header,
    histograms,
    histogramColumn,
    revision,
    openFile,
    openNative,
    restore,
    loadHistogram,
    setSchema,
    importSchema,
    exportSchema,
    confirmSchema,
    setCategoryLimit,
    setHeader,
    refreshBudget,
  };
});
