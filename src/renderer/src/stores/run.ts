/**
 * The Run step: the current (or last) run as the services hold it. Progress streams in as
 * events; after a renderer reload `runState` brings back the whole history.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, triggerRef } from 'vue';
import type { ProgressPoint, RunView } from '../../../shared/api';
import { isActiveStatus } from '../../../shared/constants';
import { api, call } from '../api/bridge';
import { useAppStore } from './app';
import { useDataStore } from './data';
import { usePrivacyStore } from './privacy';

/** How far along a run is: a view of the same run never moves back down this order. */
const PROGRESS: Record<RunView['status'], number> = {
  reserving: 0,
  loading: 1,
  running: 2,
  finished: 3,
  failed: 3,
  cancelled: 3,
  exported: 4,
};

export const useRunStore = defineStore('run', () => {
  const app = useAppStore();
  const data = useDataStore();
  const privacy = usePrivacyStore();
  const run = shallowRef<RunView | null>(null);
  /** Live samples (appended in place; `tick` tells charts to redraw). */
  const history = shallowRef<ProgressPoint[]>([]);
  const starting = ref(false);
  const cancelling = ref(false);
  const active = computed(() => run.value !== null && isActiveStatus(run.value.status));
  const latest = computed<ProgressPoint | null>(() => history.value[history.value.length - 1] ?? null);

  /**
   * An HTTP answer can be overtaken by a pushed event: startRun answers 'loading' while the
   * WebSocket may already have said 'running'. Adopting the older view would show a run stuck
   * at 'loading' (no later status event comes until the run ends), so it is dropped.
   */
  function outdated(view: RunView): boolean {
    const shown = run.value;
    return shown !== null && shown.runId === view.runId && PROGRESS[view.status] < PROGRESS[shown.status];
  }

  function adopt(view: RunView | null): void {
    if (view && outdated(view)) return;
    const previous = run.value;
    run.value = view;
    history.value = view ? [...view.history] : [];
    if (!view || !isActiveStatus(view.status)) cancelling.value = false;
    if (view && previous && isActiveStatus(previous.status) && !isActiveStatus(view.status)) {
      void data.refreshBudget();
      void privacy.refresh();
    }
  }

  api().onEvent((e) => {
    if (e.type === 'run-update') adopt(e.run);
    else if (e.type === 'run-progress' && run.value?.runId === e.runId) {
      history.value.push(e.point);
      triggerRef(history);
    } else if (e.type === 'hello') void restore();
  });

  async function restore(): Promise<void> {
    const view = await app.guard(() => call('runState', {}));
    if (view !== undefined) adopt(view);
  }

  async function start(): Promise<boolean> {
    const ds = data.dataset;
    if (!ds) return false;
    starting.value = true;
    try {
      const view = await app.guard(() =>
        call('startRun', { datasetId: ds.id, settings: privacy.settings() }),
      );
      if (!view) {
        await privacy.refresh();
        return false;
      }
      adopt(view);
      app.go('Run');
      void data.refreshBudget();
      return true;
    } finally {
      starting.value = false;
    }
  }

  async function cancel(): Promise<void> {
    cancelling.value = true;
    const view = await app.guard(() => call('cancelRun', {}));
    if (view === undefined) cancelling.value = false;
  }

  return { run, history, starting, cancelling, active, latest, adopt, restore, start, cancel };
});
