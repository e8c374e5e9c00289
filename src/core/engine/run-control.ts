/**
 * Cooperative control of a long synchronous computation: cancellation (AbortSignal), yielding
 * to the event loop so that a cancel message can arrive at all, and throttled progress events.
 */
import { EngineTimers } from './timings.ts';
import type { ProgressEvent } from './types.ts';

/** Yield at least this often so IPC (cancel) and timers are served. */
const YIELD_EVERY_MS = 50;
/** At most ~10 progress events per second. */
const PROGRESS_EVERY_MS = 100;

export function abortError(): DOMException {
  return new DOMException('the RAP run was cancelled', 'AbortError');
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

export class RunControl {
  private lastYield = performance.now();
  private lastProgress = Number.NEGATIVE_INFINITY;
  readonly started = performance.now();
  /** The run's timing counters by kind of work (RapReport.timings). */
  readonly timers = new EngineTimers();

  constructor(
    private readonly signal?: AbortSignal,
    private readonly onProgress?: (e: ProgressEvent) => void,
  ) {}

  /** Throws an AbortError if cancelled; sometimes yields to the event loop first. */
  async checkpoint(): Promise<void> {
    this.throwIfAborted();
    if (performance.now() - this.lastYield >= YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.lastYield = performance.now();
      this.throwIfAborted();
    }
  }

  throwIfAborted(): void {
    if (this.signal?.aborted) throw abortError();
  }

  elapsedSeconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** Emits unless one was emitted less than 100 ms ago (`force` always emits). */
  progress(event: Omit<ProgressEvent, 'elapsedSeconds'>, force = false): void {
    if (!this.onProgress) return;
    const now = performance.now();
    if (!force && now - this.lastProgress < PROGRESS_EVERY_MS) return;
    this.lastProgress = now;
    this.onProgress({ ...event, elapsedSeconds: (now - this.started) / 1000 });
  }
}

/** Seconds spent in a phase, accumulated across rounds. */
export class PhaseTimer {
  private total = 0;
  private since: number | undefined;

  start(): void {
    this.since = performance.now();
  }

  stop(): void {
    if (this.since !== undefined) this.total += performance.now() - this.since;
    this.since = undefined;
  }

  seconds(): number {
    return this.total / 1000;
  }
}
