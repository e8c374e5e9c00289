/**
 * Back-propagation through product tables: the gradient of Σ_y G(y)·P_F(y) with respect to D',
 * through each table's own rows (the reference polynomial's gradient, which does not assume the
 * simplex), optionally into the categories of grouped features (GradientTarget, group-sums.ts).
 */
import type { OneHotLayout } from '../../data/onehot.ts';
import { rowMajorStrides } from '../../workload/table.ts';
import { atLeast, type Combos, scratch } from './scratch.ts';
import type { SparseRows } from './sparse-rows.ts';

/**
 * grad += scale · ∂/∂D' Σ_y G(y) · P_F(y)·n' for a cotangent table G over the features' dims
 * (column-major grad, like D'). For each row and each feature f of F, the other features'
 * nonzero combinations index G; every category of f (zero or not) gets its partial derivative.
 * Rows [firstRow, endRow) only (a thread's share: each row's gradient depends on that row alone).
 */
export function backpropProductTable(
  sp: SparseRows,
  layout: OneHotLayout,
  features: readonly number[],
  dims: readonly number[],
  G: Float64Array,
  scale: number,
  grad: Float64Array,
  firstRow = 0,
  endRow = sp.rows,
  into?: GradientTarget,
): void {
  const k = features.length;
  const strides = rowMajorStrides(dims);
  const rows = sp.rows;
  const combos = scratch.combos;
  let maxDim = 1;
  for (const d of dims) maxDim = Math.max(maxDim, d);
  const local = (scratch.local = atLeast(scratch.local, BACKPROP_CHUNK_ROWS * maxDim));
  const derivative = scratch.derivative;
  for (let j = 0; j < k; j++) {
    const size = dims[j];
    const others = features.filter((_, l) => l !== j);
    // G with axis j innermost (contiguous): line o (the other axes' cell, row-major) holds
    // G(o, v) for every v at o·size + v. The same numbers as the strided reads, in cache lines.
    const { table, otherStrides } = axisLast(G, dims, strides, j);
    // Room for a row's (line, product) pairs of one or two other features (at most one per
    // line), sized once per axis: the per-row loop then touches no module state (in the
    // CommonJS the threads load, every use of an imported binding is a getter call).
    const pairs = linePairs(others.length <= 2 ? G.length / size : 0);
    const target = into ? into.features[j] : features[j];
    const columnBase = (into?.layout ?? layout).offsets[target] * rows;
    const groupOf = into?.groups[j];
    for (let i0 = firstRow; i0 < endRow; i0 += BACKPROP_CHUNK_ROWS) {
      const i1 = Math.min(endRow, i0 + BACKPROP_CHUNK_ROWS);
      const count = i1 - i0;
      local.fill(0, 0, count * size);
      let any = false;
      for (let r = 0; r < count; r++) {
        if (accumulateLines(sp, i0 + r, others, otherStrides, table, size, local, r * size, pairs, combos))
          any = true;
      }
      if (!any) continue;
      // A row no combination reached adds ±0 below, which leaves any gradient or group sum as it
      // was (they are never −0: they start at +0, and x + y is −0 only when both are): each
      // element still gets exactly the adds of the row-by-row form, in the same order.
      const sums = into?.sums?.[j];
      if (sums) {
        // The feature's group sums (row-major, one line of `size` groups per row): every
        // category of a group would get the same add; GroupSums.handOver gives it once a pass.
        const lines = i0 * size;
        for (let c = 0; c < count * size; c++) sums[lines + c] += scale * local[c];
        continue;
      }
      // grad is column-major (category v's rows contiguous): a group's derivatives for the
      // chunk's rows are formed once, then added along each of its categories' columns.
      const members = groupOf ? groupMembers(groupOf, size) : undefined;
      for (let g = 0; g < size; g++) {
        for (let r = 0; r < count; r++) derivative[r] = scale * local[r * size + g];
        const from = members ? members.start[g] : g;
        const to = members ? members.start[g + 1] : g + 1;
        for (let m = from; m < to; m++) {
          const column = columnBase + (members ? members.category[m] : m) * rows + i0;
          for (let r = 0; r < count; r++) grad[column + r] += derivative[r];
        }
      }
    }
  }
}

