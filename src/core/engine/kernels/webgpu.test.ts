/**
 * The webgpu backend against the typed kernels (sparsemax, table answers, loss, gradient, an Adam
 * step; 1e-5 relative): on a machine without a GPU it runs on Mesa's llvmpipe through Dawn's
 * OpenGL ES backend (.ci/run installs the Mesa EGL/GLES packages). Skipped, saying why, only when
 * no adapter at all can be created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededNoise } from '../../privacy/noise.ts';
import { randomDataset } from '../../workload/test-data.ts';
import { defaultOptions } from '../defaults.ts';
import { runRap } from '../rap.ts';
import { kernelGaps } from './kernel-check.ts';
import { WEBGPU_TOLERANCE, type WebgpuOutcome, webgpuKernels } from './webgpu.ts';
import { isSoftwareAdapter, NO_ADAPTER } from './webgpu-adapter.ts';

let outcome: WebgpuOutcome = { reason: 'not started' };

beforeAll(async () => {
  outcome = await webgpuKernels({ allowSoftware: true });
}, 240_000);

/** Skips (saying why) only when Dawn cannot create any adapter here; any other failure fails. */
function available(
  o: WebgpuOutcome,
  skip: (note: string) => void,
): o is Exclude<WebgpuOutcome, { reason: string }> {
  if (!('reason' in o)) return true;
  if (o.reason.startsWith(NO_ADAPTER) || /webgpu package cannot load/.test(o.reason)) {
    skip(`no WebGPU adapter can be created here: ${o.reason}`);
    return false;
  }
  throw new Error(`the webgpu backend did not start: ${o.reason}`);
}

afterAll(async () => {
  if (!('reason' in outcome)) await outcome.close();
}, 30_000);

describe('webgpu kernels', () => {
  it('agree with the typed kernels within 1e-5 relative (sparsemax, answers, loss, gradient, step)', (ctx) => {
    if (!available(outcome, (note) => ctx.skip(note))) return;
    const gaps = kernelGaps(outcome);
    for (const [what, gap] of Object.entries(gaps)) expect(gap, what).toBeLessThanOrEqual(WEBGPU_TOLERANCE);
    expect(outcome.note).toMatch(/^webgpu on .*self-check passed/);
  }, 240_000);

  it('are never chosen unasked on a software adapter', async () => {
    const auto = await webgpuKernels({ allowSoftware: false });
    if ('reason' in auto)
      expect(auto.reason).toMatch(/^no (hardware )?GPU adapter|webgpu package cannot load/);
    else {
      // A machine with a real GPU: the adapter it found is hardware.
      expect(auto.note).toMatch(/hardware adapter/);
      await auto.close();
    }
  }, 240_000);
});

describe('a RAP run on the webgpu backend', () => {
  it('runs in table mode and lands where the CPU kernels land (float32)', async (ctx) => {
    if (!available(outcome, (note) => ctx.skip(note))) return;
    const data = randomDataset([4, 3, 6, 2, 5], 300, 7);
    const workload = {
      thresholds: [
        { features: [0, 2, 4], r: 3, weight: 1 },
        { features: [1, 2], r: 2, weight: 2 },
      ],
    };
    const run = (backend: 'cpu' | 'webgpu') =>
      runRap({
        data,
        workload,
        options: defaultOptions({ epsilon: 1, delta: 1e-6, rows: 20, mode: 'table', maxSteps: 8, backend }),
        noise: seededNoise(4),
      });
    const gpu = (await run('webgpu')).report;
    const cpu = (await run('cpu')).report;
    expect(gpu.backend).toBe('webgpu');
    expect(gpu.backendNote).toMatch(/^webgpu on .*self-check passed/);
    expect(Math.abs(gpu.presentError - cpu.presentError)).toBeLessThan(1e-4);
  }, 240_000);
});

describe('software adapters', () => {
  it('are recognized from the adapter info', () => {
    expect(
      isSoftwareAdapter({ device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'OpenGL ES 3.2 Mesa' }),
    ).toBe(true);
    expect(isSoftwareAdapter({ vendor: 'mesa', device: 'lavapipe' })).toBe(true);
    expect(isSoftwareAdapter({ vendor: 'google', architecture: 'swiftshader' })).toBe(true);
    expect(isSoftwareAdapter({ isFallbackAdapter: true })).toBe(true);
    expect(
      isSoftwareAdapter({ vendor: 'nvidia', architecture: 'hopper', device: 'NVIDIA H100 80GB HBM3' }),
    ).toBe(false);
  });
});
