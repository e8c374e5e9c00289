/**
 * The typed-array kernels: the engine's math on Float64Arrays, single-threaded. Measured on this
 * machine (bench/engine.bench.ts) they beat TensorFlow.js' wasm backend by an order of magnitude
 * on the engine's shapes, because they skip the zeros of the sparsemax output and never build
 * one-hot or gathered intermediates.
 */
import { thresholdTerms } from '../../workload/inclusion-exclusion.ts';
import { thresholdSizes } from '../../workload/queries.ts';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { type AdamHyper, AdamState, adamStep } from './adam.ts';
import { backpropProductTable, marginalize, thresholdAnswers } from './product-tables.ts';
import { type LossResult, queryGroupLoss } from './query-gradient.ts';
import { type SparseRows, sparseRows } from './sparse-rows.ts';
import { projectRelaxed } from './sparsemax.ts';
import type { EngineKernels, KernelSession, ProjectionBatch, TableTarget } from './types.ts';

export const typedKernels: EngineKernels = {
  backend: 'cpu',
  open: (shape, initial) => new TypedSession(shape, initial),
};

class TypedSession implements KernelSession {
  readonly backend = 'cpu' as const;
  private readonly values: Float64Array;
  private readonly grad: Float64Array;
  private readonly adam: AdamState;
  /** One-hot columns that received a gradient since the last reset: only they can move. */
  private readonly touched: Uint8Array;
  private sparse: SparseRows | undefined;

  constructor(
    private readonly shape: RelaxedShape,
    initial: Float64Array,
  ) {
    if (initial.length !== shape.rows * shape.layout.width) {
      throw new RangeError(
        `initial D' has ${initial.length} entries, expected ${shape.rows} × ${shape.layout.width}`,
      );
    }
    this.values = Float64Array.from(initial);
    this.grad = new Float64Array(initial.length);
    this.adam = new AdamState(initial.length);
    this.touched = new Uint8Array(shape.layout.width);
  }

  project(): void {
    projectRelaxed(this.values, this.shape, this.touchedBlocks());
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

  lossAndGradient(batch: ProjectionBatch, scale = 1): LossResult {
    const acc: LossResult = { loss: 0, maxError: 0 };
    const { rows } = this.shape;
    for (const group of batch.groups) {
      for (let i = 0; i < group.columns.length; i++) this.touched[group.columns[i]] = 1;
      queryGroupLoss(this.values, rows, group, scale, this.grad, acc);
    }
    if (batch.tables.length > 0) {
      this.sparse ??= sparseRows(this.values, this.shape);
      for (const target of batch.tables) this.tableLoss(this.sparse, target, scale, acc);
    }
    return acc;
  }

  private tableLoss(sp: SparseRows, target: TableTarget, scale: number, acc: LossResult): void {
    const { layout } = this.shape;
    const t = target.threshold;
    for (const f of t.features) this.touched.fill(1, layout.offsets[f], layout.offsets[f] + layout.sizes[f]);
    const answers = thresholdAnswers(sp, layout, t);
    const residual = new Float64Array(answers.length);
    const w = target.weight;
    for (let y = 0; y < answers.length; y++) {
      const diff = answers[y] - target.measured[y];
      acc.loss += w * diff * diff;
      if (Math.abs(diff) > acc.maxError) acc.maxError = Math.abs(diff);
      residual[y] = 2 * w * diff;
    }
    // Σ_y R(y)·answer(y) = Σ_T c_T Σ_{y_T} marginal_T(R)(y_T)·P_T(y_T): each term's cotangent.
    const k = t.features.length;
    const dims = thresholdSizes(t, layout.sizes);
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

  adamStep(hyper: AdamHyper): void {
    adamStep(this.values, this.grad, this.adam, hyper, this.touchedRanges());
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

  /** [start, end) pairs of D' indices (column-major) of the touched columns, merged. */
  private touchedRanges(): number[] {
    const { rows, layout } = this.shape;
    const out: number[] = [];
    for (let c = 0; c < layout.width; c++) {
      if (!this.touched[c]) continue;
      const start = c * rows;
      if (out.length > 0 && out[out.length - 1] === start) out[out.length - 1] = start + rows;
      else out.push(start, start + rows);
    }
    return out;
  }

  /** Features with a touched column; before any gradient (initial projection) all of them. */
  private touchedBlocks(): number[] {
    const { layout } = this.shape;
    const all = layout.sizes.map((_, j) => j);
    if (!this.touched.includes(1)) return all;
    return all.filter((j) =>
      this.touched.subarray(layout.offsets[j], layout.offsets[j] + layout.sizes[j]).includes(1),
    );
  }
}
