/**
 * Which kernel backends this installation can run, and what `auto` will pick, in one line for
 * the app's About box and Privacy step (backend.ts makes the choice at run time; this only looks
 * at which optional packages are installed).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { BACKENDS, type BackendName } from '../../input/choices.ts';

function installed(pkg: string): boolean {
  try {
    createRequire(import.meta.url).resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

export interface AvailableBackends {
  /** What `auto` runs here, as a sentence. */
  readonly backend: string;
  /** 'auto' and every backend whose packages are installed, in BACKENDS' order. */
  readonly backends: readonly ('auto' | BackendName)[];
}

export function availableBackends(): AvailableBackends {
  const gpu = installed('@tensorflow/tfjs-node-gpu');
  const node = installed('@tensorflow/tfjs-node');
  const present: Record<BackendName, boolean> = {
    cpu: true,
    wasm: true,
    node,
    'node-gpu': gpu,
    webgpu: installed('webgpu'),
  };
  const backends = ['auto' as const, ...BACKENDS.filter((b) => present[b])];
  const cpu = `cpu (typed arrays, ${availableParallelism()} threads)`;
  const backend = gpu
    ? 'node-gpu (GPU) if a device is present, else cpu'
    : present.webgpu
      ? `webgpu on a hardware GPU that passes its self-check, else ${node ? 'node (CPU native)' : cpu}`
      : node
        ? 'node (CPU native)'
        : cpu;
  return { backend, backends };
}
