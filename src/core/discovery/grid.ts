/**
 * The public grid that numeric discovery measures on. It depends on nothing but constants, so
 * every bucket is a public key (no partition selection, no δ): a histogram over it is a plain
 * Gaussian mechanism.
 *
 * Level 1 (octaves): the exact value 0, the positive octaves [2^j, 2^{j+1}) and the negative
 * octaves [−2^{j+1}, −2^j) for j = J_MIN … J_MAX, ordered by value (every octave is closed
 * below, so integer pieces are [lo, hi) on both sides of 0). Values below 2^J_MIN in magnitude (not 0) fall in the
 * lowest octave of their sign, values of 2^(J_MAX+1) or more in the highest (clamped).
 * Level 2 (fine buckets): each octave cut into FINE equal-width buckets. Discovery measures
 * coarser unions of them (a power-of-two count per octave, chosen from the level-1 output), so
 * the profile keeps only the fine counts.
 */

export const J_MIN = -20;
export const J_MAX = 60;
/** Octaves per sign. */
export const OCTAVES = J_MAX - J_MIN + 1;
/** Level-1 buckets: negative octaves, zero, positive octaves. */
export const LEVEL1_BUCKETS = 2 * OCTAVES + 1;
export const ZERO_BUCKET = OCTAVES;
/** Fine buckets per octave (1/1024 octave: ≤ 0.1% relative width). */
export const FINE = 1024;

function clampExponent(j: number): number {
  return j < J_MIN ? J_MIN : j > J_MAX ? J_MAX : j;
}

/** j with 2^j ≤ a < 2^{j+1} (a > 0), corrected for log2's rounding near powers of two. */
function floorLog2(a: number): number {
  let j = Math.floor(Math.log2(a));
  if (2 ** j > a) j--;
  else if (2 ** (j + 1) <= a) j++;
  return j;
}

/** Level-1 bucket of x (ascending in value). */
export function octaveBucket(x: number): number {
  if (x === 0) return ZERO_BUCKET;
  if (x > 0) return ZERO_BUCKET + 1 + (clampExponent(floorLog2(x)) - J_MIN);
  // −2^{j+1} ≤ x < −2^j  ⇔  2^j < |x| ≤ 2^{j+1}.
  const a = -x;
  let j = floorLog2(a);
  if (2 ** j === a) j--;
  return ZERO_BUCKET - 1 - (clampExponent(j) - J_MIN);
}

/** The octave exponent j of a non-zero level-1 bucket, and its sign. */
export function octaveOf(bucket: number): { readonly j: number; readonly sign: 1 | -1 } {
  if (bucket === ZERO_BUCKET) throw new RangeError('the zero bucket has no octave');
  return bucket > ZERO_BUCKET
    ? { j: bucket - ZERO_BUCKET - 1 + J_MIN, sign: 1 }
    : { j: ZERO_BUCKET - 1 - bucket + J_MIN, sign: -1 };
}

/** [lo, hi) of a non-zero level-1 bucket. */
export function octaveRange(bucket: number): { readonly lo: number; readonly hi: number } {
  const { j, sign } = octaveOf(bucket);
  return sign > 0 ? { lo: 2 ** j, hi: 2 ** (j + 1) } : { lo: -(2 ** (j + 1)), hi: -(2 ** j) };
}

/** Index in 0..FINE−1 of x's fine bucket inside its (non-zero) octave bucket. */
export function fineBucket(x: number, bucket: number): number {
  const { lo, hi } = octaveRange(bucket);
  const s = Math.floor(((x - lo) / (hi - lo)) * FINE);
  return s < 0 ? 0 : s >= FINE ? FINE - 1 : s;
}
