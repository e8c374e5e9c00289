/**
 * The main-side services: plain TypeScript that both the Electron main process and the web host
 * run. One small service per concern (the map: README.md), over the state they share
 * (app-state.ts); together they implement every entry of the typed API in src/shared/api.ts.
 * Arguments arrive already shape-checked (dispatch.ts), and every problem a curator can fix is an
 * InputError whose message says what to do.
 */
import type { Services } from './api-services.ts';
import { createAppState } from './app-state.ts';
import { databasePlanService } from './database-plan.ts';
import { databaseRunService } from './database-runs.ts';
import { databaseService } from './database-service.ts';
import { datasetService } from './dataset-service.ts';
import { exportService } from './export-service.ts';
import { ledgerService } from './ledger-service.ts';
import { runService } from './run-service.ts';
import type { ServiceContext } from './service-context.ts';
import { sessionService } from './session-service.ts';
import { workloadService } from './workload-service.ts';

export type { Services } from './api-services.ts';

export function createServices(ctx: ServiceContext): Services {
  const state = createAppState(ctx);
  return {
    ...sessionService(state),
    ...datasetService(state),
    ...databaseService(),
    ...databaseRunService(state),
    ...databasePlanService(),
    ...workloadService(state),
    ...runService(state),
    ...exportService(state),
    ...ledgerService(state),
  };
}
