/**
 * The one-hot layout: the single place that decides where each feature's block lives in a
 * relaxed (or one-hot) row of width d'. Everything that indexes one-hot columns asks here.
 */
import { domainSizes, type EncodedDataset, type Schema } from './schema.ts';

export interface OneHotLayout {
  /** Domain size of each feature, in schema column order. */
  readonly sizes: readonly number[];
  /** offsets[j] = first one-hot column of feature j; block j is [offsets[j], offsets[j] + sizes[j]). */
  readonly offsets: readonly number[];
  /** Total one-hot width d'. */
  readonly width: number;
}

export function layoutFromSizes(sizes: readonly number[]): OneHotLayout {
  const offsets: number[] = [];
  let width = 0;
  for (const s of sizes) {
    if (!Number.isInteger(s) || s < 1)
      throw new Error(`one-hot layout: domain size must be a positive integer, got ${s}`);
    offsets.push(width);
    width += s;
  }
  return { sizes: [...sizes], offsets, width };
}

export function layoutOf(schema: Schema): OneHotLayout {
  return layoutFromSizes(domainSizes(schema));
}

/** Column of the one-hot matrix for feature j taking category v. */
export function oneHotColumn(layout: OneHotLayout, feature: number, value: number): number {
  return layout.offsets[feature] + value;
}

/** Dense row-major n × d' one-hot matrix of a dataset (tests and small data only). */
export function oneHotMatrix(
  data: EncodedDataset,
  layout: OneHotLayout = layoutOf(data.schema),
): Float32Array {
  const out = new Float32Array(data.n * layout.width);
  data.codes.forEach((codes, j) => {
    const off = layout.offsets[j];
    for (let i = 0; i < data.n; i++) out[i * layout.width + off + codes[i]] = 1;
  });
  return out;
}
