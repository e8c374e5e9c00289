/** Attribution of CPU-profile samples to engine phases and kinds of work. */
import { describe, expect, it } from 'vitest';
import { runPeak } from '../../../bench/lib/memory.ts';
import { type CpuProfile, selfSeconds, summarizeProfile } from '../../../bench/lib/profile.ts';

const SRC = 'file:///repo/src/core';
const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

/**
 * root ─ (program)
 *      ├ runRap (rap.ts) ─ selectQueries (selection.ts) ─ thresholdAnswers (product-tables.ts)
 *      │                 ├ project (projection.ts) ─┬ projectRelaxed (sparsemax.ts)
 *      │                 │                         └ set (builtin)
 *      │                 ├ evaluateWorkload (metrics.ts) ─ (closure in rap.ts) ─ productTable (product-tables.ts)
 *      │                 └ exact.of (closure in rap.ts)
 *      └ (garbage collector)
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 9] },
    { id: 2, callFrame: frame('(program)') },
    { id: 3, callFrame: frame('runRap', `${SRC}/engine/rap.ts`), children: [4, 6, 10, 13] },
    { id: 4, callFrame: frame('selectQueries', `${SRC}/engine/selection.ts`), children: [5] },
    { id: 5, callFrame: frame('thresholdAnswers', `${SRC}/engine/kernels/product-tables.ts`) },
    { id: 6, callFrame: frame('project', `${SRC}/engine/projection.ts`), children: [7, 8] },
    { id: 7, callFrame: frame('projectRelaxed', `${SRC}/engine/kernels/sparsemax.ts`) },
    { id: 8, callFrame: frame('set') },
    { id: 9, callFrame: frame('(garbage collector)') },
    { id: 10, callFrame: frame('evaluateWorkload', `${SRC}/engine/metrics.ts`), children: [11] },
    { id: 11, callFrame: frame('', `${SRC}/engine/rap.ts`), children: [12] },
    { id: 12, callFrame: frame('productTable', `${SRC}/engine/kernels/product-tables.ts`) },
    { id: 13, callFrame: frame('', `${SRC}/engine/rap.ts`) },
  ],
  startTime: 0,
  endTime: 100,
  // Sample i stands for timeDeltas[i + 1] µs: 5 → 3 s, 7 → 2 s, 8 → 1 s, 9 → 0.5 s, 2 → 0.25 s,
  // 12 → 4 s, 13 → 0.125 s.
  samples: [5, 7, 8, 9, 2, 12, 13, 2],
  timeDeltas: [0, 3e6, 2e6, 1e6, 0.5e6, 0.25e6, 4e6, 0.125e6],
};

describe('profile summary', () => {
  it('takes self time from the gap to the next sample', () => {
    const self = selfSeconds(profile);
    expect(self.get(5)).toBeCloseTo(3, 12);
    expect(self.get(2)).toBeCloseTo(0.25, 12);
  });

  it('splits time by phase and by kind, builtins copying counted as data movement', () => {
    const s = summarizeProfile(profile);
    const asObject = (xs: readonly { name: string; seconds: number }[]) =>
      Object.fromEntries(xs.map((x) => [x.name, x.seconds]));
    expect(s.sampledSeconds).toBeCloseTo(10.875, 12);
    expect(asObject(s.byPhase)).toEqual({
      evaluation: 4,
      selection: 3,
      projection: 3,
      other: 0.75,
      'engine (other)': 0.125,
    });
    expect(asObject(s.byKind)).toEqual({
      'product tables': 7,
      sparsemax: 2,
      'data movement': 1,
      gc: 0.5,
      'program (V8/native)': 0.25,
      other: 0.125,
    });
    expect(asObject(s.byPhaseAndKind)['projection / data movement']).toBe(1);
    expect(s.topFunctions[0]).toEqual({
      name: 'productTable',
      where: 'src/core/engine/kernels/product-tables.ts',
      seconds: 4,
    });
    expect(s.topFunctions[1]).toEqual({
      name: 'thresholdAnswers',
      where: 'src/core/engine/kernels/product-tables.ts',
      seconds: 3,
    });
  });
});

describe('runPeak', () => {
  it('uses the process peak only when the run raised it', () => {
    expect(runPeak(100, 500, 500)).toBe(100);
    expect(runPeak(100, 500, 700)).toBe(700);
    expect(runPeak(800, 500, 700)).toBe(800);
  });
});
