/** The services as one object: a method per entry of the typed API (src/shared/api.ts). */
import type { ApiArg, ApiMethod, ApiResult } from '../shared/api.ts';

export type Services = { [M in ApiMethod]: (arg: ApiArg<M>) => Promise<ApiResult<M>> };
