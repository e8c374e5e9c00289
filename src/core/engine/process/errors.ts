/** How an engine run can end other than with a result. Both are runtime failures (CLI exit 1). */

/** The run was cancelled on request (the host's cancel(), Ctrl-C). */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(message = 'the engine run was cancelled') {
    super(message);
  }
}

/** The engine process died without reporting (crash, out of memory, killed from outside). */
export class EngineCrashedError extends Error {
  override readonly name = 'EngineCrashedError';
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    detail?: string,
    /** The engine hit its memory limit (V8's heap limit, or an array it could not allocate). */
    readonly outOfMemory = false,
  ) {
    super(
      `the engine process ended unexpectedly (${outOfMemory ? 'out of memory' : describeExit(exitCode, signal)})${detail ? `: ${detail}` : ''}`,
    );
  }
}

/** What the curator is told when the engine ran out of memory. */
export function outOfMemoryDetail(limitMiB: number | undefined): string {
  return (
    `it ran out of memory${limitMiB ? ` (its limit is ${limitMiB} MiB)` : ''}. ` +
    "Use fewer synthetic rows n', a smaller oversampling factor, or a smaller workload"
  );
}

/** V8's and Node's words for running out of memory, on the engine's stderr or in its error. */
export const OUT_OF_MEMORY =
  /JavaScript heap out of memory|Reached heap limit|Array buffer allocation failed|allocation failed/i;

function describeExit(code: number | null, signal: string | null): string {
  if (signal === 'SIGKILL') return 'killed with SIGKILL: out of memory, or killed from outside';
  if (signal) return `signal ${signal}`;
  return `exit code ${code}`;
}
