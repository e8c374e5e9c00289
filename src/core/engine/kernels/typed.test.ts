/** The typed kernels against the reference surrogate (src/core/workload/surrogate.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tableSize, targetToLocalIndex, thresholdSizes } from '../../workload/queries.ts';
import {
  surrogateSelectedAnswers,
  surrogateSelectedGradient,
  surrogateThresholdAnswers,
} from '../../workload/surrogate.ts';
import type { Threshold } from '../../workload/types.ts';
import { type RelaxedShape, toColumnMajor, toRowMajor } from '../relaxed.ts';
import { groupsFromLabels, maxAbsDiff, randomRelaxed, smallShape } from '../testing.ts';
import { cellGroups, groupedDims, groupTable } from './grouped-tables.ts';
import { queryGroupLoss } from './query-gradient.ts';
import { tableTarget } from './session.ts';
import { sparseRows } from './sparse-rows.ts';
import { SIMPLEX_TOLERANCE, thresholdAnswers } from './threshold-answers.ts';
import { typedKernels } from './typed.ts';

const SIZES = [3, 2, 4, 1, 5];

/** A threshold over SIZES with k distinct features and 1 ≤ r ≤ k. */
const thresholds = fc
  .uniqueArray(fc.integer({ min: 0, max: SIZES.length - 1 }), { minLength: 1, maxLength: 4 })
  .chain((features) =>
    fc.record({
      features: fc.constant(features),
      r: fc.integer({ min: 1, max: features.length }),
      weight: fc.constant(1),
    }),
  );

function reference(values: Float64Array, shape: RelaxedShape): Float32Array {
  return Float32Array.from(toRowMajor(values, shape));
}

/** The same D' rounded to float32, as the reference reads it. */
function asFloat32(values: Float64Array): Float64Array {
  return Float64Array.from(Float32Array.from(values));
}

describe('typed threshold tables', () => {
  it('equal the reference surrogate answers off the simplex (per-term tables)', () => {
    fc.assert(
      fc.property(thresholds, fc.integer({ min: 1, max: 1000 }), (t, seed) => {
        const shape = smallShape(SIZES, 9);
        const values = asFloat32(randomRelaxed(shape, seed, false));
        const sp = sparseRows(values, shape);
        expect(sp.simplexDeviation).toBeGreaterThan(SIMPLEX_TOLERANCE);
        const ref = surrogateThresholdAnswers(reference(values, shape), shape.rows, shape.layout, t);
        expect(maxAbsDiff(thresholdAnswers(sp, shape.layout, t), ref)).toBeLessThan(1e-9);
      }),
      { numRuns: 40 },
    );
  });

  it('equal the reference surrogate answers on the simplex (one k-way table)', () => {
    fc.assert(
      fc.property(thresholds, fc.integer({ min: 1, max: 1000 }), (t, seed) => {
        const shape = smallShape(SIZES, 9);
        const values = randomRelaxed(shape, seed);
        const sp = sparseRows(values, shape);
        expect(sp.simplexDeviation).toBeLessThanOrEqual(SIMPLEX_TOLERANCE);
        // The reference reads float32: agreement to float32 precision.
        const ref = surrogateThresholdAnswers(reference(values, shape), shape.rows, shape.layout, t);
        expect(maxAbsDiff(thresholdAnswers(sp, shape.layout, t), ref)).toBeLessThan(1e-6);
      }),
      { numRuns: 40 },
    );
  });

  it('know whether every block sums to 1', () => {
    const shape = smallShape([2, 2, 2], 50);
    expect(sparseRows(randomRelaxed(shape, 1), shape).simplexDeviation).toBeLessThan(1e-12);
    expect(sparseRows(randomRelaxed(shape, 1, false), shape).simplexDeviation).toBeGreaterThan(0.1);
  });
});

