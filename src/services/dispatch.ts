/**
 * One entry point for every API call, used by Electron's IPC handlers and by the web host:
 * validate the method name and its argument (zod), call the service, and turn failures into
 * the error payload the renderer understands. Internal error details never leave the process
 * (they could quote private values); the curator gets the actionable message of an InputError.
 */
import { z } from 'zod';
import { BudgetRefusedError, InputError } from '../core/errors.ts';
import type { ApiErrorPayload, ApiMethod, ApiMethods } from '../shared/api.ts';
import type { Services } from './services.ts';

/** Argument validators: one per API method (the `satisfies` clause makes a missing one a type error). */
export const argSchemas = {
  appInfo: z.object({}).strict(),
} satisfies { [M in ApiMethod]: z.ZodType<ApiMethods[M][0]> };

export class ApiError extends Error {
  constructor(readonly payload: ApiErrorPayload) {
    super(payload.message);
  }
}

function isApiMethod(name: string): name is ApiMethod {
  return Object.hasOwn(argSchemas, name);
}

export function toErrorPayload(err: unknown): ApiErrorPayload {
  if (err instanceof ApiError) return err.payload;
  if (err instanceof InputError) return { kind: 'input', message: err.message };
  if (err instanceof BudgetRefusedError) return { kind: 'budget', message: err.message };
  if (err instanceof Error && err.name === 'CancelledError')
    return { kind: 'cancelled', message: err.message };
  return { kind: 'internal', message: 'Internal error: see the application log for details.' };
}

export async function dispatch(services: Services, method: string, rawArg: unknown): Promise<unknown> {
  if (!isApiMethod(method)) {
    throw new ApiError({ kind: 'input', message: `Unknown API method "${method}".` });
  }
  const parsed = argSchemas[method].safeParse(rawArg ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` at "${issue.path.join('.')}"` : '';
    throw new ApiError({ kind: 'input', message: `Invalid argument for ${method}${at}: ${issue?.message}` });
  }
  const fn = services[method] as (arg: unknown) => Promise<unknown>;
  return fn.call(services, parsed.data);
}
