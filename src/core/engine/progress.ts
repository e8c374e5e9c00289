/**
 * One progress sample of a run, as the engine reports it and the app shows it (the renderer's
 * API re-exports this type). Every field is public: losses and errors are on noisy answers.
 */
export interface ProgressEvent {
  readonly round: number;
  readonly rounds: number;
  readonly step: number;
  readonly loss: number;
  /** Max |measured − relaxed| over the selected queries (noisy answers: safe to show). */
  readonly maxSelectedError: number;
  readonly elapsedSeconds: number;
  readonly etaSeconds: number;
  /** Table mode: the thresholds whose features contain this round's measured table, by workload index. */
  readonly selectedThresholds?: readonly number[];
  /** Table mode: the Gaussian σ this round's table was measured with (public). */
  readonly sigma?: number;
}