describe('typed selected-query loss and gradient', () => {
  it('equal the reference answers and gradient for any k and r', () => {
    fc.assert(
      fc.property(thresholds, fc.integer({ min: 1, max: 1000 }), (t, seed) => {
        const shape = smallShape(SIZES, 6);
        const values = asFloat32(randomRelaxed(shape, seed));
        const dims = thresholdSizes(t, SIZES);
        const locals = [0, tableSize(dims) - 1, Math.floor(tableSize(dims) / 2)];
        const targets = Float64Array.from(locals, (_, i) => 0.1 * i);
        const weights = Float64Array.from(locals, () => 0.7);
        const columns = Int32Array.from(
          locals.flatMap((local) => {
            let rest = local;
            const y = dims.map(() => 0);
            for (let j = dims.length - 1; j >= 0; j--) {
              y[j] = rest % dims[j];
              rest = Math.floor(rest / dims[j]);
            }
            return t.features.map((f, j) => shape.layout.offsets[f] + y[j]);
          }),
        );
        const group = { k: t.features.length, r: t.r, count: locals.length, columns, weights, targets };
        const grad = new Float64Array(values.length);
        const acc = { loss: 0, maxError: 0 };
        const answers = new Float64Array(locals.length);
        queryGroupLoss(values, shape.rows, group, 1, grad, acc, answers);
        const ref = surrogateSelectedAnswers(reference(values, shape), shape.rows, shape.layout, t, locals);
        expect(maxAbsDiff(answers, ref)).toBeLessThan(1e-9);
        const residual = locals.map((_, i) => ref[i] - targets[i]);
        expect(acc.loss).toBeCloseTo(
          residual.reduce((s, d) => s + 0.7 * d * d, 0),
          9,
        );
        expect(acc.maxError).toBeCloseTo(Math.max(...residual.map(Math.abs)), 9);
        const refGrad = surrogateSelectedGradient(
          reference(values, shape),
          shape.rows,
          shape.layout,
          locals.map((local, i) => ({ threshold: t, local, coeff: 2 * 0.7 * residual[i] })),
        );
        expect(maxAbsDiff(toRowMajor(grad, shape), refGrad)).toBeLessThan(1e-6);
      }),
      { numRuns: 60 },
    );
  });
});

describe('typed table loss and gradient', () => {
  it('equal the reference gradient summed over every query of the threshold', () => {
    fc.assert(
      fc.property(thresholds, fc.integer({ min: 1, max: 1000 }), (t: Threshold, seed) => {
        const shape = smallShape(SIZES, 5);
        const values = asFloat32(randomRelaxed(shape, seed));
        const dims = thresholdSizes(t, SIZES);
        const size = tableSize(dims);
        const measured = Float64Array.from({ length: size }, (_, y) => (y % 3) * 0.2);
        const session = typedKernels.open(shape, values);
        const result = session.lossAndGradient({
          groups: [],
          tables: [{ threshold: t, weight: 0.5, measured }],
        });
        const rowMajor = reference(values, shape);
        const locals = Array.from({ length: size }, (_, y) => y);
        const ref = surrogateSelectedAnswers(rowMajor, shape.rows, shape.layout, t, locals);
        const loss = locals.reduce((s, y) => s + 0.5 * (ref[y] - measured[y]) ** 2, 0);
        expect(result.loss).toBeCloseTo(loss, 9);
        const refGrad = surrogateSelectedGradient(
          rowMajor,
          shape.rows,
          shape.layout,
          locals.map((y) => ({ threshold: t, local: y, coeff: 2 * 0.5 * (ref[y] - measured[y]) })),
        );
        expect(maxAbsDiff(toRowMajor(session.readGradient(), shape), refGrad)).toBeLessThan(1e-6);
        session.dispose();
      }),
      { numRuns: 40 },
    );
  });
});

