/**
 * The engine's named choices users may type (CLI flags, the app's Privacy step), listed once.
 * The engine process's protocol and every parser use these lists.
 */
import type { BackendName, EngineMode, RapOptions, Relaxation } from '../engine/types.ts';

/** Kernel backends, the default-first order every message lists them in. */
export const BACKENDS = [
  'cpu',
  'wasm',
  'node',
  'node-gpu',
  'webgpu',
] as const satisfies readonly BackendName[];

export const ENGINE_MODES = ['query', 'table'] as const satisfies readonly EngineMode[];

/**
 * Query-mode selection as users name it: one-shot Gumbel top-K (OSAS, the default) or adaptive
 * peeling (AS), and the engine's names for them. Same privacy cost (docs/privacy.md).
 */
export const SELECTIONS = ['one-shot', 'adaptive'] as const;
export type SelectionName = (typeof SELECTIONS)[number];
export const ENGINE_SELECTION: Readonly<Record<SelectionName, RapOptions['selection']>> = {
  'one-shot': 'oneshot',
  adaptive: 'iterative',
};

/** How D' is kept on the simplex (sparsemax, the default, or GEM's softmax). */
export const RELAXATIONS = ['sparsemax', 'softmax'] as const satisfies readonly Relaxation[];

/**
 * Whether the first row of a CSV names the columns, as the curator says it (`--header yes|no`,
 * the app's Header row). A release never publishes names it guessed (docs/privacy.md).
 */
export const HEADER_CHOICES = ['yes', 'no'] as const;
export const HEADER_VALUE: Readonly<Record<(typeof HEADER_CHOICES)[number], boolean>> = {
  yes: true,
  no: false,
};

/** Importance weights: the curator's own, or multiplied by the history score (workload/importance.ts). */
export const IMPORTANCE = ['none', 'history'] as const;
export type ImportanceName = (typeof IMPORTANCE)[number];
