/**
 * The main-side services: plain TypeScript that both the Electron main process and the web
 * host run. Each method implements one entry of the typed API in src/shared/api.ts.
 */
import type { ApiArg, ApiMethod, ApiResult } from '../shared/api.ts';
import { APP_VERSION } from '../shared/version.ts';
import type { ServiceContext } from './context.ts';

export type Services = { [M in ApiMethod]: (arg: ApiArg<M>) => Promise<ApiResult<M>> };

export function createServices(ctx: ServiceContext): Services {
  return {
    async appInfo() {
      return { version: APP_VERSION, mode: ctx.mode, ledgerPath: ctx.ledgerPath, backend: 'cpu' };
    },
  };
}
