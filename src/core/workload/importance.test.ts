import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { featureCounts, historyScore, weightByHistory } from './importance.ts';
import type { Threshold, Workload } from './types.ts';

const D = 6;

const threshold = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 0, max: D - 1 }), { minLength: 1, maxLength: 3 }),
    fc.double({ min: 0.1, max: 5, noNaN: true }),
  )
  .map(([features, weight]): Threshold => ({ features: features.sort((a, b) => a - b), r: 1, weight }));
const workload = fc
  .array(threshold, { minLength: 1, maxLength: 8 })
  .map((thresholds): Workload => ({ thresholds }));

describe('importance weights from history', () => {
  it('are the curator weight times the mean add-one feature count, divided by the max (brute force)', () => {
    fc.assert(
      fc.property(workload, fc.array(threshold, { maxLength: 10 }), (w, hist) => {
        const history = { thresholds: hist };
        const weighted = weightByHistory(w, history, D);
        const count = (f: number) => hist.filter((t) => t.features.includes(f)).length;
        const raw = w.thresholds.map(
          (t) => (t.weight * t.features.reduce((s, f) => s + count(f) + 1, 0)) / t.features.length,
        );
        const max = Math.max(...raw);
        weighted.thresholds.forEach((t, i) => {
          expect(t.weight).toBeCloseTo(raw[i] / max, 12);
          expect(t.weight).toBeGreaterThan(0);
          expect(t.weight).toBeLessThanOrEqual(1);
          expect(t.features).toEqual(w.thresholds[i].features);
        });
        expect(Math.max(...weighted.thresholds.map((t) => t.weight))).toBe(1);
      }),
    );
  });

  it('favour thresholds over the features history asks about', () => {
    const history: Workload = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [0, 2], r: 2, weight: 1 },
        { features: [0, 1, 3], r: 1, weight: 1 },
      ],
    };
    expect(featureCounts(history, D)).toEqual([3, 2, 1, 1, 0, 0]);
    const w: Workload = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [4, 5], r: 2, weight: 1 },
      ],
    };
    expect(historyScore(w.thresholds[0], featureCounts(history, D))).toBe(3.5);
    expect(weightByHistory(w, history, D).thresholds.map((t) => t.weight)).toEqual([1, 1 / 3.5]);
    // An empty history leaves the curator's weights (normalized).
    expect(weightByHistory(w, { thresholds: [] }, D).thresholds.map((t) => t.weight)).toEqual([1, 1]);
  });

  it('refuses a historical feature outside the schema', () => {
    expect(() => featureCounts({ thresholds: [{ features: [D], r: 1, weight: 1 }] }, D)).toThrow(
      /outside 0..5/,
    );
  });
});
