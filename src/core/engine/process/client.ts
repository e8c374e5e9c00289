/**
 * The host's end of the engine process: start a run in a separate process, follow its
 * progress, cancel it. Whatever the child does (crash, OOM, killed from outside, garbage on the
 * channel) the host only sees a rejected promise; the child never outlives the run.
 *
 * The result promise settles only after the child process has exited, so a caller that got an
 * answer can rely on there being no engine process left.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InputError } from '../../errors.ts';
import type { ProgressEvent, RapResult } from '../types.ts';
import { CancelledError, EngineCrashedError, OUT_OF_MEMORY, outOfMemoryDetail } from './errors.ts';
import { type ChildMessage, type EngineRequest, type HostMessage, parseChildMessage } from './protocol.ts';

export interface EngineExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** The process said it ran out of memory (V8 heap limit) before it died. */
  readonly outOfMemory?: boolean;
}

/**
 * A started engine process, whatever started it: Node's fork here, Electron's utilityProcess
 * in the app (implemented there, so this module never imports electron).
 */
export interface EngineProcess {
  /** May be undefined until the process has actually started (Electron). */
  readonly pid: number | undefined;
  send(message: HostMessage): void;
  onMessage(listener: (raw: unknown) => void): void;
  /** Called exactly once, when the process is gone (or could not be started). */
  onExit(listener: (exit: EngineExit) => void): void;
  /** Ends the process now, without asking (SIGKILL). */
  kill(): void;
}

export type EngineSpawner = () => EngineProcess;

export interface StartOptions {
  readonly onProgress?: (event: ProgressEvent) => void;
  readonly spawner?: EngineSpawner;
  /** After cancel (or a final message) the child gets this long to exit before it is killed. */
  readonly killAfterMs?: number;
}

export interface EngineHandle {
  readonly result: Promise<RapResult>;
  /** Ask the run to stop; the result rejects with CancelledError. Idempotent. */
  cancel(): void;
  readonly pid: number | undefined;
}

const DEFAULT_KILL_AFTER_MS = 1500;

type Outcome =
  | { readonly ok: true; readonly result: RapResult }
  | { readonly ok: false; readonly error: Error };

export function startEngine(request: EngineRequest, options: StartOptions = {}): EngineHandle {
  const proc = (options.spawner ?? forkSpawner())();
  const killAfterMs = options.killAfterMs ?? DEFAULT_KILL_AFTER_MS;
  let outcome: Outcome | undefined;
  let started = false;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;

  const armKill = (): void => {
    if (exited || killTimer) return;
    killTimer = setTimeout(() => proc.kill(), killAfterMs);
    killTimer.unref?.();
  };
  const conclude = (o: Outcome): void => {
    if (outcome) return;
    outcome = o;
    armKill();
  };
  const send = (message: HostMessage): void => {
    try {
      proc.send(message);
    } catch {
      // The channel is closed: the child is exiting, and onExit will settle the run.
    }
  };

  const result = new Promise<RapResult>((resolve, reject) => {
    proc.onExit((exit) => {
      exited = true;
      clearTimeout(killTimer);
      const final = outcome ?? {
        ok: false,
        error: exit.outOfMemory
          ? new EngineCrashedError(exit.code, exit.signal, outOfMemoryDetail(engineHeapLimitMiB()), true)
          : new EngineCrashedError(exit.code, exit.signal),
      };
      if (final.ok) resolve(final.result);
      else reject(final.error);
    });
  });

  proc.onMessage((raw) => {
    if (outcome) return;
    let message: ChildMessage;
    try {
      message = parseChildMessage(raw);
    } catch (err) {
      conclude({ ok: false, error: err as Error });
      proc.kill();
      return;
    }
    switch (message.type) {
      case 'ready':
        if (!started) {
          started = true;
          send({ type: 'start', request });
        }
        return;
      case 'progress':
        options.onProgress?.(message.event);
        return;
      case 'done':
        return conclude({ ok: true, result: message.result });
      case 'cancelled':
        return conclude({ ok: false, error: new CancelledError() });
      case 'error': {
        const error =
          message.kind === 'input'
            ? new InputError(message.message, message.where)
            : OUT_OF_MEMORY.test(message.message)
              ? new EngineCrashedError(null, null, outOfMemoryDetail(undefined), true)
              : new Error(`engine error: ${message.message}`);
        return conclude({ ok: false, error });
      }
    }
  });

  const cancel = (): void => {
    if (outcome || exited) return;
    conclude({ ok: false, error: new CancelledError() });
    if (!started) {
      proc.kill(); // no data was sent yet: nothing to unwind
      return;
    }
    send({ type: 'cancel' });
  };

  return {
    result,
    cancel,
    get pid() {
      return proc.pid;
    },
  };
}

