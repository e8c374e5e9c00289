/**
 * The engine child's message loop, independent of how messages travel (Node IPC or Electron's
 * parentPort) and of which engine runs (the real runRap, or a fake in tests).
 *
 * Life cycle: post `ready` → wait for `start` → run with an AbortSignal wired to `cancel` →
 * post exactly one of done | cancelled | error → exit. A lost parent ends the child at once:
 * nothing may outlive the host that started it.
 */
import type { NoiseSource } from '../../privacy/noise.ts';
import type { ProgressEvent, RapInput, RapResult } from '../types.ts';
import { type ChildMessage, type NoiseSpec, parseHostMessage } from './protocol.ts';

export interface ChildPort {
  /** Resolves once the message has been handed to the channel (so exiting after it is safe). */
  post(message: ChildMessage): Promise<void>;
  onMessage(listener: (raw: unknown) => void): void;
  /** The host went away (crashed, was killed, or closed the channel). */
  onDisconnect(listener: () => void): void;
}

export interface EngineDeps {
  readonly run: (input: RapInput) => Promise<RapResult>;
  readonly makeNoise: (spec: NoiseSpec) => NoiseSource;
  readonly exit: (code: number) => void;
}

/** Progress goes out at most this often (plus every round change) so IPC never becomes the bottleneck. */
const PROGRESS_INTERVAL_MS = 100;

export function serveEngine(port: ChildPort, deps: EngineDeps): void {
  const controller = new AbortController();
  let started = false;
  let finished = false;

  const finish = async (message: ChildMessage, code: number): Promise<void> => {
    if (finished) return;
    finished = true;
    try {
      await port.post(message);
    } finally {
      deps.exit(code);
    }
  };

  port.onDisconnect(() => deps.exit(0));
  port.onMessage((raw) => {
    let message: ReturnType<typeof parseHostMessage>;
    try {
      message = parseHostMessage(raw);
    } catch (err) {
      void finish({ type: 'error', kind: 'runtime', message: (err as Error).message }, 1);
      return;
    }
    if (message.type === 'cancel') {
      controller.abort();
      // Before start there is nothing to unwind; after start the run reports through its promise.
      if (!started) void finish({ type: 'cancelled' }, 0);
      return;
    }
    if (started) {
      void finish({ type: 'error', kind: 'runtime', message: 'engine received a second start message' }, 1);
      return;
    }
    started = true;
    const { request } = message;
    const run = async (): Promise<ChildMessage> => {
      try {
        const result = await deps.run({
          data: request.data,
          workload: request.workload,
          options: request.options,
          ...(request.paidOneWays ? { paidOneWays: request.paidOneWays } : {}),
          evalWorkload: request.evalWorkload,
          ...(request.evalWorkloads ? { evalWorkloads: request.evalWorkloads } : {}),
          noise: deps.makeNoise(request.noise),
          signal: controller.signal,
          onProgress: throttledProgress(port),
        });
        return controller.signal.aborted ? { type: 'cancelled' } : { type: 'done', result };
      } catch (err) {
        if (controller.signal.aborted) return { type: 'cancelled' };
        return errorMessage(err);
      }
    };
    void run().then((reply) => finish(reply, reply.type === 'error' ? 1 : 0));
  });
  void port.post({ type: 'ready' });
}

function throttledProgress(port: ChildPort): (e: ProgressEvent) => void {
  let last = 0;
  let lastRound = -1;
  return (event) => {
    const now = Date.now();
    if (event.round === lastRound && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    lastRound = event.round;
    void port.post({ type: 'progress', event });
  };
}

function errorMessage(err: unknown): ChildMessage {
  if (err instanceof Error) {
    // Matched by name: the class identity does not survive module boundaries in every loader.
    const kind = err.name === 'InputError' ? 'input' : 'runtime';
    const where = (err as { where?: Record<string, string | number> }).where;
    return { type: 'error', kind, message: err.message, ...(kind === 'input' && where ? { where } : {}) };
  }
  return { type: 'error', kind: 'runtime', message: String(err) };
}
