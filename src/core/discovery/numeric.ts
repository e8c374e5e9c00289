/**
 * Private discovery of a numeric column: bounds, integer or not, atoms, bin edges and the shape
 * inside each bin, from two Gaussian histograms over the public grid (grid.ts).
 *
 * Level 1 — one vector per column: the level-1 buckets (octaves and 0), the missing count, the
 * text count, and the count of fractional numbers. A record adds 1 to one bucket (or missing, or
 * text) and at most 1 to the fractional count, so under replace-one the vector moves by at most
 * √(1 + 1 + 1): ℓ2 sensitivity √3, noise σ₁ = √3/√(2ρ₁) (counts.ts), ρ₁-zCDP. Level 1 decides,
 * as post-processing: numeric or categorical (noisy numbers > noisy texts), integer or not, which
 * octaves are occupied (noisy count > 4σ₁: an empty octave passes with probability 3·10⁻⁵, so a
 * column's 163 octaves give a spurious bound in about 0.5% of columns), the bounds (the
 * occupied octaves' ends), and how finely each occupied octave is measured at level 2.
 *
 * Level 2 — the occupied octaves cut into S buckets each (S a power of two ≤ 64, about
 * count/(4σ₂), so each bucket expects ≥ 4σ₂ records; integer octaves at most one bucket per
 * integer): a record falls in at most one, so ℓ2 sensitivity √2, σ₂ = √2/√(2ρ₂), ρ₂-zCDP. The
 * octave's total is level 1's (noise σ₁); level 2 only shapes it (negatives clipped to 0).
 *
 * Bins are post-processing: the pieces (fine buckets with their noisy mass) are cut greedily
 * into `bins` bins of about equal mass (quantiles of the noisy histogram), and a piece holding at
 * least 1/bins of the mass is a bin of its own (an atom: the 0 of capital-gain, hours-per-week
 * = 40). The column keeps its pieces, so decoding draws inside a bin by the noisy shape.
 * No step has a δ: every bucket is public.
 */
import type { NumericColumn, NumericPiece } from '../data/schema.ts';
import { makeGaussianCounts, measureCounts } from '../privacy/counts.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { FINE, LEVEL1_BUCKETS, octaveOf, octaveRange, ZERO_BUCKET } from './grid.ts';
import type { ColumnCounts } from './profile.ts';

/** Occupied octave: noisy count above this many σ₁ (see the file comment). */
const OCCUPIED_SIGMAS = 4;
/**
 * Next to (or between) occupied octaves the bar is lower: 1.5σ₁ (Q(1.5) = 6.7% per candidate, a
 * handful of candidates per column). At 2σ₁, hours-per-week's [16, 32) octave (10% of adult at
 * ε = 0.1) was missed in some seeds.
 */
const NEIGHBOUR_SIGMAS = 1.5;
/** Level-2 buckets (of non-integer octaves) expect at least this many σ₂ records each. */
const BUCKET_SIGMAS = 1;
/** Integer octaves this small (j ≤ 6) are measured one bucket per integer. */
const ATOM_INTEGERS = 64;
/** A column is integer when at most this share of its numbers is fractional (they get rounded). */
const FRACTIONAL_SHARE = 0.01;

export const LEVEL1_SENSITIVITY = Math.sqrt(3);
export const LEVEL2_SENSITIVITY = Math.SQRT2;
/*
 * At the person level (at most k rows per person, neighbours differ in one person's rows) every
 * count above moves by k times as much: a person's k rows leave up to k buckets and k others enter,
 * ℓ2 ≤ √(k² + k²) over the buckets (all in one bucket is the worst case) and ±k on the fractional
 * count, so level 1 has ℓ2 sensitivity k√3 and level 2 k√2 (`bound` = k; 1 at the row level).
 */

/** The noisy level-1 output of a column (public). */
export interface Level1 {
  readonly sigma: number;
  readonly rho: number;
  readonly octaves: Float64Array;
  readonly missing: number;
  readonly texts: number;
  readonly fractional: number;
  /**
   * Numbers, as n − noisy missing − noisy texts (n is public; at the person level the noisy bounded
   * row count n̂): noise √2·σ₁, where the sum of the
   * 163 noisy octaves would carry √163·σ₁.
   */
  readonly numbers: number;
}

/** Level 1: ρ₁-zCDP, ℓ2 sensitivity √3 (see the file comment). */
export function measureLevel1(
  counts: ColumnCounts,
  n: number,
  rho: number,
  noise: NoiseSource,
  bound = 1,
): Level1 {
  const mech = makeGaussianCounts(rho, bound * LEVEL1_SENSITIVITY);
  const exact = new Float64Array(LEVEL1_BUCKETS + 3);
  exact.set(counts.octaves);
  exact[LEVEL1_BUCKETS] = counts.missing;
  exact[LEVEL1_BUCKETS + 1] = counts.texts;
  exact[LEVEL1_BUCKETS + 2] = counts.fractional;
  const noisy = measureCounts(mech, exact, noise);
  const octaves = noisy.slice(0, LEVEL1_BUCKETS);
  return {
    sigma: mech.sigma,
    rho,
    octaves,
    missing: noisy[LEVEL1_BUCKETS],
    texts: noisy[LEVEL1_BUCKETS + 1],
    fractional: noisy[LEVEL1_BUCKETS + 2],
    numbers: n - noisy[LEVEL1_BUCKETS] - noisy[LEVEL1_BUCKETS + 1],
  };
}