/** Each group's categories, ascending (CSR: category[start[g] … start[g + 1])), cached per grouping. */
const membersOf = new WeakMap<Int32Array, { start: Int32Array; category: Int32Array }>();

function groupMembers(groupOf: Int32Array, groups: number): { start: Int32Array; category: Int32Array } {
  let members = membersOf.get(groupOf);
  if (!members) {
    const start = new Int32Array(groups + 1);
    for (let v = 0; v < groupOf.length; v++) start[groupOf[v] + 1]++;
    for (let g = 0; g < groups; g++) start[g + 1] += start[g];
    const fill = start.slice(0, groups);
    const category = new Int32Array(groupOf.length);
    for (let v = 0; v < groupOf.length; v++) category[fill[groupOf[v]]++] = v;
    membersOf.set(groupOf, (members = { start, category }));
  }
  return members;
}

/**
 * Rows per chunk of backpropProductTable: their lines (≤ BACKPROP_CHUNK_ROWS × the largest
 * dimension) stay in L1/L2 while they are written out category by category.
 */
const BACKPROP_CHUNK_ROWS = scratch.derivative.length;

/**
 * Where a grouped table's gradient goes (backpropProductTable's `into`): sp's blocks are the
 * table's features summed into groups, and every category v of feature features[j] of `layout`
 * gets its group's derivative (∂ group / ∂ category = 1), groups[j][v] being v's group (or v
 * itself where the feature is not grouped). The same numbers as back-propagating into the groups'
 * columns and adding each group's column to its categories', without that buffer.
 */
export interface GradientTarget {
  readonly layout: OneHotLayout;
  readonly features: readonly number[];
  readonly groups: readonly (Int32Array | undefined)[];
  /**
   * Per feature, where its groups' derivatives collect instead (n' × groups, row-major), for
   * {@link GroupSums.handOver} to give to the categories once per backward pass.
   */
  readonly sums?: readonly (Float64Array | undefined)[];
}

/**
 * G as lines along axis j (G itself when j is the last axis, else a scratch buffer valid until
 * the next call), and the lines' strides.
 */
function axisLast(
  G: Float64Array,
  dims: readonly number[],
  strides: readonly number[],
  j: number,
): { table: Float64Array; otherStrides: number[] } {
  const size = dims[j];
  const otherDims = dims.filter((_, l) => l !== j);
  const otherStrides = rowMajorStrides(otherDims).map((s) => s * size);
  if (j === dims.length - 1) return { table: G, otherStrides };
  const table = (scratch.lines = atLeast(scratch.lines, G.length));
  const stride = strides[j];
  // Cells of G are (outer, v, inner) with inner < stride: line (outer, inner) gets v contiguous.
  const outerCount = G.length / (stride * size);
  let line = 0;
  for (let outer = 0; outer < outerCount; outer++) {
    const base = outer * stride * size;
    for (let inner = 0; inner < stride; inner++) {
      const to = line * size;
      for (let v = 0; v < size; v++) table[to + v] = G[base + v * stride + inner];
      line++;
    }
  }
  return { table, otherStrides };
}

/** accumulateLines' (line start, product) pairs of one row. */
interface LinePairs {
  readonly base: Int32Array;
  readonly product: Float64Array;
}

/** The shared pair arrays, grown to hold `length` pairs. */
function linePairs(length: number): LinePairs {
  scratch.base = atLeast(scratch.base, length);
  scratch.product = atLeast(scratch.product, length);
  return { base: scratch.base, product: scratch.product };
}

