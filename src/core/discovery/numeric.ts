/**
 * Private discovery of a numeric column: bounds, integer or not, atoms, bin edges and the shape
 * inside each bin, from two Gaussian histograms over the public grid (grid.ts).
 *
 * Level 1 — one vector per column: the level-1 buckets (octaves and 0), the missing count, the
 * text count, the count of zero-padded digit strings (`02134`: codes), and the count of fractional
 * numbers. A record adds 1 to one bucket (or missing, or text, or zero-padded) and at most 1 to the
 * fractional count, so under replace-one the vector moves by at most
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
import { normalUpperTailInverse } from '../privacy/normal-tail.ts';
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
/**
 * …and when the noisy fractional count is below this many σ₁ (an all-integer column is called
 * fractional with probability Q(4) = 3·10⁻⁵; at 3σ₁, adult.data's age came out fractional at
 * seed 0 and was released with 41,512 distinct decimals).
 */
const FRACTIONAL_SIGMAS = 4;
/**
 * The missing category enters a numeric column's released domain when the noisy count of
 * missing and text cells (level 1, σ √(forms + 1)·σ₁, one count per missing marker) passes this many of its σ (Q(3) = 0.13% for a column
 * with none).
 */
export const MISSING_SIGMAS = 3;
/** A column is a code column when its noisy count of zero-padded digit strings passes this many σ₁. */
export const PADDED_SIGMAS = 4;
/**
 * A level-2 bucket (one integer, in an atomized octave) is a released value when its noisy count
 * passes this many σ₂; a dyadic block of m buckets in an edge octave is occupied when its noisy
 * sum passes at least this many of its σ, σ₂·√m (see `edgeBlock`).
 */
export const VALUE_SIGMAS = 3;
/** Chance that noise alone extends an edge octave's range (`edgeBlock`). */
export const EDGE_FALSE_RATE = 0.01;
/** See the edge octaves in discoverNumeric: the level-1 count left unexplained, in its σ. */
export const EXPLAIN_SIGMAS = 0.5;
/** See the edge octaves in discoverNumeric: when level 2 resolves an octave well enough to trim it. */
export const EDGE_TRIM_SIGMAS = 3;
/** The largest share of a column's numbers an edge octave may hold and still be trimmed. */
export const EDGE_TAIL_SHARE = 1 / 8;
/** Edge octaves of more integers than this are measured in coarser buckets (see `splits`). */
export const EDGE_ATOM_INTEGERS = 16;
/** Records an edge octave's coarser bucket expects, in σ₂. */
export const EDGE_BUCKET_SIGMAS = 3;
/** At most this many released values for a column released value by value. */
export const MAX_VALUES = 32;
/**
 * A column whose occupied octaves hold more integers than this (twice MAX_VALUES) has its small
 * edge tails measured coarsely as well (`discoverNumeric`). Narrower columns (education-num,
 * counts of children) keep one bucket per integer there, so they can be released value by value.
 */
export const WIDE_INTEGERS = 2 * MAX_VALUES;
/**
 * An edge octave's kept range also grows while the noisy sum of the buckets left outside passes
 * this many of its σ (σ₂·√buckets): past the data's end that sum is noise and passes with
 * probability Q(1) = 16% per step, so the range overshoots by about 0.2 buckets on average.
 */
