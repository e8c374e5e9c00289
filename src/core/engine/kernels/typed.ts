/**
 * The typed-array kernels: the engine's math on Float64Arrays, single-threaded. Measured on this
 * machine (bench/engine.bench.ts) they beat TensorFlow.js' wasm backend by an order of magnitude
 * on the engine's shapes, because they skip the zeros of the sparsemax output and never build
 * one-hot or gathered intermediates.
 */

import type { CategoryGroups } from '../../workload/table.ts';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { type AdamHyper, AdamState, adamStep } from './adam.ts';
import { GroupSums } from './group-sums.ts';
import { type LossResult, queryGroupLoss } from './query-gradient.ts';
import {
  assertInitial,
  type EngineKernels,
  type KernelSession,
  type ProjectionBatch,
  type Relaxation,
  type TableTarget,
} from './session.ts';
import { logitsFrom, softmaxGradient, softmaxRelaxed } from './softmax.ts';
import { type SparseRows, sparseRows } from './sparse-rows.ts';
import { projectRelaxed } from './sparsemax.ts';
import {
  backpropGrouped,
  backpropTerms,
  backwardPlan,
  GroupedBlocks,
  passAnswers,
  passTables,
  touchTables,
} from './table-pass.ts';
import { thresholdAnswers } from './threshold-answers.ts';
import { touchedBlocks, touchedRanges } from './touched-columns.ts';

export const typedKernels: EngineKernels = {
  backend: 'cpu',
  open: (shape, initial, relaxation = 'sparsemax') => new TypedSession(shape, initial, relaxation),
};

class TypedSession implements KernelSession {
  readonly backend = 'cpu' as const;
  private readonly values: Float64Array;
  private readonly grad: Float64Array;
  private readonly adam: AdamState;
  /** One-hot columns that received a gradient since the last reset: only they can move. */
  private readonly touched: Uint8Array;
  private sparse: SparseRows | undefined;
  /** Grouped marginals' blocks of the current sparse rows. */
  private readonly grouped = new GroupedBlocks<CategoryGroups>();
  private readonly groupSums: GroupSums<CategoryGroups>;
  /** Softmax relaxation only: the free logits θ that Adam moves; D' = softmax(θ) per block. */
  private readonly logits: Float64Array | undefined;

  constructor(
    private readonly shape: RelaxedShape,
    initial: Float64Array,
    relaxation: Relaxation,
  ) {
    assertInitial(shape, initial);
    this.values = Float64Array.from(initial);
    this.grad = new Float64Array(initial.length);
    this.adam = new AdamState(initial.length);
    this.groupSums = new GroupSums(shape.rows);
    this.touched = new Uint8Array(shape.layout.width);
    this.logits = relaxation === 'softmax' ? logitsFrom(initial) : undefined;
  }

  project(): void {
    const blocks = touchedBlocks(this.touched, this.shape);
    if (this.logits) softmaxRelaxed(this.logits, this.values, this.shape, blocks);
    else projectRelaxed(this.values, this.shape, blocks);
    this.sparse = undefined;
  }

  read(): Float64Array {
    return Float64Array.from(this.values);
  }

  readGradient(): Float64Array {
    return Float64Array.from(this.grad);
  }

  thresholdAnswers(t: Threshold): Float64Array {
    this.sparse ??= sparseRows(this.values, this.shape);
    return thresholdAnswers(this.sparse, this.shape.layout, t);
  }

  answersOf(thresholds: readonly Threshold[]): Float64Array[] {
    return thresholds.map((t) => this.thresholdAnswers(t));
  }

  lossAndGradient(batch: ProjectionBatch, scale = 1): LossResult {
    const acc: LossResult = { loss: 0, maxError: 0 };
    const { rows } = this.shape;
    for (const group of batch.groups) {
      for (let i = 0; i < group.columns.length; i++) this.touched[group.columns[i]] = 1;
      queryGroupLoss(this.values, rows, group, scale, this.grad, acc);
    }
    if (batch.tables.length > 0) {
      this.sparse ??= sparseRows(this.values, this.shape);
      const sp = this.sparse;
      const { layout } = this.shape;
      touchTables(this.touched, layout, batch.tables);
      const sums = this.groupSums.forPass(
        batch.tables.flatMap((t) =>
          t.grouping ? [{ features: t.threshold.features, groups: t.grouping }] : [],
        ),
      );
      // Table by table: its answers, its residual (the loss in table order), its gradient.
      for (const table of passTables(batch.tables, layout)) {
        const t = table.target.threshold;
        const grouped = table.grouped ? this.grouped.rows(sp, t.features, table.target.grouping) : undefined;
        const residual = tableResidual(passAnswers(sp, layout, t, table.dims, grouped), table.target, acc);
        const plan = backwardPlan(table, residual, scale, rows);
        if (!plan.grouped) backpropTerms(sp, layout, plan.terms, this.grad, 0, rows);
        else if (grouped) {
          const groupOf = plan.target.grouping.map((g) => g?.of);
          backpropGrouped(grouped, layout, t.features, groupOf, plan.cotangent, this.grad, 0, rows, sums);
        }
      }
      this.groupSums.handOver(sums, this.grad, layout, 0, rows);
    }
    return acc;
  }

  adamStep(hyper: AdamHyper): void {
    if (this.logits) {
      // Through the softmax every category of a touched block gets a gradient.
      const blocks = touchedBlocks(this.touched, this.shape);
      const { offsets, sizes } = this.shape.layout;
      for (const j of blocks) this.touched.fill(1, offsets[j], offsets[j] + sizes[j]);
      softmaxGradient(this.values, this.grad, this.shape, blocks);
      adamStep(this.logits, this.grad, this.adam, hyper, touchedRanges(this.touched, this.shape));
    } else {
      adamStep(this.values, this.grad, this.adam, hyper, touchedRanges(this.touched, this.shape));
    }
    this.sparse = undefined;
  }

  resetOptimizer(): void {
    this.adam.reset();
    this.grad.fill(0);
    this.touched.fill(0);
  }

  dispose(): void {
    this.sparse = undefined;
  }
}

/** 2w·(answer − measured) per cell; adds the weighted squared error to the loss. */
export function tableResidual(answers: Float64Array, target: TableTarget, acc: LossResult): Float64Array {
  const w = target.weight;
  const residual = new Float64Array(answers.length);
  for (let y = 0; y < answers.length; y++) {
    const diff = answers[y] - target.measured[y];
    acc.loss += w * diff * diff;
    if (Math.abs(diff) > acc.maxError) acc.maxError = Math.abs(diff);
    residual[y] = 2 * w * diff;
  }
  return residual;
}