/**
 * local[at + v] += Σ over row i's nonzero combinations of the other features (their product p,
 * in the Combos order: earlier features outer) of lines[o·size + v]·p. False when a block of the
 * row is empty (no combination). The combinations of one and two other features (every marginal
 * up to 3-way) are listed unrolled; the products are formed as Combos forms them
 * ((1·x₁)·x₂ = x₁·x₂), bit for bit. The lines are then added by {@link addLines}.
 */
function accumulateLines(
  sp: SparseRows,
  i: number,
  others: readonly number[],
  otherStrides: readonly number[],
  lines: Float64Array,
  size: number,
  local: Float64Array,
  at: number,
  pairs: LinePairs,
  combos: Combos,
): boolean {
  if (others.length === 0) {
    for (let v = 0; v < size; v++) local[at + v] += lines[v] * 1;
    return true;
  }
  if (others.length === 1) {
    const a = sp.blocks[others[0]];
    const from = a.rowStart[i];
    const to = a.rowStart[i + 1];
    if (from === to) return false;
    const { base, product } = pairs;
    const sa = otherStrides[0];
    for (let e = from; e < to; e++) {
      base[e - from] = a.category[e] * sa;
      product[e - from] = a.value[e];
    }
    addLines(lines, size, local, at, base, product, to - from);
    return true;
  }
  if (others.length === 2) {
    const a = sp.blocks[others[0]];
    const b = sp.blocks[others[1]];
    const fromA = a.rowStart[i];
    const toA = a.rowStart[i + 1];
    const fromB = b.rowStart[i];
    const toB = b.rowStart[i + 1];
    if (fromA === toA || fromB === toB) return false;
    const count = (toA - fromA) * (toB - fromB);
    const { base, product } = pairs;
    const sa = otherStrides[0];
    const sb = otherStrides[1];
    let q = 0;
    for (let ea = fromA; ea < toA; ea++) {
      const baseA = a.category[ea] * sa;
      const pa = a.value[ea];
      for (let eb = fromB; eb < toB; eb++) {
        base[q] = baseA + b.category[eb] * sb;
        product[q++] = pa * b.value[eb];
      }
    }
    addLines(lines, size, local, at, base, product, count);
    return true;
  }
  const len = combos.expand(sp, i, others, otherStrides);
  if (len === 0) return false;
  addLines(lines, size, local, at, combos.index, combos.product, len);
  return true;
}

/**
 * local[at + v] += lines[base[c] + v]·product[c] for c = 0 … count − 1 in that order, every v.
 * Four (then two) lines per pass over local, the running sum kept in a register: each cell
 * still receives the lines one add at a time in list order (bit for bit the line-by-line loop),
 * with a quarter of the loads and stores of local — 2× faster in V8 on lines of ~15 cells.
 */
function addLines(
  lines: Float64Array,
  size: number,
  local: Float64Array,
  at: number,
  base: Int32Array,
  product: Float64Array,
  count: number,
): void {
  let c = 0;
  for (; c + 4 <= count; c += 4) {
    const b0 = base[c];
    const b1 = base[c + 1];
    const b2 = base[c + 2];
    const b3 = base[c + 3];
    const p0 = product[c];
    const p1 = product[c + 1];
    const p2 = product[c + 2];
    const p3 = product[c + 3];
    for (let v = 0; v < size; v++) {
      let x = local[at + v];
      x += lines[b0 + v] * p0;
      x += lines[b1 + v] * p1;
      x += lines[b2 + v] * p2;
      x += lines[b3 + v] * p3;
      local[at + v] = x;
    }
  }
  for (; c + 2 <= count; c += 2) {
    const b0 = base[c];
    const b1 = base[c + 1];
    const p0 = product[c];
    const p1 = product[c + 1];
    for (let v = 0; v < size; v++) {
      let x = local[at + v];
      x += lines[b0 + v] * p0;
      x += lines[b1 + v] * p1;
      local[at + v] = x;
    }
  }
  for (; c < count; c++) {
    const b0 = base[c];
    const p0 = product[c];
    for (let v = 0; v < size; v++) local[at + v] += lines[b0 + v] * p0;
  }
}
