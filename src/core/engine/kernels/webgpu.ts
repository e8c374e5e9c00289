/**
 * The `webgpu` backend: the tfjs kernels (tfjs.ts) on TensorFlow.js' WebGPU backend on Dawn, in
 * a worker thread that owns the device (gpu-worker.ts: WebGPU cannot read synchronously in Node,
 * the kernel interface is synchronous, so this thread blocks in Atomics.wait for each reply).
 *
 * Used unasked only on a hardware adapter (webgpu-adapter.ts) that passes a start-up self-check
 * against the typed kernels (kernel-check.ts, within WEBGPU_TOLERANCE); asked for
 * (`--backend webgpu`) it also takes a software adapter such as llvmpipe: slow but correct, which
 * is how the kernel tests run without a GPU. Every step has a timeout: a broken driver or a dead
 * worker cannot hang the engine.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import type { GpuReply, GpuRequest } from './gpu-worker.ts';
import { kernelGaps } from './kernel-check.ts';
import type { AdamHyper, EngineKernels, KernelSession, LossResult, ProjectionBatch } from './session.ts';
import { spawnWorker, started, workerFile } from './threaded.ts';
import type { GpuStart } from './webgpu-adapter.ts';

/** The self-check's bound: the tfjs kernels run in float32 (relative to each quantity's scale). */
export const WEBGPU_TOLERANCE = 1e-5;

/** Finding the adapter and starting the backend (llvmpipe compiles shaders slowly). */
const START_TIMEOUT_MS = 120_000;
/** One kernel call (a whole table's loss on a large D' can take a while on a software adapter). */
const CALL_TIMEOUT_MS = 600_000;

export interface WebgpuKernels extends EngineKernels {
  /** Releases the device and ends the worker. */
  close(): Promise<void>;
}

export type WebgpuOutcome = WebgpuKernels | { readonly reason: string };

/**
 * The webgpu kernels, or the one-line reason they cannot be used here. `allowSoftware`: take a
 * software adapter (llvmpipe) too.
 */
export async function webgpuKernels(options: { allowSoftware: boolean }): Promise<WebgpuOutcome> {
  // EGL without a display (a server, CI) needs Mesa's surfaceless platform for OpenGL ES. Set
  // here: a worker's process.env is its own copy, the driver reads the process's environment.
  process.env.EGL_PLATFORM ??= 'surfaceless';
  const file = workerFile('gpu-worker');
  const flag = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    worker = spawnWorker(file, { replies: port1, flag }, [port1]);
  } catch (err) {
    port2.close();
    return { reason: `the GPU worker did not start (${(err as Error).message})` };
  }
  const stop = async () => {
    port2.close();
    await worker.terminate();
  };
  try {
    // Queued until the worker listens; its first message is the answer.
    worker.postMessage({ type: 'init', allowSoftware: options.allowSoftware } satisfies GpuRequest);
    const start = (await started(worker, START_TIMEOUT_MS)) as GpuStart;
    if (!start.ok) {
      await stop();
      return { reason: start.reason };
    }
    const proxy = new GpuProxy(worker, port2, new Int32Array(flag));
    const close = async () => {
      worker.postMessage({ type: 'close' });
      await started(worker, 10_000).catch(() => undefined);
      await stop();
    };
    const kernels: WebgpuKernels = {
      backend: 'webgpu',
      open: (shape, initial) => proxy.open(shape, initial),
      note: `webgpu on ${start.note}; self-check passed`,
      close,
    };
    const gaps = kernelGaps(kernels);
    const worst = Object.entries(gaps).find(([, gap]) => !(gap <= WEBGPU_TOLERANCE));
    if (worst) {
      await close();
      return {
        reason: `webgpu on ${start.note}: self-check failed (${worst[0]} off by ${worst[1].toExponential(2)})`,
      };
    }
    worker.unref();
    return kernels;
  } catch (err) {
    await stop();
    return { reason: `webgpu: ${(err as Error).message}` };
  }
}

class GpuProxy {
  private nextId = 0;

  constructor(
    private readonly worker: Worker,
    private readonly replies: MessagePort,
    private readonly flag: Int32Array,
  ) {}

  /** Sends a request and blocks until the worker has answered it. */
  call(request: GpuRequest): unknown {
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage(request);
    const deadline = Date.now() + CALL_TIMEOUT_MS;
    while (Atomics.load(this.flag, 0) === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the GPU worker did not answer within ${CALL_TIMEOUT_MS / 1000} s`);
      Atomics.wait(this.flag, 0, 0, left);
    }
    const got = receiveMessageOnPort(this.replies);
    if (!got) throw new Error('the GPU worker flagged a reply but sent none');
    const reply = got.message as GpuReply;
    if (!reply.ok) throw new Error(`GPU kernels: ${reply.error}`);
    return reply.result;
  }

  open(shape: RelaxedShape, initial: Float64Array): KernelSession {
    const id = this.nextId++;
    this.call({ type: 'open', id, shape, initial });
    const call = (method: Extract<GpuRequest, { type: 'call' }>['method'], ...args: unknown[]) =>
      this.call({ type: 'call', id, method, args });
    return {
      backend: 'webgpu',
      project: () => void call('project'),
      read: () => call('read') as Float64Array,
      readGradient: () => call('readGradient') as Float64Array,
      thresholdAnswers: (t: Threshold) => call('thresholdAnswers', t) as Float64Array,
      answersOf: (thresholds: readonly Threshold[]) =>
        thresholds.map((t) => call('thresholdAnswers', t) as Float64Array),
      lossAndGradient: (batch: ProjectionBatch, scale = 1) =>
        call('lossAndGradient', batch, scale) as LossResult,
      adamStep: (hyper: AdamHyper) => void call('adamStep', hyper),
      resetOptimizer: () => void call('resetOptimizer'),
      dispose: () => void call('dispose'),
    };
  }
}
