/**
 * GEM's softmax relaxation (Liu, Vietri, Steinke, Ullman & Wu 2021, "Iterative Methods for
 * Private Synthetic Data", RAP^softmax / GEM's fixed generator): instead of projecting D' onto
 * the simplex after every step (sparsemax.ts), D' is a function of free logits θ,
 *
 *   p_{i,v} = exp(θ_{i,v}) / Σ_u exp(θ_{i,u})     over the categories u of each feature block,
 *
 * and the optimizer moves θ. Every row of every block is then strictly inside the simplex (no
 * exact zeros, unlike sparsemax), and the gradient reaches θ through the softmax Jacobian
 *
 *   ∂L/∂θ_{i,v} = p_{i,v} · (g_{i,v} − Σ_u p_{i,u} g_{i,u}),   g = ∂L/∂p,
 *
 * (J = diag(p) − p pᵀ is symmetric). Same column-major layout and block interface as
 * sparsemax.ts; typed arrays only. The max of each row is subtracted before exp, so large logits
 * never overflow.
 */
import type { RelaxedShape } from '../relaxed.ts';

/** Softmax of a plain vector (tests, small blocks). */
export function softmax(z: ArrayLike<number>): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (let v = 0; v < z.length; v++) if (z[v] > max) max = z[v];
  const out = Float64Array.from(z, (x) => Math.exp(x - max));
  let sum = 0;
  for (let v = 0; v < out.length; v++) sum += out[v];
  for (let v = 0; v < out.length; v++) out[v] /= sum;
  return out;
}

/** ∂L/∂z from g = ∂L/∂p at p = softmax(z), for a plain vector (tests). */
export function softmaxBackward(p: ArrayLike<number>, g: ArrayLike<number>): Float64Array {
  let dot = 0;
  for (let v = 0; v < p.length; v++) dot += p[v] * g[v];
  return Float64Array.from(p, (pv, v) => pv * (g[v] - dot));
}

function allBlocks(shape: RelaxedShape): number[] {
  return shape.layout.sizes.map((_, j) => j);
}

/**
 * values ← softmax(logits) on every row of the listed feature blocks of a column-major D'
 * (default: all). A block is a contiguous (size × n') slab: the row maxima and sums are kept per
 * row in n'-long buffers, so every pass reads one column contiguously.
 */
export function softmaxRelaxed(
  logits: Float64Array,
  values: Float64Array,
  shape: RelaxedShape,
  blocks: readonly number[] = allBlocks(shape),
): void {
  const { rows, layout } = shape;
  const max = new Float64Array(rows);
  const sum = new Float64Array(rows);
  for (const j of blocks) {
    const size = layout.sizes[j];
    const base = layout.offsets[j] * rows;
    max.fill(Number.NEGATIVE_INFINITY);
    sum.fill(0);
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) if (logits[col + i] > max[i]) max[i] = logits[col + i];
    }
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) {
        const e = Math.exp(logits[col + i] - max[i]);
        values[col + i] = e;
        sum[i] += e;
      }
    }
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) values[col + i] /= sum[i];
    }
  }
}

/**
 * In place, on the listed blocks: grad (= ∂L/∂p at p = values) becomes ∂L/∂θ, the gradient
 * through each row's softmax (formula in the header).
 */
export function softmaxGradient(
  values: Float64Array,
  grad: Float64Array,
  shape: RelaxedShape,
  blocks: readonly number[] = allBlocks(shape),
): void {
  const { rows, layout } = shape;
  const dot = new Float64Array(rows);
  for (const j of blocks) {
    const size = layout.sizes[j];
    const base = layout.offsets[j] * rows;
    dot.fill(0);
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) dot[i] += values[col + i] * grad[col + i];
    }
    for (let v = 0; v < size; v++) {
      const col = base + v * rows;
      for (let i = 0; i < rows; i++) grad[col + i] = values[col + i] * (grad[col + i] - dot[i]);
    }
  }
}

/**
 * Logits whose softmax starts near a given D' (column-major, each block's rows on the simplex or
 * any non-negative start such as uniform noise): θ = ln(x + SOFTMAX_START_FLOOR). A one-hot row
 * of a block of s categories becomes probability 1/(1 + (s−1)·floor/(1 + floor)) on its category
 * (0.91 for s = 100), not 1: softmax never reaches a vertex, and a saturated row would have no
 * gradient to move with.
 */
export function logitsFrom(initial: ArrayLike<number>): Float64Array {
  return Float64Array.from(initial, (x) => Math.log(Math.max(x, 0) + SOFTMAX_START_FLOOR));
}

export const SOFTMAX_START_FLOOR = 1e-3;
