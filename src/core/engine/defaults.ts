/**
 * Default options, and the data-independent rule for the number of rounds T and queries per
 * round K. Choosing T and K by their error on the private data would spend privacy, so the rule
 * uses only public quantities: ε, δ, n, the number of thresholds and of queries.
 */
import type { RapOptions } from './types.ts';

export const DEFAULT_ROWS = 1000;
export const DEFAULT_OVERSAMPLE = 5;

export const DEFAULT_TUNING = {
  learningRate: 0.01,
  maxSteps: 500,
  tolerance: 1e-3,
  batchSize: 4096,
} as const;

export interface RoundsRuleInput {
  readonly epsilon: number;
  readonly delta: number;
  /** Records of the private data (public under the replace-one model). */
  readonly n: number;
  readonly thresholds: number;
  /** Total workload queries m. */
  readonly queries: number | bigint;
}

export interface RoundsAndK {
  readonly rounds: number;
  readonly perRound: number;
}

/** PLACEHOLDER: replaced by the rule derived from the ADULT grid. */
export function defaultRoundsAndK(p: RoundsRuleInput): RoundsAndK {
  const m = Number(p.queries);
  const rounds = Math.max(1, Math.min(p.thresholds, 10));
  const perRound = Math.max(1, Math.min(Math.floor(m / rounds), 50));
  return { rounds, perRound };
}

/** Full options from the required ε, δ and any overrides. */
export function defaultOptions(
  overrides: Partial<RapOptions> & Pick<RapOptions, 'epsilon' | 'delta'>,
): RapOptions {
  return {
    rows: DEFAULT_ROWS,
    oversample: DEFAULT_OVERSAMPLE,
    mode: 'query',
    selection: 'oneshot',
    ...DEFAULT_TUNING,
    ...overrides,
  };
}
