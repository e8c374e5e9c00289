/**
 * The engine process in the Electron app: a `utilityProcess` (a Node process Electron manages,
 * with a structured-clone channel, so typed arrays cross as typed arrays), driven through the
 * engine client's adapter (src/core/engine/process/utility-process.ts); a crash there never
 * takes the app down.
 */
import { utilityProcess } from 'electron';
import { type EngineSpawner, engineExecArgv } from '../core/engine/process/client.ts';
import { utilityProcessSpawner as adapt } from '../core/engine/process/utility-process.ts';

export function utilityProcessSpawner(entry: string): EngineSpawner {
  return adapt(() =>
    utilityProcess.fork(entry, [], {
      serviceName: 'RAP Studio engine',
      stdio: 'inherit',
      // The engine's memory limit: hitting it ends the engine, never the app.
      execArgv: engineExecArgv(),
    }),
  );
}
