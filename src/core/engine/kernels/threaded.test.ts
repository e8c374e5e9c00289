/**
 * The multi-threaded CPU kernels give bit for bit what the single-threaded typed kernels give,
 * whatever the thread count (shard.ts: no sum crosses a split), so a seeded run's release does
 * not depend on the machine's cores.
 */
import { describe, expect, it } from 'vitest';
import { seededNoise } from '../../privacy/noise.ts';
import { randomDataset } from '../../workload/test-data.ts';
import { defaultOptions } from '../defaults.ts';
import { runRap } from '../rap.ts';
import { randomRelaxed, smallShape } from '../testing.ts';
import { adamHyper } from './adam.ts';
import { batch, SIZES, thresholds } from './kernel-fixtures.ts';
import type { KernelSession } from './session.ts';
import { threadedKernels } from './threaded.ts';
import { typedKernels } from './typed.ts';

// 37 rows: the threads' row ranges are uneven, and one thread's range can hold a single tile.
const shape = smallShape(SIZES, 37);

/** Everything a session exposes after a few steps on the fixture batch. */
function trace(session: KernelSession): Float64Array[] {
  const out: Float64Array[] = [];
  const hyper = adamHyper(0.05, shape.rows);
  session.project();
  out.push(session.read());
  for (let step = 0; step < 3; step++) {
    const { loss, maxError } = session.lossAndGradient(batch, 1.5);
    out.push(Float64Array.of(loss, maxError), session.readGradient());
    session.adamStep(hyper);
    session.project();
    out.push(session.read());
    for (const t of thresholds) out.push(session.thresholdAnswers(t));
    out.push(...session.answersOf(thresholds));
  }
  // A step read before its projection (the threaded session applies it on its own then), and a
  // step followed by a loss without a projection.
  session.lossAndGradient(batch);
  session.adamStep(hyper);
  out.push(session.read());
  session.project();
  session.adamStep(hyper);
  out.push(Float64Array.of(session.lossAndGradient(batch).loss));
  session.resetOptimizer();
  out.push(Float64Array.of(session.lossAndGradient(batch).loss), session.readGradient());
  session.dispose();
  return out;
}

describe('threaded CPU kernels', () => {
  it('equal the typed kernels bit for bit with 1, 2 and 3 threads (off the simplex start)', async () => {
    const initial = randomRelaxed(shape, 11, false);
    const expected = trace(typedKernels.open(shape, initial));
    for (const threads of [1, 2, 3]) {
      const kernels = await threadedKernels(threads);
      expect(kernels).toMatchObject({ threads, backend: 'cpu' });
      expect(kernels.note).toBeUndefined();
      expect(trace(kernels.open(shape, initial))).toEqual(expected);
    }
  }, 60_000);

  it('give a seeded run the same release with 1, 2 and 3 threads (table and query mode)', async () => {
    const data = randomDataset([4, 3, 6, 2, 5], 400, 7);
    const workload = {
      thresholds: [
        { features: [0, 2, 4], r: 3, weight: 1 },
        { features: [1, 2], r: 2, weight: 2 },
        { features: [0, 1, 3, 4], r: 2, weight: 1 },
      ],
    };
    for (const mode of ['table', 'query'] as const) {
      const runs = [];
      for (const threads of [1, 2, 3]) {
        const { report, synthetic } = await runRap({
          data,
          workload,
          options: defaultOptions({
            epsilon: 1,
            delta: 1e-6,
            rows: 30,
            mode,
            maxSteps: 20,
            backend: 'cpu',
            threads,
          }),
          noise: seededNoise(4),
        });
        expect(report.backendNote).toMatch(new RegExp(`^cpu, ${threads} threads?`));
        runs.push({
          codes: synthetic.codes,
          errors: [report.presentError, report.meanError, report.roundedPresentError],
        });
      }
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).toEqual(runs[0]);
    }
  }, 120_000);

  it('refuse a thread count that is not a positive integer', async () => {
    await expect(threadedKernels(0)).rejects.toThrow(/positive integer/);
    await expect(threadedKernels(1.5)).rejects.toThrow(/positive integer/);
  });
});
