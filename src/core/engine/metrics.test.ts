import { describe, expect, it } from 'vitest';
import { evaluateWorkload } from './metrics.ts';
import { RunControl } from './run-control.ts';

describe('evaluateWorkload', () => {
  it('computes max, mean, per-threshold error, the profile and the All-0 baseline', async () => {
    const workload = {
      thresholds: [
        { features: [0], r: 1, weight: 1 },
        { features: [1], r: 1, weight: 1 },
      ],
    };
    const exact = [Float64Array.from([0.5, 0.5]), Float64Array.from([0.9, 0.1])];
    const answers = [Float64Array.from([0.5, 0.3]), Float64Array.from([0.85, 0.1])];
    const index = (t: { features: readonly number[] }) => t.features[0];
    const res = await evaluateWorkload(
      workload,
      (t) => exact[index(t)],
      [(t) => answers[index(t)]],
      0.01,
      new RunControl(),
    );
    expect(res.maxExact).toBe(0.9);
    const [s] = res.bySource;
    expect(s.max).toBeCloseTo(0.2, 12);
    expect(s.mean).toBeCloseTo((0 + 0.2 + 0.05 + 0) / 4, 12);
    expect(s.perThreshold.map((x) => +x.toFixed(12))).toEqual([0.2, 0.05]);
    // Within 0.1·true + 0.01: errors 0, 0.2 (no), 0.05 (≤ 0.1), 0 → 3 of 4; with ζ = 0.25 also 3.
    expect(s.withinShare).toEqual([0.75, 0.75]);
  });
});
