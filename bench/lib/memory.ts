/**
 * Peak resident memory of one run inside a longer-lived process. process.resourceUsage().maxRSS
 * is the process-lifetime peak, so it says something about this run only if the run raised it;
 * otherwise the peak comes from sampling RSS on a timer (the engine yields to the event loop
 * every ~50 ms, so the timer does run; reading RSS costs ~0.5% at this rate; a short spike between samples can be missed).
 */

const SAMPLE_EVERY_MS = 50;

function processPeakBytes(): number {
  return process.resourceUsage().maxRSS * 1024; // maxRSS is in KiB
}

/** Combines the two readings; exported for tests. */
export function runPeak(sampledMax: number, processPeakBefore: number, processPeakAfter: number): number {
  return processPeakAfter > processPeakBefore ? Math.max(sampledMax, processPeakAfter) : sampledMax;
}

export class PeakRssMeter {
  private sampled = 0;
  private timer: NodeJS.Timeout | undefined;
  private before = 0;

  start(): void {
    this.before = processPeakBytes();
    this.sampled = process.memoryUsage.rss();
    this.timer = setInterval(() => {
      this.sampled = Math.max(this.sampled, process.memoryUsage.rss());
    }, SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  /** Stops sampling; the run's peak RSS in bytes. */
  stop(): number {
    clearInterval(this.timer);
    this.sampled = Math.max(this.sampled, process.memoryUsage.rss());
    return runPeak(this.sampled, this.before, processPeakBytes());
  }
}
