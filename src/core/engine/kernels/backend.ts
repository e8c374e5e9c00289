/**
 * Which kernels run: the backend chain node-gpu → node → cpu (typed arrays) when none is asked
 * for, chosen once at the start of a run. 'wasm' (TensorFlow.js on WebAssembly) is used only when
 * asked for: on this kind of machine the typed kernels are faster (bench/engine.bench.ts).
 * tfjs-node(-gpu) are optional packages, loaded by a dynamic import that may fail.
 */
import { InputError } from '../../errors.ts';
import type { BackendName } from '../types.ts';
import type { EngineKernels } from './session.ts';
import { typedKernels } from './typed.ts';

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

async function tfjsKernels(backend: Exclude<BackendName, 'cpu'>): Promise<EngineKernels> {
  const tf = backend === 'wasm' ? await wasmTf() : await nativeTf(backend);
  const { createTfjsKernels } = await import('./tfjs.ts');
  return createTfjsKernels(tf, backend);
}

/** The kernels for a requested backend (an unavailable explicit one is an error), or the chain's first. */
export async function loadKernels(requested?: BackendName): Promise<EngineKernels> {
  if (requested === 'cpu') return typedKernels;
  if (requested !== undefined) {
    try {
      return await tfjsKernels(requested);
    } catch (err) {
      throw new InputError(
        `backend '${requested}' is not available here (${(err as Error).message}); ` +
          `use --backend cpu, or leave --backend out to pick the best available`,
        { field: 'backend', value: requested },
      );
    }
  }
  for (const backend of ['node-gpu', 'node'] as const) {
    try {
      return await tfjsKernels(backend);
    } catch {
      // Not installed or no device: try the next one.
    }
  }
  return typedKernels;
}