export const OUTSIDE_SIGMAS = 1;

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
  /** The noisy missing count: the sum of `missingForms` (σ₁·√forms). */
  readonly missing: number;
  /** Noisy missing counts per missing marker (`?`, empty, `NA`, …, in the profile's order). */
  readonly missingForms: Float64Array;
  readonly texts: number;
  /** Zero-padded digit strings (profile.ts): postcodes and other codes, not numbers. */
  readonly padded: number;
  readonly fractional: number;
  /**
   * Numbers, as n − noisy missing − noisy texts − noisy zero-padded (n is public; at the person
   * level the noisy bounded row count n̂): noise √(forms + 2)·σ₁ (√5·σ₁ with the three default
   * markers), where the sum of the 163 noisy octaves would carry √163·σ₁.
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
  // [octaves…, texts, fractional, zero-padded, missing by form…]: a record still adds 1 to ONE of
  // the octave, text, zero-padded and missing-form buckets (the missing count split by marker is
  // still one bucket per record), so the ℓ2 sensitivity stays √3.
  const forms = counts.missingForms.length;
  const exact = new Float64Array(LEVEL1_BUCKETS + 3 + forms);
  exact.set(counts.octaves);
  exact[LEVEL1_BUCKETS] = counts.texts;
  exact[LEVEL1_BUCKETS + 1] = counts.fractional;
  exact[LEVEL1_BUCKETS + 2] = counts.padded;
  exact.set(counts.missingForms, LEVEL1_BUCKETS + 3);
  const noisy = measureCounts(mech, exact, noise);
  const octaves = noisy.slice(0, LEVEL1_BUCKETS);
  const missingForms = noisy.slice(LEVEL1_BUCKETS + 3);
  let missing = 0;
  for (const m of missingForms) missing += m;
  return {
    sigma: mech.sigma,
    rho,
    octaves,
    missing,
    missingForms,
    texts: noisy[LEVEL1_BUCKETS],
    fractional: noisy[LEVEL1_BUCKETS + 1],
    padded: noisy[LEVEL1_BUCKETS + 2],
    numbers: n - missing - noisy[LEVEL1_BUCKETS] - noisy[LEVEL1_BUCKETS + 2],
  };
}

/**
 * The marker a released missing category is written as: the form of largest noisy count
 * (post-processing of level 1), so a column whose records say `?` keeps `?`, one with empty cells
 * keeps them empty, one with `NA` keeps `NA`.
 */
export function missingForm(l1: Level1, markers: readonly string[]): string {
  let best = 0;
  for (let i = 1; i < l1.missingForms.length; i++) if (l1.missingForms[i] > l1.missingForms[best]) best = i;
  return markers[best] ?? markers[0] ?? '';
}

/**
 * Numeric when the noisy count of numbers exceeds that of texts (post-processing), and the noisy
 * count of zero-padded digit strings does not pass PADDED_SIGMAS·σ₁: a column of postcodes or
 * other fixed-width codes with leading zeros is categorical (a column with none is called a code
 * column with probability Q(4) = 3·10⁻⁵).
 */
export function looksNumeric(l1: Level1): boolean {
  return (
    l1.numbers > l1.texts &&
    l1.numbers > OCCUPIED_SIGMAS * l1.sigma &&
    !(l1.padded > PADDED_SIGMAS * l1.sigma)
  );
}

export function looksInteger(l1: Level1): boolean {
  return l1.fractional < Math.max(FRACTIONAL_SIGMAS * l1.sigma, FRACTIONAL_SHARE * l1.numbers);
}

/** The noisy count of missing and text cells, its σ, and whether the missing category is released. */
export function missingEstimate(l1: Level1): { count: number; sigma: number; released: boolean } {
  const count = l1.missing + l1.texts;
  // The missing count is the sum of one noisy count per form, plus the texts': √(forms + 1)·σ₁.
  const sigma = Math.sqrt(l1.missingForms.length + 1) * l1.sigma;
  return { count, sigma, released: count > MISSING_SIGMAS * sigma };
}

/**
 * Inside an edge octave (the lowest or highest occupied one), the extent of the data at a
 * resolution the noise allows: the aligned dyadic blocks of its s level-2 buckets (sizes 1, 2, 4,
 * …, s) whose noisy sum passes VALUE_SIGMAS·σ₂·√size show data inside them, so the data reaches
 * at least each such block's inner end; the outermost of those ends is returned (a bucket index,
 * from = to; highest for the top octave, lowest for the bottom). The bar is raised so that all
 * the blocks of an empty stretch pass with probability under EDGE_FALSE_RATE. Post-processing of level 2.
 * undefined when no block passes.
 */
