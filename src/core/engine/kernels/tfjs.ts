/**
 * The engine's kernels on TensorFlow.js tensors, for tfjs-node-gpu (CUDA), tfjs-node and the
 * wasm backend. D' is one (d' × n') float32 tensor (column-major, as in relaxed.ts), so a feature
 * block is a plain row slice and every contraction over the n' rows is a plain matMul of a block
 * (s₁ × n') by a row-wise outer product of the other blocks laid out (n' × Π s) — never a
 * transposed matMul, which the wasm backend runs ~10× slower. Every op runs inside tf.tidy or
 * disposes its tensors explicitly; the session owns exactly D', Adam's m and v, and the gradient.
 *
 * Gradients come from tf.valueAndGrad of the same product-form polynomial as the typed kernels
 * and the reference surrogate, so all three agree (to float32 precision).
 */
import type * as TF from '@tensorflow/tfjs';
import { atLeastRMatches } from '../../workload/at-least-r.ts';
import { thresholdTerms } from '../../workload/inclusion-exclusion.ts';
import { tableSize, thresholdSizes } from '../../workload/queries.ts';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import type { BackendName } from '../types.ts';
import type { AdamHyper } from './adam.ts';
import type { CategoryGroups } from './grouped-tables.ts';
import {
  assertInitial,
  type EngineKernels,
  type KernelSession,
  type LossResult,
  type ProjectionBatch,
  type QueryGroup,
  type Relaxation,
  type TableTarget,
} from './session.ts';
import { logitsFrom } from './softmax.ts';

type Tf = typeof TF;
type Tensor = TF.Tensor;
type Tensor2D = TF.Tensor2D;

/** Largest row-wise outer product (n' × Π s) built at once; bigger ones are split by categories. */
const MAX_OUTER_ELEMENTS = 2 ** 25;

export function createTfjsKernels(tf: Tf, backend: Exclude<BackendName, 'cpu'>): EngineKernels {
  return {
    backend,
    open: (shape, initial, relaxation = 'sparsemax') =>
      new TfjsSession(tf, backend, shape, initial, relaxation),
  };
}

/**
 * A session whose every read is asynchronous (`await tensor.data()`): for backends that cannot
 * read synchronously, like WebGPU in Node (gpu-worker.ts runs it behind the synchronous interface).
 */
export interface AsyncTfjsSession {
  project(): void;
  read(): Promise<Float64Array>;
  readGradient(): Promise<Float64Array>;
  thresholdAnswers(t: Threshold): Promise<Float64Array>;
  lossAndGradient(batch: ProjectionBatch, scale?: number): Promise<LossResult>;
  adamStep(hyper: AdamHyper): void;
  resetOptimizer(): void;
  dispose(): void;
}

export function openAsyncTfjsSession(
  tf: Tf,
  backend: Exclude<BackendName, 'cpu'>,
  shape: RelaxedShape,
  initial: Float64Array,
): AsyncTfjsSession {
  // The webgpu worker's session: sparsemax only (the engine skips webgpu for softmax).
  const s = new TfjsSession(tf, backend, shape, initial, 'sparsemax');
  const values = async (t: Tensor) => Float64Array.from((await t.data()) as Float32Array);
  return {
    project: () => s.project(),
    read: () => values(s.current.x),
    readGradient: () => values(s.current.grad),
    thresholdAnswers: async (t) => {
      const table = s.thresholdTable(t);
      try {
        return s.answersFromTable(t, await values(table));
      } finally {
        table.dispose();
      }
    },
    lossAndGradient: async (batch, scale = 1) => {
      const { value, maxErrors } = s.lossTensors(batch, scale);
      try {
        return lossResult(await values(value), await Promise.all(maxErrors.map(values)));
      } finally {
        value.dispose();
        for (const t of maxErrors) t.dispose();
      }
    },
    adamStep: (hyper) => s.adamStep(hyper),
    resetOptimizer: () => s.resetOptimizer(),
    dispose: () => s.dispose(),
  };
}

function lossResult(value: Float64Array, maxErrors: readonly Float64Array[]): LossResult {
  let maxError = 0;
  for (const m of maxErrors) maxError = Math.max(maxError, m[0]);
  return { loss: value[0], maxError };
}

class TfjsSession implements KernelSession {
  private x: Tensor2D;
  private m: Tensor2D;
  private v: Tensor2D;
  private grad: Tensor2D;
  /** Softmax relaxation only: the logits θ Adam moves (D' = softmax(θ) per block), else null. */
  private theta: Tensor2D | null = null;
  private t = 0;

