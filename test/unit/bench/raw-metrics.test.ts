/** The raw suite's fidelity metrics against hand-computed values. */
import { describe, expect, it } from 'vitest';
import { deciles, fidelity, ks, tv } from '../../../bench/lib/raw-metrics.ts';
import { RAW_SUITES } from '../../../bench/suites/index.ts';

describe('raw metrics', () => {
  it('KS is the largest gap between the two empirical CDFs', () => {
    expect(ks(Float64Array.from([1, 2, 3, 4]), Float64Array.from([1, 2, 3, 4]))).toBe(0);
    expect(ks(Float64Array.from([1, 2, 3, 4]), Float64Array.from([3, 4, 5, 6]))).toBe(0.5);
    expect(ks(Float64Array.from([0, 0, 0, 1]), Float64Array.from([1, 1, 1, 1]))).toBe(0.75);
  });

  it('TV is half the ℓ1 distance', () => {
    const p = new Map([
      ['a', 0.5],
      ['b', 0.5],
    ]);
    const q = new Map([
      ['a', 0.25],
      ['c', 0.75],
    ]);
    expect(tv(p, q)).toBe(0.75);
  });

  it('deciles are the unique real cut points', () => {
    expect([...deciles(Float64Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 2]))]).toEqual([0, 1, 2]);
  });

  it('maps real categories the release does not list into its "(other)"', () => {
    const real = [
      ['a', '1'],
      ['b', '2'],
      ['rare', '3'],
      ['a', '4'],
    ];
    const synthetic = [
      ['a', '1'],
      ['b', '2'],
      ['(other)', '3'],
      ['a', '4'],
    ];
    const schema = {
      version: 1,
      origin: 'discovered',
      columns: [
        { name: 'c', kind: 'categorical', categories: ['a', 'b', '(other)'], missing: false },
        { name: 'x', kind: 'numeric', edges: [0, 5], integer: true, missing: true },
      ],
    } as const;
    const f = fidelity(['c', 'x'], real, synthetic, schema);
    expect(f.columns[0]).toMatchObject({ tvRaw: 0.25, tvReleased: 0 });
    expect(f.columns[1].ks).toBe(0);
    expect(f.maxTwoWay).toBe(0.25);
    expect(f.maxTwoWayReleased).toBe(0);
  });

  it('the raw suite: adult.data and california-housing, ε 1 and 0.1, private and baseline, 3 seeds', () => {
    const cases = RAW_SUITES.get('raw')!.cases([0, 1, 2]);
    expect(cases).toHaveLength(2 * 2 * 2 * 3);
    expect(new Set(cases.map((c) => c.epsilon))).toEqual(new Set([1, 0.1]));
    expect(cases.every((c) => c.workload.k === 3 && c.workload.r === 3 && c.workload.size === 32)).toBe(true);
  });
});