export function edgeBlock(
  noisy: ArrayLike<number>,
  sigma: number,
  side: 'top' | 'bottom',
): { readonly from: number; readonly to: number } | undefined {
  const s = noisy.length;
  // About 2s blocks are tested: each bar at Q⁻¹(EDGE_FALSE_RATE / 2s) keeps the chance that any
  // block of an empty stretch passes under EDGE_FALSE_RATE (union bound).
  const z = Math.max(VALUE_SIGMAS, normalUpperTailInverse(EDGE_FALSE_RATE / (2 * s)));
  let best: { from: number; to: number } | undefined;
  for (let size = 1; size <= s; size *= 2) {
    for (let start = 0; start + size <= s; start += size) {
      let sum = 0;
      for (let i = start; i < start + size; i++) sum += noisy[i];
      if (!(sum > z * sigma * Math.sqrt(size))) continue;
      // A block that passes shows data somewhere inside it: the data reaches at least its
      // inner end (its lowest bucket for the top octave), not necessarily its outer one.
      const reach = side === 'top' ? start : start + size - 1;
      if (!best || (side === 'top' ? reach > best.to : reach < best.from)) best = { from: reach, to: reach };
    }
  }
  return best;
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

/** Noisy counts clipped at 0 and scaled to sum to `total` (post-processing). */
export function clipAndScale(c: ArrayLike<number>, total: number): Float64Array {
  const out = Float64Array.from(c, (x) => (x > 0 ? x : 0));
  const sum = out.reduce((a, x) => a + x, 0);
  if (!(sum > 0) || !(total > 0)) return out.fill(0);
  return out.map((x) => (x * total) / sum);
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
  /** The missing/text cells' noisy count and σ, and whether the missing category was released. */
  readonly missing: { readonly count: number; readonly sigma: number; readonly released: boolean };
  /** The raw noisy histograms behind the column (public), for its one-way marginal (one-way.ts). */
  readonly measured: NumericMeasured;
}

/** One level-2 bucket as measured: its value range [lo, hi) and its noisy count (σ₂). */
export interface MeasuredBucket {
  readonly lo: number;
  readonly hi: number;
  readonly count: number;
}

/**
 * Discovery's noisy counts of a numeric column, unclipped (public outputs of levels 1 and 2): each
 * occupied octave's level-1 total (σ₁) and its level-2 buckets (σ₂ each), the zero bucket's
 * level-1 count when 0 is occupied, and the missing/text count (σ √2·σ₁).
 */
export interface NumericMeasured {
  readonly level1Sigma: number;
  readonly level2Sigma: number;
  readonly octaves: readonly { readonly total: number; readonly buckets: readonly MeasuredBucket[] }[];
  readonly zero?: number;
  readonly missing: { readonly count: number; readonly sigma: number };
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
  const edges = new Set([occupied[0], occupied[occupied.length - 1]]);
  // A column whose occupied octaves hold more than WIDE_INTEGERS integers is measured coarsely in
  // its small edge tails too (see below).
  const span = occupied.reduce((a, b) => a + (b === ZERO_BUCKET ? 1 : integersIn(b)), 0);
  const wide = span > WIDE_INTEGERS;
  const splits = occupied.map((b) => {
    if (b === ZERO_BUCKET) return 0;
    // An edge octave of more than EDGE_ATOM_INTEGERS integers that is a tail holds no atoms: it is
    // measured in buckets that expect EDGE_BUCKET_SIGMAS·σ₂ records each, so its shape and its
    // end show above the noise (one bucket per integer left adult.data's ages 68–90, 20–150
    // records each, under σ₂ = 102 at ε = 1).
    // Only a tail (≤ EDGE_TAIL_SHARE of the numbers): hours-per-week's [32, 64), the top octave at
    // ε = 0.1, holds the atom at 40 (47% of the records), which buckets of 4 integers smeared
    // over 40–43 (KS 0.34).
    // A small edge octave (≤ EDGE_ATOM_INTEGERS integers) of a wide column is such a tail too:
    // hours-per-week's [8, 16) at ε = 1 (1,086 records over 8 integers, 11–404 each, σ₂ ≈ 106)
    // was measured integer by integer, its lower half came out as noise, the range was trimmed
    // to 12–15 and 2.3% of the records moved up (KS 0.023–0.030 on 3 of 6 seeds, 0.016 at most
    // in buckets of 4).
    const tail = l1.octaves[b] <= EDGE_TAIL_SHARE * l1.numbers;
    const coarse = integersIn(b) > EDGE_ATOM_INTEGERS || wide;
    if (integer && tail && edges.has(b) && coarse && occupied.length > 1) {
      const wanted = largestPowerOfTwoAtMost(l1.octaves[b] / (EDGE_BUCKET_SIGMAS * level2.sigma));
      return Math.min(largestPowerOfTwoAtMost(integersIn(b)), wanted);
    }
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
  const missing = missingEstimate(l1);
  const starts: number[] = [];
  at = 0;
  for (const s of splits) {
    starts.push(at);
    at += s;
  }
  const measured: NumericMeasured = {
    level1Sigma: l1.sigma,
    level2Sigma: level2.sigma,
    octaves: occupied.flatMap((b, i) => {
      if (b === ZERO_BUCKET) return [];
      const { lo, hi } = octaveRange(b);
      const width = (hi - lo) / splits[i];
      const buckets = Array.from({ length: splits[i] }, (_, g) => ({
        lo: lo + g * width,
        hi: g === splits[i] - 1 ? hi : lo + (g + 1) * width,
        count: noisy[starts[i] + g],
      }));
      return [{ total: l1.octaves[b], buckets }];
    }),
    ...(occupied.includes(ZERO_BUCKET) ? { zero: l1.octaves[ZERO_BUCKET] } : {}),
    missing: { count: missing.count, sigma: missing.sigma },
  };
  const values = integer ? releasedValues(occupied, splits, starts, noisy, l1, level2.sigma) : undefined;
  if (values) {
    const column = valueColumn(counts.name, values, missing.released);
    return { column, level2Sigma: level2.sigma, level2Buckets: exact.length, missing, measured };
  }
  // Edge octaves: buckets beyond the outermost occupied dyadic block are empty (edgeBlock); an
  // edge octave with no such block is kept whole when level 1 found it on its own (above
  // OCCUPIED_SIGMAS·σ₁), and dropped when only the neighbour bar let it in.
  const keep = new Map<number, { from: number; to: number }>();
  const dropped = new Set<number>();
  for (const [side, i] of [
    ['bottom', 0],
    ['top', occupied.length - 1],
  ] as const) {
    const b = occupied[i];
    const s = splits[i];
    if (b === ZERO_BUCKET || s === 0) continue;
    // Level 2 must resolve the octave for its end to show: its count at least
    // EDGE_TRIM_SIGMAS·σ₂·√s (the whole octave's level-2 sum that significant). Otherwise the
    // octave is kept whole (at ε = 0.1 on adult.data a block inside hours-per-week's [16, 32)
    // passed on noise and the bound moved to 32, clamping 15% of the records).
    if (!(l1.octaves[b] >= EDGE_TRIM_SIGMAS * level2.sigma * Math.sqrt(s))) continue;
    // Only a tail is trimmed: an edge octave holding more than EDGE_TAIL_SHARE of the numbers is
    // the bulk of the column (hours-per-week's [32, 64) at ε = 0.1, where [64, 128) is not found),
    // and a bound inside it that noise put too low would clamp much of the data.
    if (!(l1.octaves[b] <= EDGE_TAIL_SHARE * l1.numbers)) continue;
    const block = edgeBlock(noisy.subarray(starts[i], starts[i] + s), level2.sigma, side);
    const range = keep.get(b) ?? { from: 0, to: s - 1 };
    if (block) {
      if (side === 'top') range.to = Math.min(range.to, block.to);
      else range.from = Math.max(range.from, block.from);
      // The octave's level-1 count must be explained by the buckets kept: while what is left of
      // it passes EXPLAIN_SIGMAS of its σ, the range grows by a bucket outwards (adult.data's age
      // at ε = 1: the blocks alone stop at 67, leaving 900 records of 68–90 unexplained).
      const octave = noisy.subarray(starts[i], starts[i] + s);
      const unexplained = () => {
        let sum = 0;
        for (let g = range.from; g <= range.to; g++) sum += octave[g];
        const sigma = Math.sqrt(l1.sigma ** 2 + (range.to - range.from + 1) * level2.sigma ** 2);
        return l1.octaves[b] - sum > EXPLAIN_SIGMAS * sigma;
      };
      // …and only onto a bucket whose own noisy count is positive (past the data's end the
      // leftover is noise, often above the bar for many steps in a row; a bucket of noise alone
      // is positive half the time, so the range stops within a bucket or two of the end).
      // …or, when that bucket's count is not positive, while the buckets left outside still sum
      // above OUTSIDE_SIGMAS of their σ (a tail of small counts under the noise: hours-per-week's
      // 8–11 at ε = 1 stopped at a negative 11 with 450 records beyond it).
      const outside = () => {
        const [from, to] = side === 'top' ? [range.to + 1, s - 1] : [0, range.from - 1];
        let sum = 0;
        for (let g = from; g <= to; g++) sum += octave[g];
        return sum > OUTSIDE_SIGMAS * level2.sigma * Math.sqrt(to - from + 1);
      };
      const grows = (g: number) => octave[g] > 0 || outside();
      if (side === 'top') while (range.to < s - 1 && unexplained() && grows(range.to + 1)) range.to++;
      else while (range.from > 0 && unexplained() && grows(range.from - 1)) range.from--;
      keep.set(b, range);
    } else if (!(l1.octaves[b] > OCCUPIED_SIGMAS * l1.sigma) && occupied.length > 1) {
      dropped.add(b);
    }
  }
  const pieces: NumericPiece[] = [];
  occupied.forEach((b, i) => {
    if (dropped.has(b)) return;
    const total = Math.max(0, l1.octaves[b]);
    if (b === ZERO_BUCKET) {
      pieces.push({ lo: 0, hi: integer ? 1 : 0, weight: total });
      return;
    }
    const s = splits[i];
    const range = keep.get(b) ?? { from: 0, to: s - 1 };
    const inRange = Float64Array.from(noisy.subarray(starts[i], starts[i] + s), (c, g) =>
      g < range.from || g > range.to ? Number.NEGATIVE_INFINITY : c,
    );
    // Inside an edge octave's occupied range the buckets are a tail of decreasing counts, many of
    // them under σ₂: the projection would give its whole total to the few largest (adult.data's
    // age: everything above 67 moved to 64–67, KS 0.026), so there the noisy counts are clipped
    // at 0 and scaled to the total instead (post-processing either way).
    const shares = keep.has(b) ? clipAndScale(inRange, total) : projectOntoSimplex(inRange, total);
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
  if (pieces.length === 0) pieces.push({ lo: 0, hi: integer ? 1 : 0, weight: 1 });
  const binned = binPieces(counts.name, pieces, integer, opts.bins);
  const column = missing.released ? binned : { ...binned, missing: false, fallbackCode: heaviestBin(binned) };
  return { column, level2Sigma: level2.sigma, level2Buckets: exact.length, missing, measured };
}

/** The bin holding the most piece weight (where a record with no released place goes). */
export function heaviestBin(column: NumericColumn): number {
  const mass = new Float64Array(column.edges.length - 1);
  for (const p of column.pieces ?? []) {
    let b = 0;
    while (b + 1 < mass.length && column.edges[b + 1] <= p.lo) b++;
    mass[b] += p.weight;
  }
  let best = 0;
  for (let b = 1; b < mass.length; b++) if (mass[b] > mass[best]) best = b;
  return best;
}

/**
 * An integer column whose every occupied octave was measured integer by integer is released
 * value by value when at most MAX_VALUES integers have a noisy count above VALUE_SIGMAS·σ₂ (0:
 * level 1's count above VALUE_SIGMAS·σ₁) and the records they leave out (level 1's numbers minus
 * their noisy counts), plus one σ of that estimate, are under 1/MAX_VALUES of the numbers: those integers, weighted by their noisy counts, and nothing
 * between them. Post-processing of levels 1 and 2. undefined otherwise.
 */
function releasedValues(
  occupied: readonly number[],
  splits: readonly number[],
  starts: readonly number[],
  noisy: Float64Array,
  l1: Level1,
  sigma2: number,
): { value: number; weight: number }[] | undefined {
  const values: { value: number; weight: number }[] = [];
  for (let i = 0; i < occupied.length; i++) {
    const b = occupied[i];
    if (b === ZERO_BUCKET) {
      if (l1.octaves[b] > VALUE_SIGMAS * l1.sigma) values.push({ value: 0, weight: l1.octaves[b] });
      continue;
    }
    const { lo, hi } = octaveRange(b);
    if (splits[i] !== integersIn(b) || !(hi - lo <= ATOM_INTEGERS)) return undefined;
    for (let g = 0; g < splits[i]; g++) {
      const c = noisy[starts[i] + g];
      if (c > VALUE_SIGMAS * sigma2) values.push({ value: Math.ceil(lo) + g, weight: c });
    }
  }
  if (values.length === 0 || values.length > MAX_VALUES) return undefined;
  // What the released integers leave out, from level 1's count of numbers (σ √2·σ₁) minus their
  // noisy counts: its estimate plus one σ must be under 1/MAX_VALUES of the numbers. (The sum of
  // the other buckets' noisy counts carries √buckets·σ₂: at ε = 0.1 on adult.data it let
  // capital-gain through as the single value 0.)
  const held = values.reduce((a, v) => a + v.weight, 0);
  const left = l1.numbers - held;
  const sigma = Math.sqrt(2 * l1.sigma ** 2 + values.length * Math.max(sigma2, l1.sigma) ** 2);
  if (!(left + sigma < l1.numbers / MAX_VALUES)) return undefined;
  return values.sort((a, b) => a.value - b.value);
}

/**
 * A column of released integers: one bin per value, its edge halfway to the previous value, and
 * one single-point piece per bin, so decoding gives the value itself.
 */
function valueColumn(
  name: string,
  values: readonly { value: number; weight: number }[],
  missing: boolean,
): NumericColumn {
  const total = values.reduce((a, v) => a + v.weight, 0);
  const edges = values.map((v, i) => (i === 0 ? v.value : Math.ceil((values[i - 1].value + v.value) / 2)));
  const last = values[values.length - 1].value;
  edges.push(values.length === 1 ? last + 1 : last);
  if (values.length > 1 && edges[edges.length - 2] === last) edges[edges.length - 1] = last + 1;
  const pieces = values.map((v) => ({ lo: v.value, hi: v.value, weight: v.weight / total }));
  const column: NumericColumn = {
    name,
    kind: 'numeric',
    edges,
    integer: true,
    missing,
    pieces,
    valueByValue: true,
  };
  if (missing) return column;
  let heaviest = 0;
  values.forEach((v, i) => {
    if (v.weight > values[heaviest].weight) heaviest = i;
  });
  return { ...column, fallbackCode: heaviest };
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
