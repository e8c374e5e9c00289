/**
 * A small relaxed dataset and a projection batch that exercises every kernel path (selected
 * queries of several k and r, a 2-of-4 table, a grouped marginal): the tests of every backend
 * compare their sessions with the typed kernels on it.
 */
import { tableSize, thresholdSizes } from '../../workload/queries.ts';
import type { Threshold } from '../../workload/types.ts';
import { smallShape } from '../testing.ts';
import { type ProjectionBatch, type QueryGroup, tableTarget } from './session.ts';

export const SIZES = [3, 2, 4, 1, 5];
export const shape = smallShape(SIZES, 12);

export const thresholds: Threshold[] = [
  { features: [2], r: 1, weight: 1 },
  { features: [0, 4], r: 2, weight: 1 },
  { features: [0, 2, 4], r: 1, weight: 1 },
  { features: [1, 2, 3, 4], r: 2, weight: 1 },
];

function group(t: Threshold, locals: number[], targets: number[]): QueryGroup {
  const dims = thresholdSizes(t, SIZES);
  const columns: number[] = [];
  for (const local of locals) {
    let rest = local;
    const y = dims.map(() => 0);
    for (let j = dims.length - 1; j >= 0; j--) {
      y[j] = rest % dims[j];
      rest = Math.floor(rest / dims[j]);
    }
    t.features.forEach((f, j) => {
      columns.push(shape.layout.offsets[f] + y[j]);
    });
  }
  return {
    k: t.features.length,
    r: t.r,
    count: locals.length,
    columns: Int32Array.from(columns),
    weights: Float64Array.from(locals, () => 0.8),
    targets: Float64Array.from(targets),
  };
}

export const batch: ProjectionBatch = {
  groups: [group(thresholds[2], [0, 7, 30], [0.5, 0.1, 0.9]), group(thresholds[1], [1, 14], [0.2, 0.05])],
  tables: [
    {
      threshold: thresholds[3],
      weight: 0.5,
      measured: Float64Array.from(
        { length: tableSize(thresholdSizes(thresholds[3], SIZES)) },
        (_, y) => (y % 5) / 10,
      ),
    },
    // A grouped marginal (table mode): feature 4's five categories in three groups.
    tableTarget(thresholds[1], 0.7, Float64Array.from([0.1, 0.05, 0.2, 0.3, 0, 0.1, 0.1, 0.05, 0.1]), [
      undefined,
      { of: Int32Array.from([0, 1, 1, 2, 2]), count: 3 },
    ]),
  ],
};
