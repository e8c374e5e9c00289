/**
 * The typed API between the renderer and the main-side services. The preload script exposes
 * it to the renderer over Electron IPC; web mode bridges the very same calls over HTTP and a
 * WebSocket. Every method takes one JSON argument and returns JSON; the main side validates
 * each argument before a service sees it.
 *
 * This file holds types only (no runtime code) so the renderer, preload and main can all
 * import it without pulling in Node modules.
 */

export type AppMode = 'electron' | 'web';

export interface AppInfo {
  readonly version: string;
  readonly mode: AppMode;
  readonly ledgerPath: string;
  /** The engine backend that will run (e.g. 'cpu' = typed-array kernels, 'node-gpu'). */
  readonly backend: string;
}

/**
 * Method name → [argument, result]. Add new methods here first; the dispatcher's validators
 * (src/services/dispatch.ts) must cover every key (a type test enforces it).
 */
export interface ApiMethods {
  appInfo: [Record<string, never>, AppInfo];
}

export type ApiMethod = keyof ApiMethods;
export type ApiArg<M extends ApiMethod> = ApiMethods[M][0];
export type ApiResult<M extends ApiMethod> = ApiMethods[M][1];

/** Events pushed from the main side (run progress, run end, …). */
export type AppEvent = { readonly type: 'hello'; readonly at: string };

/** The error shape carried across the bridge. `kind` lets the UI choose what to say. */
export interface ApiErrorPayload {
  readonly kind: 'input' | 'budget' | 'cancelled' | 'internal';
  readonly message: string;
}

/** What the preload exposes as `window.rapStudio` (and the web client implements). */
export interface RapStudioBridge {
  invoke<M extends ApiMethod>(method: M, arg: ApiArg<M>): Promise<ApiResult<M>>;
  onEvent(listener: (event: AppEvent) => void): () => void;
  /** Electron only: a native file picker. Web mode uses a file input instead. */
  readonly mode: AppMode;
}
