import { describe, expect, it } from 'vitest';
import { seededNoise } from '../privacy/noise.ts';
import { randomDataset } from '../workload/test-data.ts';
import { defaultOptions } from './defaults.ts';
import type { KernelSession } from './kernels/session.ts';
import { runRap } from './rap.ts';
import { EngineTimers, timedSession } from './timings.ts';

/** A session whose calls take a known time (busy wait) and record that they ran. */
function slowSession(calls: string[]): KernelSession {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  return {
    backend: 'cpu',
    project: () => {
      calls.push('project');
      busy(3);
    },
    read: () => new Float64Array(1),
    readGradient: () => new Float64Array(1),
    thresholdAnswers: () => {
      calls.push('answers');
      busy(5);
      return new Float64Array(2);
    },
    answersOf: (ts) => ts.map(() => new Float64Array(2)),
    lossAndGradient: () => {
      calls.push('loss');
      busy(2);
      return { loss: 1, maxError: 0.5 };
    },
    adamStep: () => calls.push('adam'),
    resetOptimizer: () => calls.push('reset'),
    dispose: () => calls.push('dispose'),
  };
}

/** A small query-mode run shared by the report-level tests. */
const data = randomDataset([3, 2, 4], 300, 3);
const options = defaultOptions({
  epsilon: 5,
  delta: 1e-6,
  rows: 20,
  rounds: 2,
  perRound: 3,
  mode: 'query',
  maxSteps: 30,
});

describe('engine timings', () => {
  it('time each kind of session call under its own counter and pass every call through', () => {
    const calls: string[] = [];
    const timers = new EngineTimers();
    const session = timedSession(slowSession(calls), timers);
    session.project();
    session.thresholdAnswers({ features: [0], r: 1, weight: 1 });
    expect(session.lossAndGradient({ groups: [], tables: [] })).toEqual({ loss: 1, maxError: 0.5 });
    session.adamStep({ learningRate: 0.1, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 });
    session.resetOptimizer();
    session.dispose();
    expect(calls).toEqual(['project', 'answers', 'loss', 'adam', 'reset', 'dispose']);
    // Lower bounds only (each call busy-waits that long); a loaded machine can only add time.
    expect(timers.seconds('sparsemax')).toBeGreaterThanOrEqual(0.003);
    expect(timers.seconds('relaxedAnswers')).toBeGreaterThanOrEqual(0.005);
    expect(timers.seconds('lossGradient')).toBeGreaterThanOrEqual(0.002);
    expect(timers.seconds('noise')).toBe(0);
  });

  it('are in a run report, within the phases they split', async () => {
    const workload = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [0, 1, 2], r: 1, weight: 1 },
      ],
    };
    const { report } = await runRap({ data, workload, options, noise: seededNoise(4) });
    const t = report.timings;
    if (!t) throw new Error('no timings in the report');
    for (const value of Object.values(t)) expect(value).toBeGreaterThanOrEqual(0);
    expect(Object.keys(t).sort()).toEqual(
      ['evaluation', 'exactAnswers', 'lossGradient', 'noise', 'relaxedAnswers', 'sparsemax'].sort(),
    );
    expect(t.evaluation).toBeGreaterThan(0);
    // Nested intervals of one clock (sparsemax also counts the initial projection, outside both).
    expect(t.lossGradient).toBeLessThanOrEqual(report.secondsProjection + 1e-6);
    expect(t.relaxedAnswers + t.noise).toBeLessThanOrEqual(report.secondsSelection + 1e-6);
    expect(t.evaluation).toBeLessThanOrEqual(report.secondsTotal);
  });

  it('leave the results alone when the evaluation workload repeats the workload', async () => {
    const workload = { thresholds: [{ features: [0, 2], r: 2, weight: 1 }] };
    const { report } = await runRap({
      data,
      workload,
      evalWorkload: workload,
      options,
      noise: seededNoise(4),
    });
    expect(report.futureError).toBe(report.presentError);
    expect(report.roundedFutureError).toBe(report.roundedPresentError);
  });
});
