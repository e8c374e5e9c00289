/**
 * Adapter for Electron's `utilityProcess` (the app's engine process, src/main/engine-spawner.ts),
 * typed structurally so that this module never imports electron. Messages are structured clones:
 * the dataset's typed arrays cross as typed arrays, as with Node's advanced serialization.
 */
import type { EngineExit, EngineProcess, EngineSpawner } from './client.ts';

/** The part of Electron's UtilityProcess the engine uses. */
export interface UtilityProcessLike {
  readonly pid: number | undefined;
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export function fromUtilityProcess(child: UtilityProcessLike): EngineProcess {
  let exited: EngineExit | undefined;
  let exitListener: ((exit: EngineExit) => void) | undefined;
  child.on('exit', (code) => {
    if (exited) return;
    exited = { code, signal: null }; // Electron reports an exit code only
    exitListener?.(exited);
  });
  return {
    get pid() {
      return child.pid; // undefined until Electron has spawned it
    },
    send: (message) => {
      if (!exited) child.postMessage(message);
    },
    onMessage: (listener) => {
      child.on('message', listener);
    },
    onExit: (listener) => {
      exitListener = listener;
      if (exited) listener(exited);
    },
    kill: () => {
      if (!exited) child.kill();
    },
  };
}

export function utilityProcessSpawner(fork: () => UtilityProcessLike): EngineSpawner {
  return () => fromUtilityProcess(fork());
}
