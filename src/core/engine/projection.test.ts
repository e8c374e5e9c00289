import { describe, expect, it } from 'vitest';
import { seededNoise } from '../privacy/noise.ts';
import type { ProjectionBatch } from './kernels/session.ts';
import { typedKernels } from './kernels/typed.ts';
import { project } from './projection.ts';
import { RunControl } from './run-control.ts';
import { randomRelaxed, smallShape } from './testing.ts';

const shape = smallShape([3, 4, 2], 30);

/** Eight 2-way queries on features 0 and 1 with reachable targets. */
function problem(): ProjectionBatch {
  const columns: number[] = [];
  const targets: number[] = [];
  for (let q = 0; q < 8; q++) {
    columns.push(q % 3, shape.layout.offsets[1] + (q % 4));
    targets.push(0.05 + 0.02 * q);
  }
  return {
    groups: [
      {
        k: 2,
        r: 2,
        count: 8,
        columns: Int32Array.from(columns),
        weights: new Float64Array(8).fill(1),
        targets: Float64Array.from(targets),
      },
    ],
    tables: [],
  };
}

async function run(
  settings: { maxSteps: number; tolerance: number; batchSize: number },
  seed = 1,
  learningRate = 0.02,
) {
  const session = typedKernels.open(shape, randomRelaxed(shape, 3));
  const losses: number[] = [];
  const outcome = await project(
    session,
    problem(),
    { learningRate, rows: shape.rows, noiseFloor: 0, ...settings },
    seededNoise(seed),
    new RunControl(),
    (s) => losses.push(s.loss),
  );
  return { outcome, losses, values: session.read() };
}

describe('project', () => {
  it('lowers the loss and respects the step budget', async () => {
    const { outcome, losses } = await run(
      { maxSteps: 200, tolerance: Number.NEGATIVE_INFINITY, batchSize: 100 },
      1,
      0.05,
    );
    expect(outcome.steps).toBe(200);
    expect(losses.length).toBe(200);
    expect(losses[199]).toBeLessThan(losses[0] / 1000);
  });

  it('stops early once a window improves by less than the tolerance', async () => {
    const { outcome } = await run({ maxSteps: 500, tolerance: 0.9, batchSize: 100 });
    // The first window sets the reference; the second improves by less than 90 %.
    expect(outcome.steps).toBe(20);
  });

  it('fits mini-batches reproducibly for a seed', async () => {
    const a = await run({ maxSteps: 80, tolerance: 0, batchSize: 3 });
    const b = await run({ maxSteps: 80, tolerance: 0, batchSize: 3 });
    const c = await run({ maxSteps: 80, tolerance: 0, batchSize: 3 }, 2);
    expect(a.values).toEqual(b.values);
    expect(a.values).not.toEqual(c.values);
    const full = await run({ maxSteps: 1, tolerance: 0, batchSize: 100 });
    expect(a.outcome.loss).toBeLessThan(full.outcome.loss);
  });
});
