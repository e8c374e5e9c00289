import { describe, expect, it } from 'vitest';
import type { Workload } from '../../workload/types.ts';
import { measurementUnits, withGroupedVersions } from './units.ts';

const SIZES = [3, 2, 4, 2, 50];

describe('measurementUnits', () => {
  const workload: Workload = {
    thresholds: [
      { features: [1, 0], r: 1, weight: 1 },
      { features: [0, 2, 3], r: 2, weight: 2 },
    ],
  };

  it('are the downward closure with AIM weights normalized to max 1', () => {
    const { units, fallbacks } = measurementUnits(workload, Float64Array.from([0.5, 1]), SIZES);
    expect(fallbacks).toEqual([]);
    const byKey = new Map(units.map((u) => [u.features.join(','), u]));
    expect([...byKey.keys()].sort()).toEqual(['0', '0,1', '0,2', '0,2,3', '0,3', '1', '2', '2,3', '3']);
    // A single feature: Σ_S w_S over the thresholds containing it ({0}: 0.5 + 1).
    expect(byKey.get('0')?.weight).toBeCloseTo(1.5 / 3.5, 12);
    // Σ_S w_S·|U ∩ S|: {0,2,3} → 0.5·1 + 1·3 = 3.5 (the max); {0,1} → 0.5·2 + 1·1 = 2.
    expect(byKey.get('0,2,3')?.weight).toBe(1);
    expect(byKey.get('0,1')?.weight).toBeCloseTo(2 / 3.5, 12);
    expect(byKey.get('2,3')?.weight).toBeCloseTo(2 / 3.5, 12);
    expect(byKey.get('0,2')?.thresholds).toEqual([1]);
    expect(byKey.get('0,1')?.thresholds).toEqual([0]);
    expect(byKey.get('0,2,3')?.cells).toBe(3 * 4 * 2);
  });

  it('split a table over the cell limit into sub-tables that fit, and say so', () => {
    const big: Workload = { thresholds: [{ features: [2, 4, 0], r: 3, weight: 1 }] };
    const { units, fallbacks } = measurementUnits(big, Float64Array.from([1]), SIZES, 500);
    expect(fallbacks).toEqual([
      {
        threshold: 0,
        cells: 600,
        units: [
          [2, 4],
          [0, 4],
          [0, 2],
        ],
      },
    ]);
    expect(units.every((u) => u.cells <= 500)).toBe(true);
    expect(units.map((u) => u.features.join(',')).sort()).toEqual(['0', '0,2', '0,4', '2', '2,4', '4']);
  });
});

describe('withGroupedVersions', () => {
  it('adds right after each unit with a compressed feature its grouped version (fewer cells)', () => {
    const workload: Workload = { thresholds: [{ features: [4, 1], r: 2, weight: 1 }] };
    const { units } = measurementUnits(workload, Float64Array.from([1]), SIZES);
    // Feature 4's 50 categories in 3 groups; feature 1 keeps its 2.
    const groups = [
      undefined,
      undefined,
      undefined,
      undefined,
      { of: new Int32Array(50).fill(2).fill(0, 0, 1).fill(1, 1, 5), count: 3 },
    ];
    const all = withGroupedVersions(units, groups, SIZES);
    expect(all.map((u) => [u.features.join(','), u.cells, u.grouping !== undefined])).toEqual([
      ['1', 2, false],
      ['4', 50, false],
      ['4', 3, true],
      ['1,4', 100, false],
      ['1,4', 6, true],
    ]);
    const grouped = all[4];
    expect(grouped.features).toBe(all[3].features);
    expect(grouped.weight).toBe(all[3].weight);
    expect(grouped.grouping).toEqual([undefined, groups[4]]);
  });
});