  constructor(
    private readonly tf: Tf,
    readonly backend: Exclude<BackendName, 'cpu'>,
    private readonly shape: RelaxedShape,
    initial: Float64Array,
    relaxation: Relaxation,
  ) {
    assertInitial(shape, initial);
    const { rows, layout } = shape;
    this.x = tf.tensor2d(Float32Array.from(initial), [layout.width, rows]);
    this.m = tf.zeros([layout.width, rows]);
    this.v = tf.zeros([layout.width, rows]);
    this.grad = tf.zeros([layout.width, rows]);
    if (relaxation === 'softmax')
      this.theta = tf.tensor2d(Float32Array.from(logitsFrom(initial)), [layout.width, rows]);
  }

  private replace(field: 'x' | 'm' | 'v' | 'grad' | 'theta', next: Tensor2D): void {
    this[field]?.dispose();
    this[field] = next;
  }

  /** Every feature block of a (d' × n') tensor through f (rows of the transposed block), re-joined. */
  private perBlock(x: Tensor2D, f: (rows: Tensor2D, size: number) => Tensor): Tensor2D {
    const tf = this.tf;
    const blocks = this.shape.layout.sizes.map(
      (size, j) => tf.transpose(f(tf.transpose(this.block(x, j)) as Tensor2D, size)) as Tensor2D,
    );
    return blocks.length === 1 ? blocks[0] : (tf.concat(blocks, 0) as Tensor2D);
  }

  private block(x: Tensor2D, feature: number): Tensor2D {
    const { layout, rows } = this.shape;
    return this.tf.slice(x, [layout.offsets[feature], 0], [layout.sizes[feature], rows]);
  }

  project(): void {
    const tf = this.tf;
    const theta = this.theta;
    if (theta) {
      this.replace(
        'x',
        tf.tidy(() => this.perBlock(theta, (z) => tf.softmax(z))),
      );
      return;
    }
    const next = tf.tidy(() => {
      const blocks = this.shape.layout.sizes.map((size, j) =>
        size === 1
          ? tf.onesLike(this.block(this.x, j))
          : (tf.transpose(sparsemaxRows(tf, tf.transpose(this.block(this.x, j)))) as Tensor2D),
      );
      return blocks.length === 1 ? blocks[0] : (tf.concat(blocks, 0) as Tensor2D);
    });
    this.replace('x', next);
  }

  /** D' and the kept gradient as tensors (owned by the session). */
  get current(): { readonly x: Tensor2D; readonly grad: Tensor2D } {
    return { x: this.x, grad: this.grad };
  }

  read(): Float64Array {
    return Float64Array.from(this.x.dataSync());
  }

  readGradient(): Float64Array {
    return Float64Array.from(this.grad.dataSync());
  }

  /**
   * D' is projected here, so the answers are a linear function of the one k-way table P_S: one
   * matMul per threshold, then the match-count recursion on the CPU (product-tables.ts).
   */
  thresholdAnswers(t: Threshold): Float64Array {
    return this.answersFromTable(t, toFloat64(this.thresholdTable(t)));
  }

  answersOf(thresholds: readonly Threshold[]): Float64Array[] {
    return thresholds.map((t) => this.thresholdAnswers(t));
  }

  /** The threshold's k-way table P_S (a new tensor, the caller disposes it). */
  thresholdTable(t: Threshold): Tensor {
    return this.productTensor(this.x, t.features);
  }

  /** The threshold's answers from its k-way table's values. */
  answersFromTable(t: Threshold, full: Float64Array): Float64Array {
    const dims = thresholdSizes(t, this.shape.layout.sizes);
    return t.r === dims.length ? full : atLeastRMatches(full, dims, t.r);
  }

  /** (1/n') Σ_rows ⊗_f block_f(row) as a flat tensor, row-major over the features. */
  private productTensor(x: Tensor2D, features: readonly number[]): Tensor {
    const tf = this.tf;
    const { rows, layout } = this.shape;
    return tf.tidy(() => {
      const left = this.block(x, features[0]);
      if (features.length === 1) return tf.div(tf.sum(left, 1), rows);
      const rest = features.slice(1);
      const restSize = tableSize(rest.map((f) => layout.sizes[f]));
      const chunk = Math.max(1, Math.floor(MAX_OUTER_ELEMENTS / (rows * (restSize / layout.sizes[rest[0]]))));
      const pieces: Tensor[] = [];
      for (let v0 = 0; v0 < layout.sizes[rest[0]]; v0 += chunk) {
        const count = Math.min(chunk, layout.sizes[rest[0]] - v0);
        const first = tf.slice(x, [layout.offsets[rest[0]] + v0, 0], [count, rows]);
        const outer = this.rowOuter([first, ...rest.slice(1).map((f) => this.block(x, f))]);
        // (s₁ × n') · (n' × chunk·Π) : a plain product.
        pieces.push(tf.matMul(left, outer));
      }
      const table = pieces.length === 1 ? pieces[0] : tf.concat(pieces, 1);
      return tf.div(tf.reshape(table, [-1]), rows);
    });
  }

