/**
 * The worker thread that owns the WebGPU device (webgpu.ts). TensorFlow.js' WebGPU backend cannot
 * read results synchronously in Node (its readSync needs OffscreenCanvas), while the kernel
 * interface is synchronous; so the sessions live here and every read is awaited, while the
 * engine's thread blocks in Atomics.wait for the reply (posted on `replies`, then flagged).
 *
 * Messages run one at a time, in order. `init` finds the adapter and starts the backend, and
 * answers on the parent port (the engine's thread is not blocked then).
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type * as TF from '@tensorflow/tfjs';
import type { RelaxedShape } from '../relaxed.ts';
import { type AsyncTfjsSession, openAsyncTfjsSession } from './tfjs.ts';
import { findAdapter, type GpuStart } from './webgpu-adapter.ts';

export type GpuRequest =
  | { readonly type: 'init'; readonly allowSoftware: boolean }
  | {
      readonly type: 'open';
      readonly id: number;
      readonly shape: RelaxedShape;
      readonly initial: Float64Array;
    }
  | {
      readonly type: 'call';
      readonly id: number;
      readonly method: Exclude<keyof AsyncTfjsSession, 'dispose'> | 'dispose';
      readonly args: readonly unknown[];
    };

export type GpuReply =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: string };

const { replies, flag: flagBuffer } = workerData as { replies: MessagePort; flag: SharedArrayBuffer };
const flag = new Int32Array(flagBuffer);
const sessions = new Map<number, AsyncTfjsSession>();
let tf: typeof TF | undefined;
let device: GPUDevice | undefined;

async function init(allowSoftware: boolean): Promise<GpuStart> {
  const start = await findAdapter(allowSoftware);
  if (!start.ok) return start;
  tf = await import('@tensorflow/tfjs');
  // Registered by hand on our device: the package registers itself only when navigator.gpu
  // exists, at a priority that would make it every later tfjs user's default.
  const { WebGPUBackend } = await import('@tensorflow/tfjs-backend-webgpu');
  // tfjs' backend checks navigator.gpu (this worker's own globals; Node 20 has no navigator).
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: start.gpu }, configurable: true });
  device = start.device;
  const gpuDevice = start.device;
  tf.registerBackend('webgpu', () => new WebGPUBackend(gpuDevice, start.info), 0);
  if (!(await tf.setBackend('webgpu')))
    return { ok: false, reason: 'the TensorFlow.js WebGPU backend failed to start' };
  return { ok: true, note: start.note };
}

async function handle(request: GpuRequest): Promise<unknown> {
  switch (request.type) {
    case 'init':
      throw new Error('init is answered on the parent port');
    case 'open': {
      if (!tf) throw new Error('the WebGPU backend is not started');
      sessions.set(request.id, openAsyncTfjsSession(tf, 'webgpu', request.shape, request.initial));
      return undefined;
    }
    case 'call': {
      const session = sessions.get(request.id);
      if (!session) throw new Error(`no GPU session ${request.id}`);
      if (request.method === 'dispose') sessions.delete(request.id);
      const method = session[request.method] as (...args: unknown[]) => unknown;
      return await method(...request.args);
    }
  }
}

let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (request: GpuRequest | { type: 'close' }) => {
  queue = queue.then(async () => {
    if (request.type === 'close') {
      for (const session of sessions.values()) session.dispose();
      sessions.clear();
      if (tf?.findBackend('webgpu')) tf.removeBackend('webgpu');
      device?.destroy();
      parentPort?.postMessage('closed');
      return;
    }
    if (request.type === 'init') {
      try {
        parentPort?.postMessage(await init(request.allowSoftware));
      } catch (err) {
        parentPort?.postMessage({ ok: false, reason: (err as Error).message } satisfies GpuStart);
      }
      return;
    }
    let reply: GpuReply;
    try {
      reply = { ok: true, result: await handle(request) };
    } catch (err) {
      reply = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    replies.postMessage(reply);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
});