/** Numeric when the noisy count of numbers exceeds that of texts (post-processing). */
export function looksNumeric(l1: Level1): boolean {
  return l1.numbers > l1.texts && l1.numbers > OCCUPIED_SIGMAS * l1.sigma;
}

export function looksInteger(l1: Level1): boolean {
  return l1.fractional < Math.max(3 * l1.sigma, FRACTIONAL_SHARE * l1.numbers);
}

/** Does a level-1 bucket hold any integer? */
function holdsIntegers(bucket: number): boolean {
  if (bucket === ZERO_BUCKET) return true;
  const { j, sign } = octaveOf(bucket);
  return sign > 0 ? j >= 0 : j >= -1;
}

/** Integers in an octave bucket (for a cap on its level-2 buckets). */
function integersIn(bucket: number): number {
  const { lo, hi } = octaveRange(bucket);
  return Math.ceil(hi) - Math.ceil(lo);
}

/**
 * The least-squares projection of noisy counts onto {w ≥ 0, Σw = total}: w = max(c − λ, 0) with
 * λ such that the sum is the total (the octave's level-1 count). Unlike clipping at 0 it does not
 * turn the noise of empty buckets into mass, and an atom keeps its height. Post-processing.
 */
export function projectOntoSimplex(c: ArrayLike<number>, total: number): Float64Array {
  const out = new Float64Array(c.length);
  if (c.length === 0 || !(total > 0)) return out;
  const sorted = Float64Array.from(c).sort().reverse();
  let cumulative = 0;
  let lambda = sorted[0] - total;
  for (let k = 0; k < sorted.length; k++) {
    cumulative += sorted[k];
    const candidate = (cumulative - total) / (k + 1);
    if (sorted[k] - candidate > 0) lambda = candidate;
    else break;
  }
  for (let i = 0; i < c.length; i++) out[i] = Math.max(0, c[i] - lambda);
  return out;
}

/**
 * Octaves above OCCUPIED_SIGMAS·σ₁, then grown: an octave next to an occupied one, or between two,
 * joins above NEIGHBOUR_SIGMAS·σ₁ (a few candidates only, so few false ones). Post-processing.
 */
function occupiedOctaves(l1: Level1, allowed: (b: number) => boolean): number[] {
  const on = new Uint8Array(LEVEL1_BUCKETS);
  const passes = (b: number, sigmas: number) => allowed(b) && l1.octaves[b] > sigmas * l1.sigma;
  for (let b = 0; b < LEVEL1_BUCKETS; b++) if (passes(b, OCCUPIED_SIGMAS)) on[b] = 1;
  const first = on.indexOf(1);
  if (first === -1) return [];
  const last = on.lastIndexOf(1);
  for (let b = first + 1; b < last; b++) if (!on[b] && passes(b, NEIGHBOUR_SIGMAS)) on[b] = 1;
  for (let b = first - 1; b >= 0 && passes(b, NEIGHBOUR_SIGMAS); b--) on[b] = 1;
  for (let b = last + 1; b < LEVEL1_BUCKETS && passes(b, NEIGHBOUR_SIGMAS); b++) on[b] = 1;
  const out: number[] = [];
  on.forEach((v, b) => {
    if (v) out.push(b);
  });
  return out;
}

function largestPowerOfTwoAtMost(x: number): number {
  return x < 1 ? 1 : 2 ** Math.floor(Math.log2(x));
}

export interface NumericOptions {
  readonly bins: number;
  /** Rows per person (k) at the person level; 1 (the default) at the row level. */
  readonly bound?: number;
}

export interface NumericDiscovery {
  readonly column: NumericColumn;
  readonly level2Sigma: number;
  /** Buckets measured at level 2. */
  readonly level2Buckets: number;
}

