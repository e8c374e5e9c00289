/**
 * The engine process in the Electron app: a `utilityProcess` (a Node process Electron manages,
 * with a structured-clone channel, so typed arrays cross as typed arrays). The engine client
 * (src/core/engine/process/client.ts) drives it through this adapter; a crash there never takes
 * the app down.
 */
import { utilityProcess } from 'electron';
import {
  type EngineExit,
  type EngineProcess,
  type EngineSpawner,
  engineExecArgv,
} from '../core/engine/process/client.ts';

export function utilityProcessSpawner(entry: string): EngineSpawner {
  return (): EngineProcess => {
    const child = utilityProcess.fork(entry, [], {
      serviceName: 'RAP Studio engine',
      stdio: 'inherit',
      // The engine's memory limit: hitting it ends the engine, never the app.
      execArgv: engineExecArgv(),
    });
    let exited: EngineExit | undefined;
    let exitListener: ((exit: EngineExit) => void) | undefined;
    child.on('exit', (code) => {
      if (exited) return;
      exited = { code, signal: null };
      exitListener?.(exited);
    });
    return {
      get pid() {
        return child.pid;
      },
      send: (message) => {
        if (!exited) child.postMessage(message);
      },
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => {
        exitListener = listener;
        if (exited) listener(exited);
      },
      kill: () => {
        if (!exited) child.kill();
      },
    };
  };
}
