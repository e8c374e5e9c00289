/**
 * The default workload for a curator with no analysis in mind: every 2-way marginal, and, when a
 * target column is named, every 3-way marginal of two other columns with the target. Every
 * threshold has weight 1: no pair is preferred without a reason to, and equal weights let the
 * release use the direct plan when its rule allows (docs/privacy.md, "Table mode's plan").
 * Public: it reads the column names only.
 */
import { InputError } from '../errors.ts';
import type { Threshold, Workload } from './types.ts';

/** Weight of every threshold of the default workload. */
export const DEFAULT_WORKLOAD_WEIGHT = 1;

export function defaultWorkload(numFeatures: number, target?: number): Workload {
  if (!(Number.isInteger(numFeatures) && numFeatures >= 2)) {
    throw new InputError(`the default workload needs at least two columns, got ${numFeatures}`);
  }
  if (target !== undefined && !(Number.isInteger(target) && target >= 0 && target < numFeatures)) {
    throw new RangeError(`target column ${target} is not one of the ${numFeatures} columns`);
  }
  const weight = DEFAULT_WORKLOAD_WEIGHT;
  const thresholds: Threshold[] = [];
  for (let a = 0; a < numFeatures; a++)
    for (let b = a + 1; b < numFeatures; b++) thresholds.push({ features: [a, b], r: 2, weight });
  if (target !== undefined) {
    const others = Array.from({ length: numFeatures }, (_, i) => i).filter((i) => i !== target);
    for (let i = 0; i < others.length; i++)
      for (let j = i + 1; j < others.length; j++) {
        const features = [others[i], others[j], target].sort((x, y) => x - y);
        thresholds.push({ features, r: 3, weight });
      }
  }
  return { thresholds };
}

/** The default workload over named columns; `target` must be one of them. */
export function defaultWorkloadFor(header: readonly string[], target?: string, file = 'the table'): Workload {
  if (target === undefined) return defaultWorkload(header.length);
  const t = header.indexOf(target);
  if (t === -1) {
    throw new InputError(
      `${file}: the target column "${target}" is not in the table (it has: ${header.join(', ')}).`,
      {
        file,
        column: target,
      },
    );
  }
  return defaultWorkload(header.length, t);
}
