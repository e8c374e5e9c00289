import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NoiseSource, seededNoise } from './noise.ts';
import { gumbelScale, iterativeTopK, NoisyTopK, normalizeWeights, reportNoisyMax } from './selection.ts';
import { chiSquare, chiSquareTwoSample } from './testing/stats.ts';

/** Exact top-K by sorting: larger score first, lower index on ties. */
function sortedTopK(scores: readonly number[], k: number): number[] {
  return scores
    .map((score, index) => ({ score, index }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, k)
    .map((entry) => entry.index);
}

/** Offer `scores` to a fresh NoisyTopK in chunks of the given sizes (the rest in one chunk). */
function offerInChunks(
  top: NoisyTopK,
  scores: readonly number[],
  chunkSizes: readonly number[],
  base = 0,
): void {
  let start = 0;
  for (const size of chunkSizes) {
    if (start >= scores.length) break;
    const end = Math.min(scores.length, start + size);
    top.offer(Float64Array.from(scores.slice(start, end)), base + start);
    start = end;
  }
  if (start < scores.length) top.offer(scores.slice(start), base + start);
}

describe('gumbelScale', () => {
  it('matches hand-computed values w_max · √(K / 2ρ) / n', () => {
    // √(10 / 0.01) = √1000 = 31.6227766…, / 48842
    expect(gumbelScale(0.005, 10, 48842)).toBeCloseTo(0.000647450485272589, 17);
    expect(gumbelScale(0.5, 1, 1000)).toBeCloseTo(0.001, 18);
    // 0.5 · √(50 / 0.04) / 30000
    expect(gumbelScale(0.02, 50, 30000, 0.5)).toBeCloseTo(0.0005892556509887896, 17);
  });

  it('is 2Δ/ε₀ for the exponential mechanism with ε₀ = √(8ρ/K) and Δ = w_max/n (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.double({ min: 1e-3, max: 1, noNaN: true }),
        (rho, K, n, maxWeight) => {
          const epsilon0 = Math.sqrt((8 * rho) / K);
          const sensitivity = maxWeight / n;
          const scale = gumbelScale(rho, K, n, maxWeight);
          expect(Math.abs(scale - (2 * sensitivity) / epsilon0) / scale).toBeLessThan(1e-12);
          // K selections of ε₀²/8-zCDP each compose to ρ.
          expect(Math.abs((K * ((2 * sensitivity) / scale) ** 2) / 8 - rho) / rho).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects bad parameters', () => {
    expect(() => gumbelScale(0, 1, 10)).toThrow(RangeError);
    expect(() => gumbelScale(0.1, 0, 10)).toThrow(RangeError);
    expect(() => gumbelScale(0.1, 1, 0)).toThrow(RangeError);
    expect(() => gumbelScale(0.1, 1, 10, 0)).toThrow(RangeError);
  });
});

describe('normalizeWeights', () => {
  it('divides by the maximum so the largest weight is 1', () => {
    expect(Array.from(normalizeWeights([2, 4, 1]))).toEqual([0.5, 1, 0.25]);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (w) => {
          const normalized = normalizeWeights(w);
          expect(Math.max(...normalized)).toBe(1);
          const max = Math.max(...w);
          for (let i = 0; i < w.length; i++) expect(normalized[i]).toBe(w[i] / max);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects empty, zero, negative and non-finite weights, naming the index', () => {
    expect(() => normalizeWeights([])).toThrow(RangeError);
    expect(() => normalizeWeights([1, 0])).toThrow(/weight 1/);
    expect(() => normalizeWeights([1, -2])).toThrow(/weight 1/);
    expect(() => normalizeWeights([Number.POSITIVE_INFINITY])).toThrow(/weight 0/);
  });
});

describe('NoisyTopK at scale 0 is the exact top-K', () => {
  it('equals sorting for any scores, K and chunking (property)', () => {
    fc.assert(
      fc.property(
        // Small integer scores force many ties.
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 200 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 20 }),
        fc.nat(),
        (scores, chunkSizes, kSeed) => {
          const k = 1 + (kSeed % scores.length);
          const top = new NoisyTopK(k, 0, seededNoise(1));
          offerInChunks(top, scores, chunkSizes);
          expect(top.result()).toEqual(sortedTopK(scores, k));
          expect(iterativeTopK(Float64Array.from(scores), k, 0, seededNoise(1))).toEqual(
            sortedTopK(scores, k),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps indices near 2^53 exact and orders ties by lower index', () => {
    const top = new NoisyTopK(3, 0, seededNoise(1));
    const base = 2 ** 53 - 10;
    top.offer([1, 3, 3, 2, 3], base);
    expect(top.result()).toEqual([base + 1, base + 2, base + 4]);
  });

  it('streams many chunks with O(K) state', () => {
    const top = new NoisyTopK(5, 0, seededNoise(1));
    const chunk = new Float64Array(1000);
    for (let c = 0; c < 100; c++) {
      for (let i = 0; i < chunk.length; i++) chunk[i] = ((c * 7919 + i * 104729) % 1_000_003) / 1_000_003;
      top.offer(chunk, c * chunk.length);
    }
    const all: number[] = [];
    for (let c = 0; c < 100; c++) {
      for (let i = 0; i < chunk.length; i++) all.push(((c * 7919 + i * 104729) % 1_000_003) / 1_000_003);
    }
    expect(top.result()).toEqual(sortedTopK(all, 5));
  });

  it('rejects bad input', () => {
    const noise = seededNoise(1);
    expect(() => new NoisyTopK(0, 1, noise)).toThrow(RangeError);
    expect(() => new NoisyTopK(2, -1, noise)).toThrow(RangeError);
    expect(() => new NoisyTopK(2, 0, noise).offer([1], -1)).toThrow(RangeError);
    expect(() => new NoisyTopK(2, 0, noise).offer([1, Number.NaN], 0)).toThrow(/candidate 1/);
    const tooFew = new NoisyTopK(3, 0, noise);
    tooFew.offer([1, 2], 0);
    expect(() => tooFew.result()).toThrow(/top 3 of only 2/);
    expect(() => iterativeTopK(new Float64Array(2), 3, 0, noise)).toThrow(RangeError);
  });
});

/** Scores and scale of the small example: P(first = i) ∝ exp(score_i / scale). */
const SCORES = [0.9, 0.5, 0.4, 0.1, 0];
const SCALE = 0.3;
const TRIALS = 20_000;
/** χ² critical values at α = 1e-4 (scipy.stats.chi2.ppf(1 − 1e-4, df)). */
const CHI2_CRIT_DF4 = 23.51;
const CHI2_CRIT_DF19 = 50.8;

/** Exact probability of each ordered pair (first, second): Plackett–Luce with weights exp(s/β). */
function orderedPairProbabilities(scores: readonly number[], scale: number): number[] {
  const w = scores.map((s) => Math.exp(s / scale));
  const total = w.reduce((a, b) => a + b, 0);
  const probabilities: number[] = [];
  for (let i = 0; i < w.length; i++) {
    for (let j = 0; j < w.length; j++) {
      if (i !== j) probabilities.push((w[i] / total) * (w[j] / (total - w[i])));
    }
  }
  return probabilities;
}

function pairCounts(select: (noise: NoiseSource) => number[], seed: string): number[] {
  const n = SCORES.length;
  const counts = new Array<number>(n * (n - 1)).fill(0);
  const noise = seededNoise(seed);
  for (let t = 0; t < TRIALS; t++) {
    const [i, j] = select(noise);
    counts[i * (n - 1) + (j < i ? j : j - 1)]++;
  }
  return counts;
}

const oneShot = (scale: number) => (noise: NoiseSource) => {
  const top = new NoisyTopK(2, scale, noise);
  top.offer(SCORES.slice(0, 2), 0);
  top.offer(SCORES.slice(2), 2);
  return top.result();
};
const iterative = (scale: number) => (noise: NoiseSource) =>
  iterativeTopK(Float64Array.from(SCORES), 2, scale, noise);

describe('noisy selection has the exponential-mechanism distribution', () => {
  it('one-shot top-2 (OSAS) matches the exact Plackett–Luce probabilities (χ², 20k trials)', () => {
    const expected = orderedPairProbabilities(SCORES, SCALE);
    expect(chiSquare(pairCounts(oneShot(SCALE), 'osas'), expected)).toBeLessThan(CHI2_CRIT_DF19);
  });

  it('iterative top-2 (AS) matches the same probabilities (χ², 20k trials)', () => {
    const expected = orderedPairProbabilities(SCORES, SCALE);
    expect(chiSquare(pairCounts(iterative(SCALE), 'as'), expected)).toBeLessThan(CHI2_CRIT_DF19);
  });

  it('OSAS and AS agree with each other (two-sample χ²)', () => {
    const a = pairCounts(oneShot(SCALE), 'osas-vs-as-1');
    const b = pairCounts(iterative(SCALE), 'osas-vs-as-2');
    expect(chiSquareTwoSample(a, b)).toBeLessThan(CHI2_CRIT_DF19);
  });

  it('the χ² check has power: twice the noise scale is rejected', () => {
    const expected = orderedPairProbabilities(SCORES, SCALE);
    expect(chiSquare(pairCounts(oneShot(2 * SCALE), 'power'), expected)).toBeGreaterThan(CHI2_CRIT_DF19);
  });

  it('reportNoisyMax picks i with probability ∝ exp(score_i / scale)', () => {
    const noise = seededNoise('rnm');
    const counts = new Array<number>(SCORES.length).fill(0);
    for (let t = 0; t < TRIALS; t++) counts[reportNoisyMax(SCORES, SCALE, noise)]++;
    const w = SCORES.map((s) => Math.exp(s / SCALE));
    const total = w.reduce((a, b) => a + b, 0);
    expect(
      chiSquare(
        counts,
        w.map((x) => x / total),
      ),
    ).toBeLessThan(CHI2_CRIT_DF4);
  });

  it('reportNoisyMax at scale 0 is the argmax, ties to the lower index', () => {
    expect(reportNoisyMax([0.2, 0.7, 0.7, 0.1], 0, seededNoise(1))).toBe(1);
  });
});
