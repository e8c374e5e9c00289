import { describe, expect, it } from 'vitest';
import { evaluateWorkload, reusingAnswers, sharedThresholds } from './metrics.ts';
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

describe('answers shared by two workloads', () => {
  const a = { features: [0, 1], r: 2, weight: 1 };
  const b = { features: [1, 2], r: 1, weight: 1 };
  const c = { features: [0, 2], r: 2, weight: 3 };

  it('are the thresholds with the same features and r, whatever their weight', () => {
    expect([...sharedThresholds({ thresholds: [a, b] })]).toEqual([]);
    const shared = sharedThresholds({ thresholds: [a, b] }, { thresholds: [{ ...b, weight: 5 }, c] });
    expect([...shared]).toEqual(['1,2/1']);
  });

  it('are computed once while they fit, the others every time', () => {
    const calls: string[] = [];
    const answersOf = (t: { features: readonly number[] }) => {
      calls.push(t.features.join(','));
      return new Float64Array(4);
    };
    const shared = sharedThresholds({ thresholds: [a, b] }, { thresholds: [a, b] });
    const reusing = reusingAnswers(shared, answersOf);
    const first = reusing(a);
    expect(reusing(a)).toBe(first);
    reusing(b);
    reusing(b);
    reusing(c);
    reusing(c);
    expect(calls).toEqual(['0,1', '1,2', '0,2', '0,2']);
    const capped = reusingAnswers(shared, answersOf, 3);
    expect(capped(a)).not.toBe(capped(a));
  });
});