/** Path of the engine child entry module. */
export const ENGINE_CHILD_PATH = fileURLToPath(new URL('./child.ts', import.meta.url));

/** tsx's loader as a file URL, so the child runs TypeScript whatever the working directory. */
function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}

/**
 * Forks a Node child running `childPath` (default: the engine child) with tsx. `env` defaults to
 * this process's environment.
 */
export function forkSpawner(childPath: string = ENGINE_CHILD_PATH, env?: NodeJS.ProcessEnv): EngineSpawner {
  return () => wrapChildProcess(forkEngineChild(childPath, env));
}

/**
 * The engine's JS heap limit in MiB (`--max-old-space-size`): half the machine's memory, at
 * least 1 GiB and at most 16 GiB, or `RAP_STUDIO_ENGINE_HEAP_MB`. Hitting it ends the engine
 * (not the app, which holds every finished result), and the release is aborted cleanly:
 * spend counted, "out of memory" shown. Typed arrays live outside this heap; their allocation
 * failing is caught as an error and reported the same way.
 */
export function engineHeapLimitMiB(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.RAP_STUDIO_ENGINE_HEAP_MB);
  if (Number.isSafeInteger(given) && given >= 16) return given;
  return Math.min(16_384, Math.max(1024, Math.floor(totalmem() / 2 / 2 ** 20)));
}

/** Node/Electron flags of the engine process: its memory limit. */
export function engineExecArgv(env: NodeJS.ProcessEnv = process.env): string[] {
  return [`--max-old-space-size=${engineHeapLimitMiB(env)}`];
}

function forkEngineChild(childPath: string, env: NodeJS.ProcessEnv | undefined): ChildProcess {
  const child = fork(childPath, [], {
    env,
    execArgv: ['--import', tsxLoaderUrl(), ...engineExecArgv(env ?? process.env)],
    serialization: 'advanced', // typed arrays cross the channel as typed arrays
    // The child's stdout (library banners) goes to our stderr: stdout belongs to the command's output.
    // Its stderr passes through too, watched for V8's out-of-memory report.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.pipe(process.stderr, { end: false });
  child.stderr?.pipe(process.stderr, { end: false });
  return child;
}

function wrapChildProcess(child: ChildProcess): EngineProcess {
  let exitListener: ((exit: EngineExit) => void) | undefined;
  let exited: EngineExit | undefined;
  let outOfMemory = false;
  let tail = '';
  child.stderr?.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4096);
    if (OUT_OF_MEMORY.test(tail)) outOfMemory = true;
  });
  const onGone = (exit: EngineExit): void => {
    if (exited) return;
    exited = exit;
    exitListener?.(exit);
  };
  // 'close' follows 'exit' once stdio is drained, so V8's last words have been read.
  child.on('close', (code, signal) => onGone({ code, signal, outOfMemory }));
  // 'error' without a pid is a failed spawn (no 'exit' follows); later errors are failed sends.
  child.on('error', () => {
    if (child.pid === undefined) onGone({ code: null, signal: null });
  });
  return {
    pid: child.pid,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => {
      exitListener = listener;
      if (exited) listener(exited);
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
