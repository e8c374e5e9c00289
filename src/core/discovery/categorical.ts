/**
 * Private discovery of a categorical column: Gaussian partition selection
 * (src/core/privacy/partition-selection.ts) over the column's distinct values, missing values
 * being one more key. Privacy map: δ-approximately ρ-zCDP with ρ = 1/σ² and
 * δ = k·Q((τ − 1)/σ − 2⁻¹²) (at most k count-1 keys per side: one under replace-one at the row
 * level, k at the person level, where the counts are distinct persons per value, profile.ts), the
 * δ share given to the column; ρ = k/σ² (partition-selection.ts).
 *
 * The released categories are the keys that pass, in code-point order. OTHER_CATEGORY takes
 * every value that did not pass (and missing values when the missing key did not pass), and is
 * part of the released domain only when its own noisy count passes OTHER_SIGMAS of its noise
 * (`otherCount`: post-processing of the selection's released noisy counts). Otherwise the column
 * has no "(other)" and such a record is kept under the kept key of largest noisy count
 * (`fallbackCode`): no synthetic row gets a value the release does not justify, no record is
 * dropped.
 */
import { OTHER_CATEGORY } from '../data/encode.ts';
import type { CategoricalColumn } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import {
  makePartitionSelection,
  type PartitionSelection,
  type SelectedKey,
  selectPartitions,
} from '../privacy/partition-selection.ts';
import { type ColumnCounts, MAX_DISTINCT_TEXTS, MISSING_KEY } from './profile.ts';

/**
 * "(other)" is released when its noisy count exceeds this many of its σ: a column whose every
 * category passed has an empty "(other)", which then enters the domain with probability
 * Q(2.5) = 0.6%. At 3σ, adult.data at ε = 0.1 lost a real "(other)" of 15–21% of the records
 * (race, marital-status; σ ≈ 940–1,330 records) in 2 of 3 seeds, its records moved to the
 * largest category (TV 0.15–0.21): losing a real "(other)" costs far more than an empty one,
 * which the engine fits at about zero mass.
 */
export const OTHER_SIGMAS = 2.5;

export interface CategoricalDiscovery {
  readonly column: CategoricalColumn;
  readonly selection: PartitionSelection;
  /** The released keys with their noisy counts (missing under MISSING_KEY). */
  readonly kept: readonly SelectedKey[];
  /** "(other)"'s noisy count and its σ (public: post-processing of the released counts). */
  readonly other: { readonly count: number; readonly sigma: number; readonly released: boolean };
}

/**
 * E[Z | Z > 0] for a standard normal Z: how far, in σ, a key held by exactly τ records lands
 * above τ on average once it is known to have passed (√(2/π)).
 */
const SELECTION_BIAS = Math.sqrt(2 / Math.PI);

/**
 * The noisy count of the records no kept key holds: n − Σ kept noisy counts (n is public), with
 * σ·√(kept keys). Partition selection conditions on passing: a kept key's noisy count is biased
 * upwards, by about SELECTION_BIAS·σ for a key held by about τ records and by ~0 for one far above
 * τ, so the plain estimate errs low — on adult.data at ε = 0.1, relationship's Own-child (5,068
 * records, τ ≈ 6,300) passed only with a high draw and pushed "(other)" (18% of the records)
 * under its bar. Correction: each kept key whose noisy count is within 2σ of τ adds
 * SELECTION_BIAS·σ back (post-processing of released values; it errs towards keeping "(other)").
 */
export function otherCount(
  n: number,
  kept: readonly SelectedKey[],
  sel: Pick<PartitionSelection, 'sigma' | 'threshold'>,
): { readonly count: number; readonly sigma: number } {
  const counted = kept.filter((k) => k.key !== OTHER_CATEGORY);
  const near = counted.filter((k) => k.noisyCount < sel.threshold + 2 * sel.sigma).length;
  return {
    count: n - counted.reduce((a, k) => a + k.noisyCount, 0) + near * SELECTION_BIAS * sel.sigma,
    sigma: sel.sigma * Math.sqrt(counted.length),
  };
}

export function discoverCategorical(
  counts: ColumnCounts,
  rho: number,
  delta: number,
  noise: NoiseSource,
  file: string,
  n: number,
  /** Keys one person reaches (k at the person level, whose counts are distinct persons; else 1). */
  keysPerPerson = 1,
): CategoricalDiscovery {
  if (!counts.values) {
    throw new InputError(
      `${file}, column "${counts.name}": more than ${MAX_DISTINCT_TEXTS} distinct values and not numeric; ` +
        'drop the column (an identifier?) or declare its categories in a schema file.',
      { file, column: counts.name },
    );
  }
  const selection = makePartitionSelection(rho, delta, keysPerPerson);
  const selected = selectPartitions(selection, counts.values, noise);
  const kept = selected.map((k) => k.key);
  const missing = kept.includes(MISSING_KEY);
  const categories = kept.filter((k) => k !== MISSING_KEY && k !== OTHER_CATEGORY);
  const estimate = otherCount(n, selected, selection);
  // With no key kept, "(other)" holds everything (its estimate is n, exact). At the person level
  // the counts are distinct persons per value, which do not add up to the rows: there is no
  // estimate of "(other)"'s rows, so it is always released, as before issue 29.
  const released =
    keysPerPerson > 1 ||
    categories.length + (missing ? 1 : 0) === 0 ||
    estimate.count > OTHER_SIGMAS * estimate.sigma;
  const other = { ...estimate, released };
  if (released) {
    categories.push(OTHER_CATEGORY);
    return {
      column: { name: counts.name, kind: 'categorical', categories, missing },
      selection,
      kept: selected,
      other,
    };
  }
  // The kept key of largest noisy count holds what "(other)" would have (ties: code-point order).
  let best = selected.find((k) => k.key !== OTHER_CATEGORY)!;
  for (const k of selected) if (k.key !== OTHER_CATEGORY && k.noisyCount > best.noisyCount) best = k;
  const fallbackCode = best.key === MISSING_KEY ? categories.length : categories.indexOf(best.key);
  return {
    column: { name: counts.name, kind: 'categorical', categories, missing, fallbackCode },
    selection,
    kept: selected,
    other,
  };
}
