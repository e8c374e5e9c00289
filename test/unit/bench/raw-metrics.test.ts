/** The raw suite's fidelity metrics against hand-computed values. */
import { describe, expect, it } from 'vitest';
import { deciles, fidelity, ks, tv } from '../../../bench/lib/raw-metrics.ts';
import { RAW_SUITES } from '../../../bench/suites/index.ts';
import { parseHierarchy } from '../../../src/core/data/hierarchy.ts';

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

  it('maps real values under the fallback category where "(other)" was not released, as the encoder does', () => {
    const real = [['a'], ['b'], ['rare'], ['?']];
    const synthetic = [['a'], ['b'], ['a'], ['a']];
    const schema = {
      version: 1,
      origin: 'discovered',
      columns: [{ name: 'c', kind: 'categorical', categories: ['a', 'b'], missing: false, fallbackCode: 0 }],
    } as const;
    const f = fidelity(['c'], real, synthetic, schema);
    expect(f.columns[0]).toMatchObject({ tvReleased: 0 });
    expect(f.maxTwoWayReleased).toBe(0);
  });

  it('scores a hierarchical code column by category: a real code counts as its finest released key', () => {
    // zip read as numbers would be cut at deciles; released as postcode keys it is categorical.
    const real = [['02134'], ['02139'], ['10001'], ['94105']];
    const synthetic = [['021'], ['021'], ['100'], ['(other)']];
    const schema = {
      version: 1,
      origin: 'discovered',
      columns: [
        {
          name: 'zip',
          kind: 'categorical',
          categories: ['021', '100', '(other)'],
          missing: false,
          hierarchy: parseHierarchy('postcode'),
        },
      ],
    } as const;
    const f = fidelity(['zip'], real, synthetic, schema);
    expect(f.columns[0]).toMatchObject({ kind: 'categorical', tvReleased: 0 });
    expect(f.maxTwoWayReleased).toBe(0);
  });

  it('the raw suite: adult.data and california-housing (private and baseline), hospital-visits (private), ε 1 and 0.1, 3 seeds, the default workload', () => {
    const cases = RAW_SUITES.get('raw')!.cases([0, 1, 2]);
    expect(cases).toHaveLength((2 * 2 + 1) * 2 * 3);
    expect(new Set(cases.map((c) => c.epsilon))).toEqual(new Set([1, 0.1]));
    expect(cases.every((c) => c.workload === 'default')).toBe(true);
    const hospital = cases.filter((c) => c.dataset === 'hospital-visits');
    expect(hospital.every((c) => c.method === 'private' && c.exclude?.join() === 'patient_id')).toBe(true);
    expect(hospital[0].hierarchy).toEqual(['zip=postcode', 'diagnosis=icd10']);
  });
  it('raw-share keeps 32 random 3-way marginals plus every pair at weight 1/4', () => {
    const cases = RAW_SUITES.get('raw-share')!.cases([0]);
    expect(
      cases.every((c) => c.workload !== 'default' && c.workload.size === 32 && c.pairWeight === 0.25),
    ).toBe(true);
  });
});
