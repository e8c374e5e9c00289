/**
 * The child's end of the channel: Node's IPC (`child_process.fork`) or Electron's
 * `process.parentPort` (`utilityProcess.fork`). Detected at run time so that nothing here
 * imports electron.
 */
import type { ChildPort } from './serve.ts';

/** The slice of Electron's ParentPort the engine uses (structural, to avoid importing electron). */
interface ParentPortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

export function nodeIpcPort(proc: NodeJS.Process = process): ChildPort {
  if (!proc.send) throw new Error('engine child: no IPC channel; start it with child_process.fork');
  return {
    post: (message) =>
      new Promise((resolve) => {
        // A closed channel means the host is gone; the disconnect handler ends the process.
        if (!proc.connected) return resolve();
        proc.send!(message, undefined, undefined, () => resolve());
      }),
    onMessage: (listener) => proc.on('message', listener),
    onDisconnect: (listener) => proc.on('disconnect', listener),
  };
}

function electronParentPort(parentPort: ParentPortLike): ChildPort {
  return {
    post: async (message) => parentPort.postMessage(message),
    onMessage: (listener) => parentPort.on('message', (e) => listener(e.data)),
    // Electron ends utility processes together with the main process.
    onDisconnect: () => {},
  };
}

/** The port this process was started with. */
export function currentPort(): ChildPort {
  const parentPort = (process as NodeJS.Process & { parentPort?: ParentPortLike }).parentPort;
  return parentPort ? electronParentPort(parentPort) : nodeIpcPort();
}
