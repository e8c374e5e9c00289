/**
 * Private discovery of a categorical column: Gaussian partition selection
 * (src/core/privacy/partition-selection.ts) over the column's distinct values, missing values
 * being one more key. Privacy map: δ-approximately ρ-zCDP with ρ = 1/σ² and
 * δ = k·Q((τ − 1)/σ − 2⁻¹²) (at most k count-1 keys per side: one under replace-one at the row
 * level, k at the person level, where the counts are distinct persons per value, profile.ts), the
 * δ share given to the column; ρ = k/σ² (partition-selection.ts).
 *
 * The released categories are the keys that pass, in code-point order; OTHER_CATEGORY is always
 * appended (whatever passed, so the domain's shape does not depend on the data beyond the
 * selection) and takes every value that did not pass — including missing values when the missing
 * key did not pass — so no record is dropped.
 */
import { OTHER_CATEGORY } from '../data/encode.ts';
import type { CategoricalColumn } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import {
  makePartitionSelection,
  type PartitionSelection,
  selectPartitions,
} from '../privacy/partition-selection.ts';
import { type ColumnCounts, MAX_DISTINCT_TEXTS, MISSING_KEY } from './profile.ts';

export interface CategoricalDiscovery {
  readonly column: CategoricalColumn;
  readonly selection: PartitionSelection;
}

export function discoverCategorical(
  counts: ColumnCounts,
  rho: number,
  delta: number,
  noise: NoiseSource,
  file: string,
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
  const kept = selectPartitions(selection, counts.values, noise).map((k) => k.key);
  const missing = kept.includes(MISSING_KEY);
  const categories = kept.filter((k) => k !== MISSING_KEY && k !== OTHER_CATEGORY);
  categories.push(OTHER_CATEGORY);
  return { column: { name: counts.name, kind: 'categorical', categories, missing }, selection };
}