describe('typed grouped table loss and gradient', () => {
  /** A marginal over SIZES, and for each of its features either no grouping or a random one. */
  const grouped = fc
    .uniqueArray(fc.integer({ min: 0, max: SIZES.length - 1 }), { minLength: 1, maxLength: 3 })
    .chain((features) =>
      fc.record({
        features: fc.constant(features),
        groups: fc.tuple(
          ...features.map((f) =>
            fc.option(fc.array(fc.integer({ min: 0, max: 2 }), { minLength: SIZES[f], maxLength: SIZES[f] })),
          ),
        ),
      }),
    );

  it('equal the reference gradient of the grouped cells (each cell a sum of table cells)', () => {
    fc.assert(
      fc.property(grouped, fc.integer({ min: 1, max: 1000 }), ({ features, groups }, seed) => {
        const t: Threshold = { features, r: features.length, weight: 1 };
        const grouping = groups.map((g) => (g ? groupsFromLabels(g) : undefined));
        const shape = smallShape(SIZES, 6);
        const values = asFloat32(randomRelaxed(shape, seed));
        const dims = thresholdSizes(t, SIZES);
        const cells = cellGroups(dims, grouping);
        const count = tableSize(groupedDims(dims, grouping));
        const measured = Float64Array.from({ length: count }, (_, c) => ((c % 4) * 0.3) / count);
        const session = typedKernels.open(shape, values);
        const result = session.lossAndGradient({
          groups: [],
          tables: [tableTarget(t, 0.7, measured, grouping)],
        });
        const rowMajor = reference(values, shape);
        const locals = Array.from({ length: cells.length }, (_, y) => y);
        const fine = surrogateSelectedAnswers(rowMajor, shape.rows, shape.layout, t, locals);
        const sums = groupTable(Float64Array.from(fine), cells, count);
        const loss = sums.reduce((s, x, c) => s + 0.7 * (x - measured[c]) ** 2, 0);
        expect(result.loss).toBeCloseTo(loss, 6);
        const refGrad = surrogateSelectedGradient(
          rowMajor,
          shape.rows,
          shape.layout,
          locals.map((y) => ({
            threshold: t,
            local: y,
            coeff: 2 * 0.7 * (sums[cells[y]] - measured[cells[y]]),
          })),
        );
        expect(maxAbsDiff(toRowMajor(session.readGradient(), shape), refGrad)).toBeLessThan(1e-6);
        session.dispose();
      }),
      { numRuns: 40 },
    );
  });

  it('refuse a grouped target that is not a marginal (where the target is made)', () => {
    const grouping = [{ of: Int32Array.from([0, 0, 1]), count: 2 }, undefined];
    const threshold = { features: [0, 1], r: 1, weight: 1 };
    expect(() => tableTarget(threshold, 1, new Float64Array(4), grouping)).toThrow(/marginal/);
    // Without a merge the target is a plain threshold table (any r).
    expect(tableTarget(threshold, 1, new Float64Array(6), [undefined, undefined]).grouping).toBeUndefined();
  });
});

describe('typed session', () => {
  it('moves only the columns of selected queries and keeps D on the simplex', () => {
    const shape = smallShape([3, 4, 2], 20);
    const initial = randomRelaxed(shape, 9);
    const session = typedKernels.open(shape, initial);
    // One 2-way query on features 0 and 2 (target (1, 0)).
    const group = {
      k: 2,
      r: 2,
      count: 1,
      columns: Int32Array.from([shape.layout.offsets[0] + 1, shape.layout.offsets[2]]),
      weights: Float64Array.from([1]),
      targets: Float64Array.from([0.9]),
    };
    const before = session.lossAndGradient({ groups: [group], tables: [] }).loss;
    for (let s = 0; s < 50; s++) {
      session.lossAndGradient({ groups: [group], tables: [] });
      session.adamStep({ learningRate: 0.05, beta1: 0.9, beta2: 0.999, epsilon: 1e-12 });
      session.project();
    }
    const after = session.lossAndGradient({ groups: [group], tables: [] }).loss;
    expect(after).toBeLessThan(before / 10);
    const values = session.read();
    const block1 = shape.layout.offsets[1] * shape.rows;
    expect([...values.subarray(block1, block1 + 4 * shape.rows)]).toEqual([
      ...initial.subarray(block1, block1 + 4 * shape.rows),
    ]);
    expect(sparseRows(values, shape).simplexDeviation).toBeLessThan(1e-9);
    const answer = surrogateThresholdAnswers(
      Float32Array.from(toRowMajor(values, shape)),
      shape.rows,
      shape.layout,
      { features: [0, 2], r: 2, weight: 1 },
    )[targetToLocalIndex([1, 0], [3, 2])];
    expect(answer).toBeGreaterThan(0.8);
    expect(toColumnMajor(toRowMajor(values, shape), shape)).toEqual(values);
  });
});