/** Level 2 and the bins (see the file comment): ρ₂-zCDP, ℓ2 sensitivity √2. */
export function discoverNumeric(
  counts: ColumnCounts,
  l1: Level1,
  rho2: number,
  noise: NoiseSource,
  opts: NumericOptions,
): NumericDiscovery {
  const integer = looksInteger(l1);
  const allowed = (b: number) => !integer || holdsIntegers(b);
  let occupied = occupiedOctaves(l1, allowed);
  if (occupied.length === 0) {
    // Nothing clears the bar: the single most likely octave (post-processing).
    let best = ZERO_BUCKET;
    for (let b = 0; b < LEVEL1_BUCKETS; b++) if (allowed(b) && l1.octaves[b] > l1.octaves[best]) best = b;
    occupied = [best];
  }
  const level2 = makeGaussianCounts(rho2, (opts.bound ?? 1) * LEVEL2_SENSITIVITY);
  const splits = occupied.map((b) => {
    if (b === ZERO_BUCKET) return 0;
    // An octave of at most ATOM_INTEGERS integers is measured integer by integer (its atoms
    // show: hours-per-week = 40), else in buckets that expect BUCKET_SIGMAS·σ₂ records each.
    const byCount = Math.min(FINE, largestPowerOfTwoAtMost(l1.octaves[b] / (BUCKET_SIGMAS * level2.sigma)));
    if (!integer) return byCount;
    const integers = largestPowerOfTwoAtMost(integersIn(b));
    return integers <= ATOM_INTEGERS ? integers : Math.min(integers, byCount);
  });
  const exact = new Float64Array(splits.reduce((a, b) => a + b, 0));
  let at = 0;
  occupied.forEach((b, i) => {
    const s = splits[i];
    for (let f = 0; f < FINE && s > 0; f++) {
      const c = counts.fine.get(b * FINE + f);
      if (c !== undefined) exact[at + Math.floor((f * s) / FINE)] += c;
    }
    at += s;
  });
  const noisy = exact.length > 0 ? measureCounts(level2, exact, noise) : exact;
  const pieces: NumericPiece[] = [];
  at = 0;
  occupied.forEach((b, i) => {
    const total = Math.max(0, l1.octaves[b]);
    if (b === ZERO_BUCKET) {
      pieces.push({ lo: 0, hi: integer ? 1 : 0, weight: total });
      return;
    }
    const s = splits[i];
    const shares = projectOntoSimplex(noisy.subarray(at, at + s), total);
    at += s;
    const { lo, hi } = octaveRange(b);
    const width = (hi - lo) / s;
    shares.forEach((share, g) => {
      let pLo = lo + g * width;
      let pHi = g === s - 1 ? hi : lo + (g + 1) * width;
      if (integer) {
        pLo = Math.ceil(pLo);
        pHi = Math.ceil(pHi);
        if (pHi <= pLo) return;
      }
      if (share > 0) pieces.push({ lo: pLo, hi: pHi, weight: share });
    });
  });
  const column = binPieces(counts.name, pieces, integer, opts.bins);
  return { column, level2Sigma: level2.sigma, level2Buckets: exact.length };
}

/**
 * Greedy equal-mass bins over ascending pieces; a piece with ≥ 1/bins of the mass is a bin of
 * its own. Pieces keep their weights normalized to 1.
 */
export function binPieces(
  name: string,
  raw: readonly NumericPiece[],
  integer: boolean,
  bins: number,
): NumericColumn {
  const total = raw.reduce((a, p) => a + p.weight, 0);
  const pieces = raw.map((p) => ({ ...p, weight: total > 0 ? p.weight / total : 1 / raw.length }));
  const target = 1 / bins;
  const groups: NumericPiece[][] = [];
  let current: NumericPiece[] = [];
  let mass = 0;
  const close = () => {
    if (current.length > 0) groups.push(current);
    current = [];
    mass = 0;
  };
  for (const p of pieces) {
    if (p.weight >= target) {
      close();
      groups.push([p]);
      continue;
    }
    current.push(p);
    mass += p.weight;
    if (mass >= target) close();
  }
  close();
  const edges = groups.map((g, i) => (i === 0 ? g[0].lo : gapEdge(groups[i - 1], g[0].lo, integer)));
  const last = pieces[pieces.length - 1];
  edges.push(last.hi > last.lo ? last.hi : nextUp(last.hi));
  return { name, kind: 'numeric', edges, integer, missing: true, pieces };
}

/**
 * The edge between two bins: inside the gap between the previous bin's last piece (ending at a)
 * and the next piece (starting at b), at the gap's geometric middle when both ends have the same
 * sign (the grid is logarithmic), else its middle; values that fall in the gap go to the nearer
 * bin.
 */
function gapEdge(previous: readonly NumericPiece[], b: number, integer: boolean): number {
  const p = previous[previous.length - 1];
  const a = Math.max(p.hi, p.lo);
  if (!(b > a)) return b;
  let mid = a > 0 ? Math.sqrt(a * b) : b < 0 ? -Math.sqrt(a * b) : (a + b) / 2;
  if (integer) mid = Math.ceil(mid);
  // Strictly after the previous piece's start, at most the next piece's start.
  return Math.min(b, Math.max(mid, a > p.lo ? a : nextUp(a)));
}

function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigInt64(0);
  buf.setBigInt64(0, x > 0 ? bits + 1n : bits - 1n);
  return buf.getFloat64(0);
}
