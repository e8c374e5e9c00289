import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import type { ApiErrorPayload, AppInfo } from '../../../shared/api';
import { BridgeError, call } from '../api/bridge';

export const STEPS = ['Data', 'Schema', 'Workload', 'Privacy', 'Run', 'Results', 'Export', 'Ledger'] as const;
export type Step = (typeof STEPS)[number];

const STEP_KEY = 'rap_step';

function savedStep(): Step {
  const s = sessionStorage.getItem(STEP_KEY);
  return (STEPS as readonly string[]).includes(s ?? '') ? (s as Step) : 'Data';
}

export interface Banner extends ApiErrorPayload {
  readonly step: Step;
}

export const useAppStore = defineStore('app', () => {
  const info = ref<AppInfo | null>(null);
  const step = ref<Step>(savedStep());
  const error = ref<Banner | null>(null);
  watch(step, (s) => sessionStorage.setItem(STEP_KEY, s));

  async function load(): Promise<void> {
    await guard(async () => {
      info.value = await call('appInfo', {});
    });
  }

  function go(s: Step): void {
    step.value = s;
  }

  /** Runs an action; its failure becomes the error banner (the services' message says what to do). */
  async function guard<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await fn();
      error.value = null;
      return result;
    } catch (err) {
      const payload: ApiErrorPayload =
        err instanceof BridgeError ? err.payload : { kind: 'internal', message: (err as Error).message };
      error.value = { ...payload, step: step.value };
      return undefined;
    }
  }

  function showError(message: string, kind: ApiErrorPayload['kind'] = 'input'): void {
    error.value = { kind, message, step: step.value };
  }

  function dismiss(): void {
    error.value = null;
  }

  return { info, step, error, load, go, guard, showError, dismiss };
});
