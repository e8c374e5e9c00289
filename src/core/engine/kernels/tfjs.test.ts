/** The tfjs kernels (on tfjs' own cpu backend, and on wasm) against the typed kernels. */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededNoise } from '../../privacy/noise.ts';
import { randomDataset } from '../../workload/test-data.ts';
import { defaultOptions } from '../defaults.ts';
import { runRap } from '../rap.ts';
import { maxAbsDiff, randomRelaxed } from '../testing.ts';
import { adamHyper } from './adam.ts';
import { loadKernels } from './backend.ts';
import { batch, SIZES, shape, thresholds } from './kernel-fixtures.ts';
import { createTfjsKernels } from './tfjs.ts';
import { typedKernels } from './typed.ts';

describe.each(['cpu', 'wasm'])('tfjs kernels on the %s backend', (tfBackend) => {
  beforeAll(async () => {
    if (tfBackend === 'wasm') await loadKernels('wasm');
    else await tf.setBackend('cpu');
  });

  it('agree with the typed kernels: projection, answers, loss, gradient, Adam', () => {
    const initial = randomRelaxed(shape, 5, false);
    const ours = createTfjsKernels(tf, 'wasm').open(shape, initial);
    const typed = typedKernels.open(shape, initial);
    ours.project();
    typed.project();
    expect(maxAbsDiff(ours.read(), typed.read())).toBeLessThan(1e-5);
    for (const t of thresholds) {
      expect(maxAbsDiff(ours.thresholdAnswers(t), typed.thresholdAnswers(t))).toBeLessThan(1e-5);
    }
    const a = ours.lossAndGradient(batch, 2);
    const b = typed.lossAndGradient(batch, 2);
    expect(a.loss).toBeCloseTo(b.loss, 4);
    expect(a.maxError).toBeCloseTo(b.maxError, 4);
    const gb = typed.readGradient();
    const scale = Math.max(...gb.map(Math.abs));
    expect(scale).toBeGreaterThan(0);
    expect(maxAbsDiff(ours.readGradient(), gb) / scale).toBeLessThan(1e-4);
    const hyper = adamHyper(0.05, shape.rows);
    ours.adamStep(hyper);
    typed.adamStep(hyper);
    ours.project();
    typed.project();
    expect(maxAbsDiff(ours.read(), typed.read())).toBeLessThan(1e-4);
    ours.dispose();
  });

  it('keep the tensor count flat across steps', () => {
    const session = createTfjsKernels(tf, 'wasm').open(shape, randomRelaxed(shape, 6, false));
    session.project();
    const hyper = adamHyper(0.05, shape.rows);
    const counts: number[] = [];
    for (let step = 0; step < 4; step++) {
      session.lossAndGradient(batch);
      session.adamStep(hyper);
      session.project();
      session.thresholdAnswers(thresholds[2]);
      session.resetOptimizer();
      counts.push(tf.memory().numTensors);
    }
    expect(new Set(counts).size).toBe(1);
    const before = tf.memory().numTensors;
    session.dispose();
    expect(tf.memory().numTensors).toBe(before - 4);
  });
});

describe('a RAP run on the wasm backend', () => {
  it('reports the backend and leaks no tensors across rounds', async () => {
    await loadKernels('wasm');
    const data = randomDataset(SIZES, 300, 3);
    const workload = { thresholds: thresholds.slice(1) };
    const start = tf.memory().numTensors;
    // Tensor count at the last event of each round (each round ends with one).
    const perRound = new Map<number, number>();
    const { report } = await runRap({
      data,
      workload,
      options: defaultOptions({
        epsilon: 1,
        delta: 1e-6,
        rows: 20,
        rounds: 3,
        perRound: 4,
        mode: 'query',
        maxSteps: 15,
        backend: 'wasm',
      }),
      noise: seededNoise(1),
      onProgress: (e) => {
        perRound.set(e.round, tf.memory().numTensors);
      },
    });
    expect(report.backend).toBe('wasm');
    expect(perRound.size).toBe(3);
    expect(new Set(perRound.values()).size).toBe(1);
    expect(tf.memory().numTensors).toBe(start);
  });
});
