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
  ) {
    super(
      `the engine process ended unexpectedly (${describeExit(exitCode, signal)})${detail ? `: ${detail}` : ''}`,
    );
  }
}

function describeExit(code: number | null, signal: string | null): string {
  if (signal === 'SIGKILL') return 'killed with SIGKILL: out of memory, or killed from outside';
  if (signal) return `signal ${signal}`;
  return `exit code ${code}`;
}
