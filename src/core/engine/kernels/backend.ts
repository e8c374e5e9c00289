/**
 * Which kernels run: the backend chain node-gpu → webgpu → node → cpu (typed arrays on every core)
 * when none is asked for, chosen once at the start of a run. 'wasm' (TensorFlow.js on
 * WebAssembly) is used only when asked for: on this kind of machine the typed kernels are faster
 * (bench/engine.bench.ts). tfjs-node(-gpu) are optional packages, loaded by a dynamic import that
 * may fail; webgpu (Dawn) is used unasked only on a hardware adapter that passes a self-check.
 */
import { InputError } from '../../errors.ts';
import type { BackendName } from '../types.ts';
import type { EngineKernels } from './session.ts';
import { threadedKernels } from './threaded.ts';
import { type WebgpuOutcome, webgpuKernels } from './webgpu.ts';

type Tf = typeof import('@tensorflow/tfjs');

const NATIVE_PACKAGES: Record<'node' | 'node-gpu', string> = {
  node: '@tensorflow/tfjs-node',
  'node-gpu': '@tensorflow/tfjs-node-gpu',
};

async function nativeTf(backend: 'node' | 'node-gpu'): Promise<Tf> {
  const name = NATIVE_PACKAGES[backend];
  const tf = (await import(name)) as Tf;
  await tf.ready();
  if (tf.getBackend() !== 'tensorflow')
    throw new Error(`${name} loaded but its backend is ${tf.getBackend()}`);
  return tf;
}

async function wasmTf(): Promise<Tf> {
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const { createRequire } = await import('node:module');
  const path = await import('node:path');
  // Node cannot fetch the .wasm binaries by URL: point tfjs at the installed files.
  const pkg = createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm/package.json');
  wasm.setWasmPaths(`${path.dirname(pkg)}/dist/`);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js wasm backend failed to initialize');
  return tf;
}

async function tfjsKernels(backend: 'node' | 'node-gpu' | 'wasm'): Promise<EngineKernels> {
  const tf = backend === 'wasm' ? await wasmTf() : await nativeTf(backend);
  const { createTfjsKernels } = await import('./tfjs.ts');
  return createTfjsKernels(tf, backend);
}

/**
 * The webgpu kernels (or why not), found once per process and kind: a GPU worker and its device
 * serve every later run (the engine child runs one; benchmarks and tests run many).
 */
const webgpuOutcomes = new Map<boolean, Promise<WebgpuOutcome>>();

function cachedWebgpu(allowSoftware: boolean): Promise<WebgpuOutcome> {
  let outcome = webgpuOutcomes.get(allowSoftware);
  if (!outcome) webgpuOutcomes.set(allowSoftware, (outcome = webgpuKernels({ allowSoftware })));
  return outcome;
}

/** How kernels are loaded: CPU threads (default every core). */
export interface KernelOptions {
  readonly threads?: number;
}

async function cpuKernels(threads: number | undefined, why?: string): Promise<EngineKernels> {
  const kernels = await threadedKernels(threads);
  const count = `${kernels.threads} thread${kernels.threads === 1 ? '' : 's'}`;
  const parts = [`cpu, ${count}`, ...(kernels.note ? [kernels.note] : []), ...(why ? [why] : [])];
  return { ...kernels, note: parts.join('; ') };
}

/**
 * The kernels for a requested backend (an unavailable explicit one is an error), or the chain's
 * first that works: node-gpu, webgpu on a hardware adapter that passes its self-check, node, then
 * the CPU kernels on every core. `note` says in one line what ran and why (e.g. why not the GPU).
 */
export async function loadKernels(
  requested?: BackendName,
  options: KernelOptions = {},
): Promise<EngineKernels> {
  if (requested === 'cpu') return cpuKernels(options.threads);
  if (requested !== undefined) {
    try {
      if (requested === 'webgpu') {
        const gpu = await cachedWebgpu(true);
        if ('reason' in gpu) throw new Error(gpu.reason);
        return gpu;
      }
      return await tfjsKernels(requested);
    } catch (err) {
      throw new InputError(
        `backend '${requested}' is not available here (${(err as Error).message}); ` +
          `use --backend cpu, or leave --backend out to pick the best available`,
        { field: 'backend', value: requested },
      );
    }
  }
  try {
    return await tfjsKernels('node-gpu');
  } catch {
    // Not installed or no device: try the next one.
  }
  const gpu = await cachedWebgpu(false);
  if (!('reason' in gpu)) return gpu;
  try {
    return await tfjsKernels('node');
  } catch {
    // Not installed: the typed kernels.
  }
  return cpuKernels(options.threads, `GPU not used: ${gpu.reason}`);
}
