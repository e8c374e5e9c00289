/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) for PUBLIC randomness only: random
 * workloads and drift. Workloads are public, so this is not privacy noise — that comes only from
 * src/core/privacy (node:crypto).
 */

export type Rng = () => number;

function splitmix32(state: number): () => number {
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Uniform numbers in [0, 1) from a non-negative integer seed (up to 2^53). */
export function seededRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`seed must be an integer in 0..2^53, got ${seed}`);
  const mix = splitmix32((seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32), 0x27d4eb2d));
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next(); // let the state mix before use
  return () => next() / 2 ** 32;
}
