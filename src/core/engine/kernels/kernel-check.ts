/**
 * A backend's kernels against the typed kernels on the fixture batch (kernel-fixtures.ts):
 * projection, every threshold's answers, loss, gradient, and D' after an Adam step and a
 * projection. Each gap is max |ours − typed| over the quantity, relative to its largest |typed|.
 * The webgpu backend's start-up self-check and its tests both use it.
 */
import { maxAbsDiff, randomRelaxed } from '../testing.ts';
import { adamHyper } from './adam.ts';
import { batch, shape, thresholds } from './kernel-fixtures.ts';
import type { EngineKernels } from './session.ts';
import { typedKernels } from './typed.ts';

function relativeGap(ours: ArrayLike<number>, typed: ArrayLike<number>): number {
  let scale = 0;
  for (let i = 0; i < typed.length; i++) scale = Math.max(scale, Math.abs(typed[i]));
  if (ours.length !== typed.length) return Number.POSITIVE_INFINITY;
  return maxAbsDiff(ours, typed) / (scale || 1);
}

export function kernelGaps(kernels: EngineKernels): Record<string, number> {
  const initial = randomRelaxed(shape, 5, false);
  const ours = kernels.open(shape, initial);
  const typed = typedKernels.open(shape, initial);
  try {
    const gaps: Record<string, number> = {};
    ours.project();
    typed.project();
    gaps.sparsemax = relativeGap(ours.read(), typed.read());
    gaps.answers = Math.max(
      ...thresholds.map((t) => relativeGap(ours.thresholdAnswers(t), typed.thresholdAnswers(t))),
    );
    const a = ours.lossAndGradient(batch, 2);
    const b = typed.lossAndGradient(batch, 2);
    gaps.loss = relativeGap([a.loss, a.maxError], [b.loss, b.maxError]);
    gaps.gradient = relativeGap(ours.readGradient(), typed.readGradient());
    const hyper = adamHyper(0.05, shape.rows);
    ours.adamStep(hyper);
    typed.adamStep(hyper);
    ours.project();
    typed.project();
    gaps.step = relativeGap(ours.read(), typed.read());
    return gaps;
  } finally {
    ours.dispose();
    typed.dispose();
  }
}

export function maxRelativeGap(kernels: EngineKernels): number {
  return Math.max(...Object.values(kernelGaps(kernels)));
}
