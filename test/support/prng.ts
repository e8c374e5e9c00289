/**
 * mulberry32: a tiny seeded 32-bit generator of numbers in [0, 1). Test data only (the e2e census
 * table, the loader fuzz test's mutations), never privacy noise: the same seed always gives the
 * same numbers, so a generated file never changes and a failure reproduces from its seed.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
