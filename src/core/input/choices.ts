/**
 * The engine's named choices users may type (CLI flags, the app's Privacy step), listed once.
 * The engine process's protocol and every parser use these lists.
 */

/**
 * Kernel backends (which implementation of the engine's kernels runs), the default-first order
 * every message lists them in. The engine's types are these names (engine/types.ts re-exports
 * them): input sits below the engine in src/core (test/unit/layering/graph.ts, CORE_ORDER).
 */
export const BACKENDS = ['cpu', 'wasm', 'node', 'node-gpu', 'webgpu'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** Query-level RAP (the papers' mechanism) or table mode (select/measure whole thresholds). */
export const ENGINE_MODES = ['query', 'table'] as const;
export type EngineMode = (typeof ENGINE_MODES)[number];

/**
 * Query-mode selection as users name it: one-shot Gumbel top-K (OSAS, the default) or adaptive
 * peeling (AS), and the engine's names for them. Same privacy cost (docs/privacy.md).
 */
export const SELECTIONS = ['one-shot', 'adaptive'] as const;
export type SelectionName = (typeof SELECTIONS)[number];
/** The engine's names: 'oneshot' = OSAS (default), 'iterative' = AS, for comparison. */
export type EngineSelection = 'oneshot' | 'iterative';
export const ENGINE_SELECTION: Readonly<Record<SelectionName, EngineSelection>> = {
  'one-shot': 'oneshot',
  adaptive: 'iterative',
};

/**
 * How D' is kept on the simplex: 'sparsemax' (RAP, the default) projects D' after every step;
 * 'softmax' (GEM, Liu et al. 2021) lets Adam move free logits and reads D' as their softmax per block.
 */
export const RELAXATIONS = ['sparsemax', 'softmax'] as const;
export type Relaxation = (typeof RELAXATIONS)[number];

/**
 * Whether the first row of a CSV names the columns, as the curator says it (`--header yes|no`,
 * the app's Header row). A release never publishes names it guessed (docs/privacy.md).
 */
export const HEADER_CHOICES = ['yes', 'no'] as const;
export const HEADER_VALUE: Readonly<Record<(typeof HEADER_CHOICES)[number], boolean>> = {
  yes: true,
  no: false,
};

/**
 * What an SPSS or Stata file's value labels are (`--value-labels`; release.ts DataSource.valueLabels):
 * the column's declared categories, or ignored and the column discovered privately.
 */
export const VALUE_LABEL_CHOICES = ['declare', 'discover'] as const;

/** Importance weights: the curator's own, or multiplied by the history score (workload/importance.ts). */
export const IMPORTANCE = ['none', 'history'] as const;
export type ImportanceName = (typeof IMPORTANCE)[number];
