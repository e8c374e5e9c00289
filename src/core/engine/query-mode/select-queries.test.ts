import { describe, expect, it } from 'vitest';
import { layoutFromSizes } from '../../data/onehot.ts';
import { seededNoise } from '../../privacy/noise.ts';
import { randomDataset } from '../../workload/test-data.ts';
import type { Threshold } from '../../workload/types.ts';
import { ExactAnswers } from '../exact-answers.ts';
import type { KernelSession } from '../kernels/session.ts';
import { RunControl } from '../run-control.ts';
import { locate, type ScoringContext, selectQueries } from './select-queries.ts';
import { SelectedQueries } from './selected-queries.ts';

const SIZES = [2, 3, 2];
const data = randomDataset(SIZES, 100, 1);
const workload = {
  thresholds: [
    { features: [0, 1], r: 2, weight: 1 },
    { features: [1, 2], r: 1, weight: 4 },
  ] as Threshold[],
};
const exact = new ExactAnswers(data);

/** A relaxed "dataset" whose answers are all 0: the scores are the (weighted) exact answers. */
const zeroSession = {
  thresholdAnswers: (t: Threshold) => new Float64Array(exact.of(t).length),
  answersOf: (ts: readonly Threshold[]) => ts.map((t) => new Float64Array(exact.of(t).length)),
} as unknown as KernelSession;

function context(): ScoringContext {
  return {
    workload,
    weights: Float64Array.from([0.25, 1]),
    offsets: [0, 6, 12],
    exact,
    session: zeroSession,
    control: new RunControl(),
  };
}

/** Global indices ranked by weighted exact answer, best first (the noiseless selection). */
function ranking(skip: Set<number>): number[] {
  const scored: { g: number; s: number }[] = [];
  workload.thresholds.forEach((t, ti) => {
    exact.of(t).forEach((e, y) => {
      const g = 6 * ti + y;
      if (!skip.has(g)) scored.push({ g, s: e * [0.25, 1][ti] });
    });
  });
  return scored.sort((a, b) => b.s - a.s || a.g - b.g).map((x) => x.g);
}

describe('query selection', () => {
  it('locates global indices', () => {
    expect(locate([0, 6, 12], 0)).toEqual({ threshold: 0, local: 0 });
    expect(locate([0, 6, 12], 7)).toEqual({ threshold: 1, local: 1 });
    expect(locate([0, 6, 12], 11)).toEqual({ threshold: 1, local: 5 });
  });

  it.each([
    'oneshot',
    'iterative',
  ] as const)('%s with no noise picks the top weighted errors, skipping selected ones', async (method) => {
    const selected = new SelectedQueries(workload, layoutFromSizes(SIZES), Float64Array.from([0.25, 1]));
    const first = ranking(new Set())[0];
    const q = locate([0, 6, 12], first);
    selected.add(q.threshold, q.local, 0.5);
    const picks = await selectQueries(context(), selected, 3, 0, method, seededNoise(1));
    const expected = ranking(new Set([first])).slice(0, 3);
    expect(picks.map((p) => 6 * p.threshold + p.local).sort()).toEqual(expected.sort());
  });

  it('with noise still returns K distinct unselected queries', async () => {
    const selected = new SelectedQueries(workload, layoutFromSizes(SIZES), Float64Array.from([0.25, 1]));
    selected.add(0, 0, 0.1);
    const picks = await selectQueries(context(), selected, 11, 1, 'oneshot', seededNoise(2));
    const keys = picks.map((p) => `${p.threshold}:${p.local}`);
    expect(new Set(keys).size).toBe(11);
    expect(keys).not.toContain('0:0');
  });
});

describe('SelectedQueries', () => {
  it('groups queries by (k, r) with their one-hot columns', () => {
    const layout = layoutFromSizes(SIZES);
    const selected = new SelectedQueries(workload, layout, Float64Array.from([0.25, 1]));
    selected.add(1, 5, 0.3); // target (2, 1) over features 1, 2
    selected.add(0, 1, 0.2); // target (0, 1) over features 0, 1
    expect(() => selected.add(0, 1, 0.2)).toThrow(/already/);
    const groups = selected.groups();
    expect(groups.map((g) => `${g.k}:${g.r}`)).toEqual(['2:1', '2:2']);
    expect([...groups[0].columns]).toEqual([layout.offsets[1] + 2, layout.offsets[2] + 1]);
    expect([...groups[1].columns]).toEqual([0, layout.offsets[1] + 1]);
    expect([...groups[0].weights]).toEqual([1]);
    expect(selected.localsOf(0)).toEqual([1]);
    expect(selected.count).toBe(2);
  });
});
