/**
 * A synthetic stand-in for LOANS with the real domain (48 features, one-hot width 4,427) and the
 * real row count, for the `scale-engine` suite. The real LOANS records are not in the repository, and
 * uniform random rows would make every threshold answer tiny and alike, which flatters both
 * accuracy and selection. So rows come from a Bayesian-network-like sampler: a random DAG in
 * column order (each feature has 1–2 parents among the earlier ones) with conditional tables
 * drawn from a symmetric Dirichlet of small concentration, so marginals are skewed and features
 * are dependent.
 *
 * This is PUBLIC synthetic test data, deterministic for a seed: the seeded PRNG below is not
 * privacy noise (that comes only from src/core/privacy).
 */
import { readFile } from 'node:fs/promises';
import { parseDomainJson } from '../../src/core/data/benchmark.ts';
import { codeArray } from '../../src/core/data/encode.ts';
import { domainSizes, type EncodedDataset, type Schema } from '../../src/core/data/schema.ts';
import { type Rng, seededRng } from '../../src/core/workload/prng.ts';

export const LOANS_ROWS = 42_535;
export const LOANS_SEED = 42;

export interface BayesNetOptions {
  readonly rows: number;
  readonly seed: number;
  /** At most this many parents per feature, among the earlier columns (default 2). */
  readonly maxParents?: number;
  /** Dirichlet concentration per category (default 0.3): the smaller, the more skewed. */
  readonly concentration?: number;
  /**
   * A parent's values are cut into at most this many contiguous groups (default 6) before they
   * pick the child's table, so a 1,001-value parent does not need 1,001 tables.
   */
  readonly parentGroups?: number;
}

/** How one feature depends on its parents: the tables and how parent values select one. */
interface FeatureNode {
  readonly size: number;
  readonly parents: readonly number[];
  /** groupOf[i][v]: the group of value v of parent i. */
  readonly groupOf: readonly Uint8Array[];
  /** Groups of each parent, for the mixed-radix context index. */
  readonly groups: readonly number[];
  /** Cumulative distribution per context: row c is cdf[c·size … (c+1)·size). */
  readonly cdf: Float64Array;
}

/** Standard normal by Box–Muller (public data only). */
function normal(rng: Rng): number {
  const u = 1 - rng(); // (0, 1]
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** Gamma(shape, 1) by Marsaglia–Tsang; shape < 1 through Gamma(shape + 1)·U^(1/shape). */
export function sampleGamma(shape: number, rng: Rng): number {
  if (!(shape > 0)) throw new RangeError(`gamma shape must be > 0, got ${shape}`);
  if (shape < 1) return sampleGamma(shape + 1, rng) * (1 - rng()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(rng);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = 1 - rng();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A probability vector from a symmetric Dirichlet(α, …, α) of the given size. */
export function sampleDirichlet(size: number, alpha: number, rng: Rng): Float64Array {
  const p = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) total += p[i] = sampleGamma(alpha, rng);
  // All draws can underflow for tiny α: fall back to uniform rather than divide by 0.
  if (!(total > 0)) return p.fill(1 / size);
  for (let i = 0; i < size; i++) p[i] /= total;
  return p;
}

/** k distinct indices below `below`, ascending. */
function drawParents(below: number, k: number, rng: Rng): number[] {
  const pool = Array.from({ length: below }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rng() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, k).sort((a, b) => a - b);
}

/** Contiguous groups: similar (ordinal) parent values act alike. */
function contiguousGroups(size: number, groups: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, v) => Math.floor((v * groups) / size));
}

function buildNode(j: number, sizes: readonly number[], o: Required<BayesNetOptions>, rng: Rng): FeatureNode {
  const size = sizes[j];
  // 1..maxParents parents (none for the first feature, or when maxParents is 0).
  const parentCount = o.maxParents === 0 ? 0 : Math.min(j, 1 + Math.floor(rng() * o.maxParents));
  const parents = drawParents(j, parentCount, rng);
  const groups = parents.map((p) => Math.min(sizes[p], o.parentGroups));
  const groupOf = parents.map((p, i) => contiguousGroups(sizes[p], groups[i]));
  const contexts = groups.reduce((a, b) => a * b, 1);
  const cdf = new Float64Array(contexts * size);
  for (let c = 0; c < contexts; c++) {
    const p = sampleDirichlet(size, o.concentration, rng);
    let acc = 0;
    for (let v = 0; v < size; v++) cdf[c * size + v] = acc += p[v];
    cdf[c * size + size - 1] = 1; // no gap above the last category from rounding
  }
  return { size, parents, groupOf, groups, cdf };
}

/** Smallest v with cdf[base + v] > u (binary search in one context's row). */
function sampleCategory(cdf: Float64Array, base: number, size: number, u: number): number {
  let lo = 0;
  let hi = size - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[base + mid] > u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function withDefaults(o: BayesNetOptions): Required<BayesNetOptions> {
  const r = { maxParents: 2, concentration: 0.3, parentGroups: 6, ...o };
  if (!Number.isSafeInteger(r.rows) || r.rows < 1)
    throw new RangeError(`rows must be an integer >= 1, got ${r.rows}`);
  if (!Number.isSafeInteger(r.maxParents) || r.maxParents < 0)
    throw new RangeError('maxParents must be >= 0');
  if (!(r.concentration > 0)) throw new RangeError('concentration must be > 0');
  if (!Number.isInteger(r.parentGroups) || r.parentGroups < 1 || r.parentGroups > 256) {
    throw new RangeError('parentGroups must be an integer in 1..256');
  }
  return r;
}

function buildNet(sizes: readonly number[], o: Required<BayesNetOptions>, rng: Rng): FeatureNode[] {
  return sizes.map((_, j) => buildNode(j, sizes, o, rng));
}

/** The parents of each feature in the network sampleBayesNet uses for these options. */
export function bayesNetParents(schema: Schema, options: BayesNetOptions): number[][] {
  return buildNet(domainSizes(schema), withDefaults(options), seededRng(options.seed)).map((n) => [
    ...n.parents,
  ]);
}

/** Rows for a schema from a seeded random Bayesian network; deterministic for (schema, options). */
export function sampleBayesNet(schema: Schema, options: BayesNetOptions): EncodedDataset {
  const o = withDefaults(options);
  const sizes = domainSizes(schema);
  const rng = seededRng(o.seed);
  const nodes = buildNet(sizes, o, rng);
  const codes = sizes.map((size) => codeArray(size, o.rows));
  for (let i = 0; i < o.rows; i++) {
    for (let j = 0; j < nodes.length; j++) {
      const node = nodes[j];
      let context = 0;
      for (let p = 0; p < node.parents.length; p++) {
        context = context * node.groups[p] + node.groupOf[p][codes[node.parents[p]][i]];
      }
      codes[j][i] = sampleCategory(node.cdf, context * node.size, node.size, rng());
    }
  }
  return { schema, n: o.rows, codes };
}

/** The `scale-engine` suite's dataset: LOANS domain, 42,535 rows, fixed seed. */
export async function generateLoansDataset(
  domainPath: string,
  options: Partial<BayesNetOptions> = {},
): Promise<EncodedDataset> {
  const schema = parseDomainJson(await readFile(domainPath, 'utf8'), domainPath);
  return sampleBayesNet(schema, { rows: LOANS_ROWS, seed: LOANS_SEED, ...options });
}