  /** Row-wise outer product of blocks (each s_j × n') as (n' × Π s_j), last block fastest. */
  private rowOuter(blocks: readonly Tensor2D[]): Tensor2D {
    const tf = this.tf;
    const rows = this.shape.rows;
    let acc = tf.transpose(blocks[0]) as Tensor2D;
    for (const b of blocks.slice(1)) {
      const bt = tf.transpose(b) as Tensor2D;
      acc = tf.reshape(tf.mul(tf.expandDims(acc, 2), tf.expandDims(bt, 1)), [rows, -1]) as Tensor2D;
    }
    return acc;
  }

  lossAndGradient(batch: ProjectionBatch, scale = 1): LossResult {
    const { value, maxErrors } = this.lossTensors(batch, scale);
    return lossResult(toFloat64(value), maxErrors.map(toFloat64));
  }

  /** Adds scale · the gradient to the kept one; the loss and the max errors as tensors (caller disposes). */
  lossTensors(batch: ProjectionBatch, scale: number): { value: Tensor; maxErrors: Tensor[] } {
    const tf = this.tf;
    const maxErrors: Tensor[] = [];
    const f = (x: Tensor): TF.Scalar => {
      const x2 = x as Tensor2D;
      let loss: Tensor = tf.scalar(0);
      for (const g of batch.groups) {
        const diff = tf.sub(this.groupAnswers(x2, g), tf.tensor1d(Float32Array.from(g.targets)));
        maxErrors.push(tf.keep(tf.max(tf.abs(diff))));
        loss = tf.add(loss, tf.sum(tf.mul(tf.tensor1d(Float32Array.from(g.weights)), tf.square(diff))));
      }
      for (const target of batch.tables) {
        const diff = tf.sub(this.tableAnswers(x2, target), tf.tensor1d(Float32Array.from(target.measured)));
        maxErrors.push(tf.keep(tf.max(tf.abs(diff))));
        loss = tf.add(loss, tf.mul(target.weight, tf.sum(tf.square(diff))));
      }
      return loss as TF.Scalar;
    };
    const { value, grad } = tf.valueAndGrad(f)(this.x);
    const next = tf.tidy(() => tf.add(this.grad, tf.mul(grad, scale)) as Tensor2D);
    grad.dispose();
    this.replace('grad', next);
    return { value, maxErrors };
  }

  /** Selected queries: gather their columns, then the Poisson-binomial tail per row. */
  private groupAnswers(x: Tensor2D, g: QueryGroup): Tensor {
    const tf = this.tf;
    const rows = this.shape.rows;
    const gathered = tf.reshape(gatherRows(tf, x, tf.tensor1d(g.columns, 'int32')), [g.count, g.k, rows]);
    const p = tf.unstack(gathered, 1);
    let perRow: Tensor;
    if (g.r === g.k) {
      perRow = p.reduce((a, b) => tf.mul(a, b));
    } else {
      // dist[c] = P(c successes so far); the tail P(≥ r) is what the query counts.
      let dist: Tensor[] = [tf.onesLike(p[0])];
      for (const pj of p) {
        const qj = tf.sub(1, pj);
        const next: Tensor[] = [];
        for (let c = 0; c <= dist.length; c++) {
          const stay = c < dist.length ? tf.mul(dist[c], qj) : undefined;
          const up = c > 0 ? tf.mul(dist[c - 1], pj) : undefined;
          next.push(stay && up ? tf.add(stay, up) : (stay ?? up)!);
        }
        dist = next;
      }
      perRow = tf.addN(dist.slice(g.r));
    }
    return tf.mean(perRow, 1);
  }

  /** A whole threshold: Σ_T c_T P_T broadcast over S, each P_T its own product (no simplex use). */
  private tableAnswers(x: Tensor2D, target: TableTarget): Tensor {
    const tf = this.tf;
    const t = target.threshold;
    const dims = thresholdSizes(t, this.shape.layout.sizes);
    const k = dims.length;
    let sum: Tensor = tf.zeros(dims);
    for (const term of thresholdTerms(k, t.r)) {
      const shape = dims.map((d, p) => (term.subset.includes(p) ? d : 1));
      const table = tf.reshape(
        this.productTensor(
          x,
          term.subset.map((p) => t.features[p]),
        ),
        shape,
      );
      sum = tf.add(sum, tf.mul(table, term.coefficient));
    }
    // A grouped target is a marginal by its type (session.ts, tableTarget).
    if (target.grouping) {
      target.grouping.forEach((g, j) => {
        if (g) sum = this.groupAxis(sum, j, g);
      });
    }
    return tf.reshape(sum, [-1]);
  }

