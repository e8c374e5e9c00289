/**
 * The Electron build (`electron-vite build`, run before the e2e tests) carries the engine's worker
 * files where the bundled engine looks for them (kernels/threaded.ts workerFile: beside the module
 * that starts them), so the packaged app's engine runs on every core, not on one thread.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultOptions } from '../../src/core/engine/defaults.ts';
import { seededNoise } from '../../src/core/privacy/noise.ts';
import { randomDataset } from '../../src/core/workload/test-data.ts';

const chunks = join(import.meta.dirname, '../../out/main/chunks');

/** The bundled chunk that starts the engine's workers. */
function engineChunk(): string {
  const file = readdirSync(chunks).find(
    (f) => f.endsWith('.js') && readFileSync(join(chunks, f), 'utf8').includes('workerFile("thread-worker")'),
  );
  if (!file) throw new Error(`no chunk in ${chunks} starts the engine's thread workers`);
  return join(chunks, file);
}

describe('the built engine', () => {
  it('finds its thread and GPU worker files beside the chunk that starts them', () => {
    const files = readdirSync(chunks);
    expect(files).toContain('thread-worker.js');
    expect(files).toContain('gpu-worker.js');
    expect(readFileSync(engineChunk(), 'utf8')).toContain('workerFile("gpu-worker")');
  });

  it('runs its CPU kernels on two threads', async () => {
    const { runRap } = (await import(
      pathToFileURL(engineChunk()).href
    )) as typeof import('../../src/core/engine/rap.ts');
    const data = randomDataset([3, 4, 2, 5], 400, 7);
    const workload = {
      thresholds: [
        { features: [0, 1], r: 2, weight: 1 },
        { features: [2, 3], r: 2, weight: 1 },
      ],
    };
    const options = defaultOptions({ epsilon: 1, delta: 1e-6, rows: 50, backend: 'cpu', threads: 2 });
    const { report } = await runRap({ data, workload, options, noise: seededNoise(1) });
    expect(report.backendNote).toMatch(/^cpu, 2 threads/);
  }, 120_000);
});
