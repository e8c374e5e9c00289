/**
 * Constants every process shares (main, preload, services, renderer), defined once. Plain
 * values only: the sandboxed preload and the browser renderer import this file too.
 */

/** A run's life: reserving → loading → running → finished | failed | cancelled; finished → exported. */
// biome-ignore format: one line reads as the order
export const RUN_STATUSES = ['reserving', 'loading', 'running', 'finished', 'failed', 'cancelled', 'exported'] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses of a run still under way (closing the app asks first; a second run is refused). */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['reserving', 'loading', 'running'];

export function isActiveStatus(status: RunStatus): boolean {
  return ACTIVE_RUN_STATUSES.includes(status);
}

/**
 * A run that produced its synthetic table, exported or not: the Results and Export steps show it
 * and the Run step offers the way on. One predicate so the steps never disagree on "done".
 */
export function hasResults(status: RunStatus): boolean {
  return status === 'finished' || status === 'exported';
}

/** Electron IPC channels between the preload bridge and the main process. */
export const IPC_CHANNELS = {
  /** renderer → main: one API call (method, argument) answered with { ok, result | error }. */
  invoke: 'rap:invoke',
  /** main → renderer: pushed AppEvents. */
  event: 'rap:event',
} as const;