  /** Sums the table's axis j into its groups: a matMul by the 0/1 (categories × groups) matrix. */
  private groupAxis(table: Tensor, j: number, groups: CategoryGroups): Tensor {
    const tf = this.tf;
    const dims = table.shape;
    const before = tableSize(dims.slice(0, j));
    const after = tableSize(dims.slice(j + 1));
    const indicator = new Float32Array(dims[j] * groups.count);
    groups.of.forEach((g, v) => {
      indicator[v * groups.count + g] = 1;
    });
    const moved = tf.reshape(tf.transpose(tf.reshape(table, [before, dims[j], after]), [0, 2, 1]), [
      -1,
      dims[j],
    ]);
    const grouped = tf.matMul(moved as Tensor2D, tf.tensor2d(indicator, [dims[j], groups.count]));
    const back = tf.transpose(tf.reshape(grouped, [before, after, groups.count]), [0, 2, 1]);
    return tf.reshape(back, [...dims.slice(0, j), groups.count, ...dims.slice(j + 1)]);
  }

  adamStep(hyper: AdamHyper): void {
    const tf = this.tf;
    this.t++;
    const { beta1, beta2, epsilon, learningRate } = hyper;
    const c1 = 1 - beta1 ** this.t;
    const c2 = 1 - beta2 ** this.t;
    const theta = this.theta;
    const [m, v, x] = tf.tidy(() => {
      // Softmax: ∂L/∂θ = p ⊙ (g − ⟨p, g⟩) per row of each block (softmax.ts).
      const g = theta
        ? this.tf.sub(
            tf.mul(this.x, this.grad),
            tf.mul(
              this.x,
              this.perBlock(tf.mul(this.x, this.grad) as Tensor2D, (r) =>
                tf.broadcastTo(tf.sum(r, 1, true), r.shape),
              ),
            ),
          )
        : this.grad;
      const m = tf.add(tf.mul(this.m, beta1), tf.mul(g, 1 - beta1)) as Tensor2D;
      const v = tf.add(tf.mul(this.v, beta2), tf.mul(tf.square(g), 1 - beta2)) as Tensor2D;
      const step = tf.div(tf.mul(m, learningRate / c1), tf.add(tf.div(tf.sqrt(v), Math.sqrt(c2)), epsilon));
      return [m, v, tf.sub(theta ?? this.x, step) as Tensor2D];
    });
    this.replace('m', m);
    this.replace('v', v);
    this.replace(theta ? 'theta' : 'x', x);
    this.replace('grad', tf.zerosLike(this.grad));
  }

  resetOptimizer(): void {
    const tf = this.tf;
    this.t = 0;
    this.replace('m', tf.zerosLike(this.m));
    this.replace('v', tf.zerosLike(this.v));
    this.replace('grad', tf.zerosLike(this.grad));
  }

  dispose(): void {
    for (const t of [this.x, this.m, this.v, this.grad, this.theta]) t?.dispose();
  }
}

/**
 * x[indices] (rows) with the gradient scattered back by scatterND, which sums duplicates: tf's
 * own gather gradient needs UnsortedSegmentSum, which the wasm backend lacks.
 */
function gatherRows(tf: Tf, x: Tensor2D, indices: TF.Tensor1D): Tensor2D {
  const op = tf.customGrad((...args: (Tensor | TF.GradSaveFunc)[]) => {
    const xs = args[0] as Tensor;
    const save = args[1] as TF.GradSaveFunc;
    save([indices]);
    return {
      value: tf.gather(xs, indices),
      gradFunc: (dy: Tensor, saved: Tensor[]) => tf.scatterND(tf.expandDims(saved[0], 1), dy, xs.shape),
    };
  });
  return op(x) as Tensor2D;
}

/** Sparsemax of every row of z (n × s) by the sort formula (Martins & Astudillo 2016). */
function sparsemaxRows(tf: Tf, z: Tensor): Tensor {
  const s = z.shape[1]!;
  const sorted = tf.topk(z, s, true).values;
  const cumulative = tf.cumsum(sorted, 1);
  const ks = tf.range(1, s + 1);
  // Support size: the largest k with 1 + k·z₍k₎ > Σ_{i≤k} z₍i₎ (the condition is monotone in k).
  const support = tf.sum(tf.cast(tf.greater(tf.add(1, tf.mul(ks, sorted)), cumulative), 'float32'), 1, true);
  const atSupport = tf.sum(tf.mul(cumulative, tf.cast(tf.equal(ks, support), 'float32')), 1, true);
  const tau = tf.div(tf.sub(atSupport, 1), support);
  return tf.relu(tf.sub(z, tau));
}

/** The values of a tensor as float64, disposing the tensor. */
function toFloat64(t: Tensor): Float64Array {
  try {
    return Float64Array.from(t.dataSync() as Float32Array);
  } finally {
    t.dispose();
  }
}
