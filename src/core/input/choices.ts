/**
 * The engine's named choices users may type (CLI flags, the app's Privacy step), listed once.
 * The engine process's protocol and every parser use these lists.
 */
import type { BackendName, EngineMode } from '../engine/types.ts';

/** Kernel backends, the default-first order every message lists them in. */
export const BACKENDS = [
  'cpu',
  'wasm',
  'node',
  'node-gpu',
  'webgpu',
] as const satisfies readonly BackendName[];

export const ENGINE_MODES = ['query', 'table'] as const satisfies readonly EngineMode[];
