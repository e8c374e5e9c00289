/**
 * Importance weights from history (Avent & Korolova's proposal for partial knowledge): a
 * threshold whose features the historical workload asks about often is likely to matter for
 * future queries too, so it gets more weight in selection and in the fit.
 *
 *   c_f   = number of historical thresholds that contain feature f
 *   s(S)  = (1/|S|) Σ_{f ∈ S} (c_f + 1)        (add-one: a feature history never saw keeps weight)
 *   w_S  ← w_S · s(S) / max_S' (w_S' · s(S'))   (the curator's weight times the score, max = 1)
 *
 * Privacy: the weights are computed from two public inputs (the workload and the historical
 * workload), never from the data, and they are at most 1. The engine's selection scores are
 * w·|exact − relaxed| with sensitivity w_max/n = 1/n (docs/privacy.md), table mode's unit weights
 * are normalized to max 1 the same way, so these weights keep every sensitivity and noise scale
 * exactly as they are: they cost no privacy budget. (Weights above 1 would scale the score
 * sensitivity, and so the selection noise, by w_max; normalizing avoids that.)
 */
import { InputError } from '../errors.ts';
import type { Threshold, Workload } from './types.ts';

/** Historical thresholds containing each feature. */
export function featureCounts(history: Workload, numFeatures: number): number[] {
  const counts = new Array<number>(numFeatures).fill(0);
  for (const t of history.thresholds) {
    for (const f of t.features) {
      if (!(Number.isInteger(f) && f >= 0 && f < numFeatures))
        throw new InputError(`historical workload: feature index ${f} is outside 0..${numFeatures - 1}`);
      counts[f]++;
    }
  }
  return counts;
}

/** s(S) of the header: the mean add-one historical count of the threshold's features. */
export function historyScore(t: Threshold, counts: readonly number[]): number {
  let sum = 0;
  for (const f of t.features) sum += counts[f] + 1;
  return sum / t.features.length;
}

/** The workload with every weight multiplied by its history score, then divided by the max. */
export function weightByHistory(workload: Workload, history: Workload, numFeatures: number): Workload {
  const counts = featureCounts(history, numFeatures);
  const raw = workload.thresholds.map((t) => t.weight * historyScore(t, counts));
  const max = Math.max(...raw);
  if (!(max > 0 && Number.isFinite(max))) throw new InputError('the workload has no thresholds to weight');
  return { thresholds: workload.thresholds.map((t, i) => ({ ...t, weight: raw[i] / max })) };
}
