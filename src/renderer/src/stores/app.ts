import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { AppInfo } from '../../../shared/api';
import { api } from '../api/bridge';

export const STEPS = ['Data', 'Schema', 'Workload', 'Privacy', 'Run', 'Results', 'Export', 'Ledger'] as const;
export type Step = (typeof STEPS)[number];

export const useAppStore = defineStore('app', () => {
  const info = ref<AppInfo | null>(null);
  const step = ref<Step>('Data');
  const error = ref<string | null>(null);

  async function load(): Promise<void> {
    try {
      info.value = await api().invoke('appInfo', {});
    } catch (err) {
      error.value = (err as Error).message;
    }
  }

  return { info, step, error, load };
});
