import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutFromSizes } from '../../data/onehot.ts';
import { seededNoise } from '../../privacy/noise.ts';
import { oneWayRows, simplexEstimate } from './one-way-start.ts';

describe('oneWayRows', () => {
  it('gives one-hot rows whose category counts follow the marginals within one row', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 1000 }),
        (raw, rows, seed) => {
          const total = raw.reduce((a, b) => a + b, 0);
          fc.pre(total > 0.01);
          const p = Float64Array.from(raw, (x) => x / total);
          const layout = layoutFromSizes([p.length, 2]);
          const D = oneWayRows({ rows, layout }, [p, Float64Array.from([1, 0])], seededNoise(seed));
          for (let i = 0; i < rows; i++) {
            let ones = 0;
            for (let c = 0; c < layout.width; c++) ones += D[c * rows + i];
            expect(ones).toBe(2);
            expect(D[layout.offsets[1] * rows + i]).toBe(1);
          }
          p.forEach((share, v) => {
            let count = 0;
            for (let i = 0; i < rows; i++) count += D[v * rows + i];
            expect(Math.abs(count - share * rows)).toBeLessThanOrEqual(1 + 1e-9);
          });
        },
      ),
    );
  });
});

describe('simplexEstimate', () => {
  it('is the least-squares distribution: sums to 1, and beats clip-and-renormalize on a sparse truth', () => {
    const noisy = Float64Array.from({ length: 100 }, (_, i) => (i === 0 ? 0.9 : 0));
    const noise = seededNoise(3);
    for (let i = 0; i < noisy.length; i++) noisy[i] += 0.02 * noise.normal();
    const est = simplexEstimate(noisy);
    expect(est.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const clipped = noisy.map((x) => Math.max(0, x));
    const total = clipped.reduce((a, b) => a + b, 0);
    // Truth: 0.9 in cell 0 (and 0.1 spread elsewhere would also be fine); the clip route loses
    // most of cell 0 to the empty cells' positive noise.
    expect(Math.abs(est[0] - 0.9)).toBeLessThan(Math.abs(clipped[0] / total - 0.9));
    expect(est[0]).toBeGreaterThan(0.85);
  });
});
