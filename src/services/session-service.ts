/** What the app is (version, mode, ledger, kernel backends) and the session a reloaded page resumes. */
import { availableBackends } from '../core/engine/kernels/available-backends.ts';
import { APP_VERSION } from '../core/version.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import { viewOf } from './dataset-service.ts';
import { runView } from './runs.ts';
import { workloadOf } from './workload-service.ts';

export type SessionService = Pick<Services, 'appInfo' | 'session'>;

export function sessionService(state: AppState): SessionService {
  const { ctx } = state;
  return {
    async appInfo() {
      const { backend, backends } = availableBackends();
      return { version: APP_VERSION, mode: ctx.mode, ledgerPath: ctx.ledgerPath, backend, backends };
    },

    async session() {
      const ds = state.datasets.current;
      const run = state.startedRuns()?.latest;
      const safe = <T>(fn: () => T): T | null => {
        try {
          return fn();
        } catch {
          return null;
        }
      };
      return {
        dataset: ds ? await viewOf(state, ds) : null,
        workload: ds ? safe(() => workloadOf(ds, 'main')) : null,
        evalWorkload: ds ? safe(() => workloadOf(ds, 'eval')) : null,
        run: run ? runView(run) : null,
      };
    },
  };
}
