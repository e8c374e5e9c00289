/**
 * Test fixtures for the workload module: small random categorical datasets and relaxed data,
 * built directly (no CSV), plus brute-force oracles that evaluate the definitions literally.
 */

import { layoutFromSizes, type OneHotLayout } from '../data/onehot.ts';
import { domainSize, type EncodedDataset, type Schema } from '../data/schema.ts';
import { seededRng } from './prng.ts';
import { localIndexToTarget, tableSize } from './queries.ts';
import type { Threshold } from './types.ts';

export function categoricalSchema(sizes: readonly number[]): Schema {
  return {
    version: 1,
    origin: 'declared',
    columns: sizes.map((s, j) => ({
      kind: 'categorical',
      name: `f${j}`,
      missing: false,
      categories: Array.from({ length: s }, (_, v) => `c${v}`),
    })),
  };
}

/** A dataset with the given codes per column (column-major). */
export function datasetFromCodes(
  sizes: readonly number[],
  columns: readonly (readonly number[])[],
): EncodedDataset {
  const n = columns[0]?.length ?? 0;
  return { schema: categoricalSchema(sizes), n, codes: columns.map((c) => Uint8Array.from(c)) };
}

export function randomDataset(sizes: readonly number[], n: number, seed: number): EncodedDataset {
  const rng = seededRng(seed);
  return datasetFromCodes(
    sizes,
    sizes.map((s) => Array.from({ length: n }, () => Math.floor(rng() * s))),
  );
}

/** Fraction of rows with at least r of the features equal to the target, row by row. */
export function bruteForceAnswers(data: EncodedDataset, t: Threshold): Float64Array {
  const dims = t.features.map((f) => domainSize(data.schema.columns[f]));
  const out = new Float64Array(tableSize(dims));
  for (let q = 0; q < out.length; q++) {
    const y = localIndexToTarget(q, dims);
    let hits = 0;
    for (let i = 0; i < data.n; i++) {
      let matches = 0;
      t.features.forEach((f, j) => {
        if (data.codes[f][i] === y[j]) matches++;
      });
      if (matches >= t.r) hits++;
    }
    out[q] = hits / data.n;
  }
  return out;
}

/** n' relaxed rows, each feature block a random point of the simplex (normalized exponentials). */
export function randomRelaxed(
  sizes: readonly number[],
  nRows: number,
  seed: number,
): { D: Float32Array; layout: OneHotLayout } {
  const layout = layoutFromSizes(sizes);
  const rng = seededRng(seed);
  const D = new Float32Array(nRows * layout.width);
  for (let row = 0; row < nRows; row++) {
    sizes.forEach((s, j) => {
      const e = Array.from({ length: s }, () => -Math.log(1 - rng()));
      const total = e.reduce((a, b) => a + b, 0);
      e.forEach((v, c) => {
        D[row * layout.width + layout.offsets[j] + c] = v / total;
      });
    });
  }
  return { D, layout };
}

/**
 * The multilinear extension of "at least r of k" at p: the probability that at least r of k
 * independent Bernoulli(p_j) succeed (Poisson-binomial tail), by dynamic programming. An
 * oracle independent of inclusion–exclusion.
 */
export function poissonBinomialTail(p: readonly number[], r: number): number {
  let dist = [1];
  for (const pj of p) {
    const next = new Array<number>(dist.length + 1).fill(0);
    dist.forEach((v, m) => {
      next[m] += v * (1 - pj);
      next[m + 1] += v * pj;
    });
    dist = next;
  }
  return dist.slice(r).reduce((a, b) => a + b, 0);
}
