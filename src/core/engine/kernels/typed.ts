/**
 * The typed-array kernels: the engine's math on Float64Arrays, single-threaded. Measured on this
 * machine (bench/engine.bench.ts) they beat TensorFlow.js' wasm backend by an order of magnitude
 * on the engine's shapes, because they skip the zeros of the sparsemax output and never build
 * one-hot or gathered intermediates.
 */

import { layoutFromSizes } from '../../data/onehot.ts';
import { thresholdTerms } from '../../workload/inclusion-exclusion.ts';
import { thresholdSizes } from '../../workload/queries.ts';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { type AdamHyper, AdamState, adamStep } from './adam.ts';
import {
  type CategoryGroups,
  groupBlock,
  groupedDims,
  isGrouped,
  type TableGrouping,
} from './grouped-tables.ts';
import {
  backpropProductTable,
  GroupSums,
  marginalize,
  productTable,
  thresholdAnswers,
} from './product-tables.ts';
import { type LossResult, queryGroupLoss } from './query-gradient.ts';
import type { EngineKernels, KernelSession, ProjectionBatch, Relaxation, TableTarget } from './session.ts';
import { logitsFrom, softmaxGradient, softmaxRelaxed } from './softmax.ts';
import { type SparseBlock, type SparseRows, sparseRows } from './sparse-rows.ts';
import { projectRelaxed } from './sparsemax.ts';
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
  /** Grouped blocks of the current sparse rows (see groupedBlock). */
  private groupedOf: SparseRows | undefined;
  private readonly groupedBlocks = new Map<CategoryGroups, SparseBlock>();
  private readonly groupSums: GroupSums<CategoryGroups>;
  /** Softmax relaxation only: the free logits θ that Adam moves; D' = softmax(θ) per block. */
  private readonly logits: Float64Array | undefined;

  constructor(
    private readonly shape: RelaxedShape,
    initial: Float64Array,
    relaxation: Relaxation,
  ) {
    if (initial.length !== shape.rows * shape.layout.width) {
      throw new RangeError(
        `initial D' has ${initial.length} entries, expected ${shape.rows} × ${shape.layout.width}`,
      );
    }
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
      const sums = this.groupSums.forPass(
        batch.tables.flatMap((t) =>
          isGrouped(t.grouping) ? [{ features: t.threshold.features, groups: t.grouping }] : [],
        ),
      );
      for (const target of batch.tables) this.tableLoss(this.sparse, target, scale, acc, sums);
      this.groupSums.handOver(sums, this.grad, this.shape.layout, 0, rows);
    }
    return acc;
  }

  private tableLoss(
    sp: SparseRows,
    target: TableTarget,
    scale: number,
    acc: LossResult,
    sums: PassSums,
  ): void {
    const { layout } = this.shape;
    const t = target.threshold;
    for (const f of t.features) this.touched.fill(1, layout.offsets[f], layout.offsets[f] + layout.sizes[f]);
    if (isGrouped(target.grouping)) {
      this.groupedTableLoss(sp, target, target.grouping, scale, acc, sums);
      return;
    }
    const k = t.features.length;
    const dims = thresholdSizes(t, layout.sizes);
    const residual = tableResidual(thresholdAnswers(sp, layout, t), target, acc);
    // Σ_y R(y)·answer(y) = Σ_T c_T Σ_{y_T} marginal_T(R)(y_T)·P_T(y_T): each term's cotangent.
    for (const term of thresholdTerms(k, t.r)) {
      const G = term.subset.length === k ? residual : marginalize(residual, dims, term.subset);
      backpropProductTable(
        sp,
        layout,
        term.subset.map((p) => t.features[p]),
        term.subset.map((p) => dims[p]),
        G,
        (term.coefficient * scale) / sp.rows,
        this.grad,
      );
    }
  }

  /**
   * A grouped marginal, computed on the grouped blocks (a row's share of each group): its table
   * and back-propagation cost the groups' cells, not the categories'. The groups' gradient is
   * then every category's in the group (∂ group / ∂ category = 1).
   */
  private groupedTableLoss(
    sp: SparseRows,
    target: TableTarget,
    grouping: TableGrouping,
    scale: number,
    acc: LossResult,
    sums: PassSums,
  ): void {
    const t = target.threshold;
    if (t.r !== t.features.length) throw new RangeError('a grouped table target must be a marginal (r = k)');
    const { rows, layout } = this.shape;
    const dims = groupedDims(thresholdSizes(t, layout.sizes), grouping);
    const local: SparseRows = {
      rows,
      blocks: t.features.map((f, j) => {
        const g = grouping[j];
        return g ? this.groupedBlock(sp, f, g) : sp.blocks[f];
      }),
      simplexDeviation: sp.simplexDeviation,
    };
    const axes = dims.map((_, j) => j);
    const residual = tableResidual(productTable(local, axes, dims), target, acc);
    const into = {
      layout,
      features: t.features,
      groups: grouping.map((g) => g?.of),
      sums: t.features.map((f, j) => (grouping[j] ? sums.get(f)?.sums : undefined)),
    };
    backpropProductTable(
      local,
      layoutFromSizes(dims),
      axes,
      dims,
      residual,
      scale / rows,
      this.grad,
      0,
      rows,
      into,
    );
  }

  /** A feature's block summed into groups, kept until D' changes. */
  private groupedBlock(sp: SparseRows, feature: number, groups: CategoryGroups): SparseBlock {
    if (this.groupedOf !== sp) {
      this.groupedOf = sp;
      this.groupedBlocks.clear();
    }
    let block = this.groupedBlocks.get(groups);
    if (!block) this.groupedBlocks.set(groups, (block = groupBlock(sp.blocks[feature], groups, sp.rows)));
    return block;
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

/** One pass's group sums by feature (GroupSums.forPass). */
type PassSums = ReadonlyMap<number, { readonly groups: CategoryGroups; readonly sums: Float64Array }>;

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
