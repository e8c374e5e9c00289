/** Test fixtures for the engine: small layouts, random relaxed data, tiny runs. */

import { type CountedDataset, tableKey } from '../data/counted.ts';
import { layoutFromSizes } from '../data/onehot.ts';
import { domainSize, type EncodedDataset } from '../data/schema.ts';
import { seededNoise } from '../privacy/noise.ts';
import type { GmTablesBaseline } from './baselines/gm-tables.ts';
import type { CategoryGroups } from './kernels/grouped-tables.ts';
import { projectRelaxed } from './kernels/sparsemax.ts';
import type { RelaxedShape } from './relaxed.ts';

export function smallShape(sizes: readonly number[], rows: number): RelaxedShape {
  return { rows, layout: layoutFromSizes(sizes) };
}

/**
 * Column-major random D': uniform entries, projected unless `projected` is false. With
 * `sparsity` a share of the raw entries is pushed down, so blocks have several zeros.
 */
export function randomRelaxed(shape: RelaxedShape, seed: number, projected = true): Float64Array {
  const noise = seededNoise(seed);
  const values = new Float64Array(shape.rows * shape.layout.width);
  for (let i = 0; i < values.length; i++) values[i] = 2 * noise.uniform();
  if (projected) projectRelaxed(values, shape);
  return values;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Category groups from arbitrary labels per category, renumbered 0 … count − 1 (none empty). */
export function groupsFromLabels(labels: readonly number[]): CategoryGroups {
  const ids = [...new Set(labels)].sort((a, b) => a - b);
  return { of: Int32Array.from(labels, (x) => ids.indexOf(x)), count: ids.length };
}

/** A report's GM baseline for fixtures (one 4-cell table, exact expected max error `mean`). */
export function fakeGmBaseline(mean: number): GmTablesBaseline {
  return {
    rho: 0.01,
    n: 100,
    tables: 1,
    cells: 4,
    l2Sensitivity: Math.SQRT2 / 100,
    sigma: 0.1,
    expectedMaxError: { mean, standardError: 0, method: 'exact', repetitions: 0 },
  };
}

/** The table over `features` (any order) by counting rows one by one. */
export function bruteTable(data: EncodedDataset, features: readonly number[]): Float64Array {
  const dims = features.map((f) => domainSize(data.schema.columns[f]));
  const out = new Float64Array(dims.reduce((p, d) => p * d, 1));
  for (let i = 0; i < data.n; i++) {
    let cell = 0;
    features.forEach((f, j) => {
      cell = cell * dims[j] + data.codes[f][i];
    });
    out[cell]++;
  }
  return out;
}

/** The counted form of `data` over the given ascending feature sets, counted row by row. */
export function bruteCounted(data: EncodedDataset, sets: readonly (readonly number[])[]): CountedDataset {
  const tables = new Map(sets.map((s) => [tableKey(s), bruteTable(data, s)] as const));
  return { kind: 'counted', schema: data.schema, n: data.n, tables };
}
