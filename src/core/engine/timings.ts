/**
 * The engine's finer timing counters (RapReport.timings): wall seconds in sparsemax, in loss and
 * gradient, in the relaxed answers selection needs, in exact answers, in privacy noise, and in
 * the final evaluation. They split the selection and projection seconds without a profiler.
 *
 * The kernel calls are timed by wrapping the session (every backend alike); a tfjs backend's
 * host↔device transfers fall inside the call that makes them.
 */

import type { KernelSession } from './kernels/session.ts';
import type { RapReport } from './types.ts';

export type EngineTimings = NonNullable<RapReport['timings']>;

/** The counters the engine accumulates while it runs (exact answers count their own time). */
export type TimedWork = 'sparsemax' | 'lossGradient' | 'relaxedAnswers' | 'noise';

export class EngineTimers {
  private readonly millis: Record<TimedWork, number> = {
    sparsemax: 0,
    lossGradient: 0,
    relaxedAnswers: 0,
    noise: 0,
  };

  time<T>(work: TimedWork, f: () => T): T {
    const started = performance.now();
    try {
      return f();
    } finally {
      this.millis[work] += performance.now() - started;
    }
  }

  seconds(work: TimedWork): number {
    return this.millis[work] / 1000;
  }
}

/** The session with project (sparsemax), lossAndGradient and thresholdAnswers timed. */
export function timedSession(inner: KernelSession, timers: EngineTimers): KernelSession {
  return {
    backend: inner.backend,
    project: () => timers.time('sparsemax', () => inner.project()),
    read: () => inner.read(),
    readGradient: () => inner.readGradient(),
    thresholdAnswers: (t) => timers.time('relaxedAnswers', () => inner.thresholdAnswers(t)),
    answersOf: (thresholds) => timers.time('relaxedAnswers', () => inner.answersOf(thresholds)),
    lossAndGradient: (batch, scale) => timers.time('lossGradient', () => inner.lossAndGradient(batch, scale)),
    adamStep: (hyper) => inner.adamStep(hyper),
    resetOptimizer: () => inner.resetOptimizer(),
    dispose: () => inner.dispose(),
  };
}
