/**
 * The engine's math behind one small interface, so that the same RAP loop runs on hand-written
 * typed-array code (CPU) or on TensorFlow.js tensors (GPU, native, wasm).
 *
 * A session owns one relaxed dataset D' (column-major, see relaxed.ts) and its optimizer state.
 * Contract: thresholdAnswers is asked only on a projected D' (after project()); lossAndGradient
 * computes the gradient at the current D' and keeps it for the next adamStep.
 */
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import type { BackendName, Relaxation } from '../types.ts';

export type { Relaxation };

import type { AdamHyper } from './adam.ts';
import { isGrouped, type TableGrouping } from './grouped-tables.ts';
import type { LossResult, QueryGroup } from './query-gradient.ts';

export type { AdamHyper, LossResult, QueryGroup };

declare const marginal: unique symbol;

/** A threshold with r = k: its answers are its features' table itself (a marginal). */
export type Marginal = Threshold & { readonly [marginal]: true };

/** The threshold as a Marginal; refuses r < k. */
export function asMarginal(t: Threshold): Marginal {
  if (t.r !== t.features.length)
    throw new RangeError(`a marginal has r = k; this threshold is ${t.r} of ${t.features.length}`);
  return t as Marginal;
}

/** A whole threshold table as the projection target (all-at-once query mode and table mode). */
export type TableTarget = ThresholdTableTarget | GroupedTableTarget;

interface TargetValues {
  /** Normalized importance weight. */
  readonly weight: number;
  /**
   * Measured answers of every query of the threshold, row-major over its features — over their
   * groups' cells when the target is grouped.
   */
  readonly measured: Float64Array;
}

/** Every query of a threshold (any r of k). */
export interface ThresholdTableTarget extends TargetValues {
  readonly threshold: Threshold;
  readonly grouping?: undefined;
}

/**
 * A grouped marginal (table mode): categories merged per feature, the fitted answers the
 * marginal's table summed into the groups' cells. Only a marginal can be grouped: the type says
 * so, and {@link tableTarget} checks it where a target is made.
 */
export interface GroupedTableTarget extends TargetValues {
  readonly threshold: Marginal;
  readonly grouping: TableGrouping;
}

/** A target, grouped when the grouping merges anything (then the threshold must be a marginal). */
export function tableTarget(
  threshold: Threshold,
  weight: number,
  measured: Float64Array,
  grouping?: TableGrouping,
): TableTarget {
  return isGrouped(grouping)
    ? { threshold: asMarginal(threshold), weight, measured, grouping }
    : { threshold, weight, measured };
}

/** What one optimizer step fits: selected queries (grouped by k, r) and whole tables. */
export interface ProjectionBatch {
  readonly groups: readonly QueryGroup[];
  readonly tables: readonly TableTarget[];
}

export interface KernelSession {
  readonly backend: BackendName;
  /** Sparsemax of every feature block of every row (softmax relaxation: D' = softmax of the logits). */
  project(): void;
  /** A column-major copy of D'. */
  read(): Float64Array;
  /** A column-major copy of the gradient kept for the next step (tests, diagnostics). */
  readGradient(): Float64Array;
  /** Surrogate answers of all queries of a threshold, row-major over its features (D' projected). */
  thresholdAnswers(t: Threshold): Float64Array;
  /** thresholdAnswers of each threshold, computed together (the CPU threads share them out). */
  answersOf(thresholds: readonly Threshold[]): Float64Array[];
  /** Σ w (q̂ − ã)² over the batch (and max |q̂ − ã|); keeps scale · gradient for adamStep. */
  lossAndGradient(batch: ProjectionBatch, scale?: number): LossResult;
  /** One Adam step with the kept gradient, then forgets it. Does not project. */
  adamStep(hyper: AdamHyper): void;
  /** Fresh Adam moments (start of a round). */
  resetOptimizer(): void;
  /** Frees memory (tensors); the session is unusable afterwards. */
  dispose(): void;
}

/** Refuses a starting D' of the wrong size (every session's constructor checks it first). */
export function assertInitial(shape: RelaxedShape, initial: Float64Array): void {
  if (initial.length !== shape.rows * shape.layout.width)
    throw new RangeError(
      `initial D' has ${initial.length} entries, expected ${shape.rows} × ${shape.layout.width}`,
    );
}

export interface EngineKernels {
  readonly backend: BackendName;
  /** One line for the report: what runs and why (threads, why the GPU was not used). */
  readonly note?: string;
  /**
   * A session on D' = initial (column-major, not yet projected); with softmax the logits start
   * at softmax.ts' logitsFrom(initial). Default relaxation: sparsemax.
   */
  open(shape: RelaxedShape, initial: Float64Array, relaxation?: Relaxation): KernelSession;
}
