/**
 * Finding a WebGPU adapter with Dawn (the `webgpu` npm package; its native binary ships in the
 * tarball, nothing is downloaded at install). Runs in the GPU worker (gpu-worker.ts).
 *
 * Dawn's default backends are asked first (Vulkan on an NVIDIA or AMD machine, with the
 * driver's ICD and Debian's libvulkan1), then, when a software adapter is acceptable, OpenGL ES
 * in compatibility mode — Mesa's llvmpipe on a machine without a GPU (EGL without a display: webgpu.ts sets EGL_PLATFORM=surfaceless). A software
 * adapter (its info names llvmpipe, lavapipe, SwiftShader, ...) is taken only when allowed.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type GpuStart =
  | { readonly ok: true; readonly note: string }
  | { readonly ok: false; readonly reason: string };

/** Whether the adapter is a software renderer (Mesa llvmpipe/lavapipe/softpipe, SwiftShader, ...). */
export function isSoftwareAdapter(info: {
  readonly vendor?: string;
  readonly architecture?: string;
  readonly device?: string;
  readonly description?: string;
  readonly isFallbackAdapter?: boolean;
}): boolean {
  if (info.isFallbackAdapter) return true;
  const text = [info.vendor, info.architecture, info.device, info.description].join(' ');
  return /llvmpipe|lavapipe|softpipe|swiftshader|software|\bcpu\b/i.test(text);
}

/** One line naming an adapter, e.g. "llvmpipe-llvm-15-0-6-256-bits- (OpenGL ES 3.2 Mesa 22.3.6)". */
export function adapterName(info: GPUAdapterInfo): string {
  const name = [info.vendor, info.architecture, info.device].filter(Boolean).join(' ') || 'unnamed adapter';
  return info.description ? `${name} (${info.description})` : name;
}

/** How a reason starts when Dawn finds no adapter at all (tests skip only then). */
export const NO_ADAPTER = 'no GPU adapter';
/** How a reason starts when Dawn finds only software adapters. */
export const NO_HARDWARE_ADAPTER = 'no hardware GPU adapter';

/** Steps that talk to the driver get this long before the backend is given up. */
const STEP_TIMEOUT_MS = 60_000;

export function withTimeout<T>(what: string, p: Promise<T>, ms = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const VULKAN_LOADER = 'libvulkan.so.1';

/**
 * Whether the dynamic linker can find the Vulkan loader: in LD_LIBRARY_PATH, in the linker's
 * cache (/etc/ld.so.cache names every library it knows), or in the usual folders. Linux only;
 * elsewhere Dawn is asked.
 */
export function vulkanLoaderPresent(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.platform !== 'linux') return true;
  const dirs = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
  dirs.push(
    '/usr/lib/x86_64-linux-gnu',
    '/usr/lib/aarch64-linux-gnu',
    '/usr/lib64',
    '/usr/lib',
    '/lib64',
    '/lib',
  );
  if (dirs.some((d) => existsSync(join(d, VULKAN_LOADER)))) return true;
  try {
    return readFileSync('/etc/ld.so.cache').includes(VULKAN_LOADER);
  } catch {
    return false;
  }
}

const ATTEMPTS: readonly { flags: string[]; options: GPURequestAdapterOptions; label: string }[] = [
  { flags: [], options: { powerPreference: 'high-performance' }, label: 'default backends' },
  {
    flags: ['backend=opengles'],
    // Dawn's OpenGL ES backend offers only compatibility-mode adapters.
    options: { featureLevel: 'compatibility' } as GPURequestAdapterOptions,
    label: 'OpenGL ES',
  },
];

/** The adapter and an open device, or why there is none. Sets Dawn's globals (GPUBufferUsage, ...). */
export async function findAdapter(allowSoftware: boolean): Promise<
  | {
      readonly ok: true;
      readonly gpu: GPU;
      readonly device: GPUDevice;
      readonly info: GPUAdapterInfo;
      readonly note: string;
    }
  | { readonly ok: false; readonly reason: string }
> {
  let dawn: typeof import('webgpu');
  try {
    dawn = await import('webgpu');
  } catch (err) {
    return { ok: false, reason: `the webgpu package cannot load (${(err as Error).message})` };
  }
  Object.assign(globalThis, dawn.globals);
  const tried: string[] = [];
  let chosen: { gpu: GPU; adapter: GPUAdapter } | undefined;
  let software: { gpu: GPU; adapter: GPUAdapter } | undefined;
  // Unasked, OpenGL ES is not tried: on a machine without a Vulkan driver it offers only
  // llvmpipe (and starting Mesa costs time and prints Dawn's warnings at every run).
  for (const attempt of allowSoftware ? ATTEMPTS : ATTEMPTS.slice(0, 1)) {
    // Without a Vulkan loader Dawn's default backends find nothing, and say so on stderr from
    // native code (twice per run: the CLI's probe and the engine's): skip them, quietly.
    if (attempt.flags.length === 0 && !vulkanLoaderPresent()) {
      tried.push(`${attempt.label}: none (no Vulkan loader, ${VULKAN_LOADER})`);
      continue;
    }
    const gpu = dawn.create(attempt.flags);
    const adapter = await withTimeout('requesting a GPU adapter', gpu.requestAdapter(attempt.options));
    if (!adapter) {
      tried.push(`${attempt.label}: none`);
      continue;
    }
    if (!isSoftwareAdapter(adapter.info)) {
      chosen = { gpu, adapter };
      break;
    }
    tried.push(`${attempt.label}: ${adapterName(adapter.info)}, a software renderer`);
    software ??= { gpu, adapter };
  }
  if (!chosen && allowSoftware) chosen = software;
  if (!chosen) {
    const what = software ? NO_HARDWARE_ADAPTER : NO_ADAPTER;
    return { ok: false, reason: `${what} (${tried.join('; ')})` };
  }
  const { gpu, adapter } = chosen;
  const limits = adapter.limits;
  const device = await withTimeout(
    'opening the GPU device',
    adapter.requestDevice({
      requiredLimits: {
        maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
        maxBufferSize: limits.maxBufferSize,
        maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
        maxComputeInvocationsPerWorkgroup: limits.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupSizeX: limits.maxComputeWorkgroupSizeX,
        maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
      },
    }),
  );
  const info = adapter.info;
  const kind = isSoftwareAdapter(info) ? 'software adapter, slow' : 'hardware adapter';
  return { ok: true, gpu, device, info, note: `${adapterName(info)} (${kind})` };
}
