/**
 * Loss and gradient of selected queries, one query at a time over contiguous columns.
 *
 * A query (target y of threshold S with r) is the multilinear polynomial "at least r of the k
 * entries x_{row, S_j}[y_j] are 1", averaged over rows. For independent Bernoulli p_j that is
 * the Poisson-binomial tail P(≥ r), the same polynomial as the inclusion–exclusion sum, so it
 * is evaluated by an O(k·r) recursion, and ∂P(≥ r)/∂p_j = P(exactly r − 1 among the others)
 * from prefix and suffix distributions. Marginal queries (r = k) take the product fast path.
 */

/** Queries that share k and r: columns cols[q·k + j] (one-hot column of the target's j-th value). */
export interface QueryGroup {
  readonly k: number;
  readonly r: number;
  readonly count: number;
  readonly columns: Int32Array;
  /** Normalized importance weight per query. */
  readonly weights: Float64Array;
  /** Measured (noisy) answers. */
  readonly targets: Float64Array;
}

export interface LossResult {
  /** Σ w (q̂ − ã)² over the queries. */
  loss: number;
  /** max |q̂ − ã|. */
  maxError: number;
}

/**
 * Adds the group's Σ w (q̂ − ã)² to `acc` and scale · its gradient to `grad` (column-major, like
 * values). `answers` (optional) receives q̂.
 */
export function queryGroupLoss(
  values: Float64Array,
  rows: number,
  group: QueryGroup,
  scale: number,
  grad: Float64Array,
  acc: LossResult,
  answers?: Float64Array,
): void {
  if (group.r === group.k && group.k <= 3) marginalQueries(values, rows, group, scale, grad, acc, answers);
  else thresholdQueries(values, rows, group, scale, grad, acc, answers);
}

function record(
  group: QueryGroup,
  q: number,
  answer: number,
  acc: LossResult,
  answers?: Float64Array,
): number {
  if (answers) answers[q] = answer;
  const diff = answer - group.targets[q];
  const w = group.weights[q];
  acc.loss += w * diff * diff;
  if (Math.abs(diff) > acc.maxError) acc.maxError = Math.abs(diff);
  return 2 * w * diff;
}

/** k ≤ 3 products, unrolled: the common case of marginal workloads. */
function marginalQueries(
  x: Float64Array,
  rows: number,
  group: QueryGroup,
  scale: number,
  grad: Float64Array,
  acc: LossResult,
  answers?: Float64Array,
): void {
  const { k, columns } = group;
  const inv = 1 / rows;
  for (let q = 0; q < group.count; q++) {
    const a = columns[q * k] * rows;
    const b = k > 1 ? columns[q * k + 1] * rows : -1;
    const c = k > 2 ? columns[q * k + 2] * rows : -1;
    let sum = 0;
    if (k === 1) for (let i = 0; i < rows; i++) sum += x[a + i];
    else if (k === 2) for (let i = 0; i < rows; i++) sum += x[a + i] * x[b + i];
    else for (let i = 0; i < rows; i++) sum += x[a + i] * x[b + i] * x[c + i];
    const g = record(group, q, sum * inv, acc, answers) * inv * scale;
    if (g === 0) continue;
    if (k === 1) {
      for (let i = 0; i < rows; i++) grad[a + i] += g;
    } else if (k === 2) {
      for (let i = 0; i < rows; i++) {
        grad[a + i] += g * x[b + i];
        grad[b + i] += g * x[a + i];
      }
    } else {
      for (let i = 0; i < rows; i++) {
        const xa = x[a + i];
        const xb = x[b + i];
        const xc = x[c + i];
        grad[a + i] += g * xb * xc;
        grad[b + i] += g * xa * xc;
        grad[c + i] += g * xa * xb;
      }
    }
  }
}

/** General k and r: Poisson-binomial recursion per row. */
function thresholdQueries(
  x: Float64Array,
  rows: number,
  group: QueryGroup,
  scale: number,
  grad: Float64Array,
  acc: LossResult,
  answers?: Float64Array,
): void {
  const { k, r, columns } = group;
  const inv = 1 / rows;
  const base = new Int32Array(k);
  const p = new Float64Array(k);
  // prefix[j·(k+1) + c] = P(c successes among p_0..p_{j−1}); suffix likewise for p_j..p_{k−1}.
  const prefix = new Float64Array((k + 1) * (k + 1));
  const suffix = new Float64Array((k + 2) * (k + 1));
  const dist = new Float64Array(k + 1);
  for (let q = 0; q < group.count; q++) {
    for (let j = 0; j < k; j++) base[j] = columns[q * k + j] * rows;
    let sum = 0;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < k; j++) p[j] = x[base[j] + i];
      sum += tailAtLeast(p, k, r, dist);
    }
    const g = record(group, q, sum * inv, acc, answers) * inv * scale;
    if (g === 0) continue;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < k; j++) p[j] = x[base[j] + i];
      prefixSuffix(p, k, prefix, suffix);
      for (let j = 0; j < k; j++) {
        // P(exactly r − 1 successes among all but j) = Σ_a prefix_j(a) · suffix_{j+1}(r − 1 − a).
        let d = 0;
        for (let a = 0; a <= r - 1; a++)
          d += prefix[j * (k + 1) + a] * suffix[(j + 1) * (k + 1) + (r - 1 - a)];
        grad[base[j] + i] += g * d;
      }
    }
  }
}

/** P(at least r of k independent Bernoulli(p_j)); dist is scratch of length k + 1. */
export function tailAtLeast(p: Float64Array, k: number, r: number, dist: Float64Array): number {
  dist.fill(0);
  dist[0] = 1;
  for (let j = 0; j < k; j++) {
    const pj = p[j];
    const qj = 1 - pj;
    for (let c = j + 1; c >= 1; c--) dist[c] = dist[c] * qj + dist[c - 1] * pj;
    dist[0] *= qj;
  }
  let tail = 0;
  for (let c = r; c <= k; c++) tail += dist[c];
  return tail;
}

function prefixSuffix(p: Float64Array, k: number, prefix: Float64Array, suffix: Float64Array): void {
  const w = k + 1;
  prefix.fill(0);
  suffix.fill(0);
  prefix[0] = 1;
  for (let j = 0; j < k; j++) {
    const pj = p[j];
    const qj = 1 - pj;
    for (let c = 0; c <= j + 1; c++) {
      const stay = c <= j ? prefix[j * w + c] * qj : 0;
      const up = c >= 1 ? prefix[j * w + c - 1] * pj : 0;
      prefix[(j + 1) * w + c] = stay + up;
    }
  }
  suffix[k * w] = 1;
  for (let j = k - 1; j >= 0; j--) {
    const pj = p[j];
    const qj = 1 - pj;
    const n = k - j;
    for (let c = 0; c <= n; c++) {
      const stay = c <= n - 1 ? suffix[(j + 1) * w + c] * qj : 0;
      const up = c >= 1 ? suffix[(j + 1) * w + c - 1] * pj : 0;
      suffix[j * w + c] = stay + up;
    }
  }
}
