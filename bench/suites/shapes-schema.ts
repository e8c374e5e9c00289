/**
 * `shapes-schema` (issue 28, a part of `shapes`): adult.data released with the Table Schema made
 * from the public codebook adult.names (`rap-studio schema from-names`): its listed categories are
 * declared (exact, free), its continuous attributes discovered privately. ε = 1, δ = 1/n², the raw
 * suite's workload (32 random 3-way marginals from the column names plus every 2-way marginal at
 * weight 1/4), n' = 1000. Target: TV ≤ 0.03 on the raw strings of every categorical column, and no
 * "(other)" anywhere.
 */
import path from 'node:path';
import { DEFAULT_DISCOVERY_SHARE } from '../../src/core/discovery/discover.ts';
import { SHARED_DATASETS } from '../lib/datasets.ts';
import type { RawCase } from '../lib/raw-pipeline.ts';
import type { RawSuite } from '../lib/raw-run.ts';

/** As in the raw suite (bench/suites/raw.ts, PAIR_WEIGHT): every 2-way marginal at weight 1/4. */
const PAIR_WEIGHT = 0.25;

export function shapesSchemaCases(seeds: readonly number[], suite = 'shapes-schema'): RawCase[] {
  const group = `${suite}/adult.data/eps1/codebook`;
  return seeds.map((seed) => ({
    id: `${group}/s${seed}`,
    group,
    dataset: 'adult.data (adult.names codebook)',
    file: path.join(SHARED_DATASETS, 'adult-raw/adult.data'),
    codebook: { names: path.join(SHARED_DATASETS, 'adult-raw/adult.names'), className: 'classification' },
    epsilon: 1,
    share: DEFAULT_DISCOVERY_SHARE,
    method: 'private',
    seed,
    workload: { k: 3, r: 3, size: 32 },
    rows: 1000,
    pairWeight: PAIR_WEIGHT,
  }));
}

export const shapesSchema: RawSuite = {
  kind: 'raw',
  name: 'shapes-schema',
  description:
    'adult.data with the Frictionless Table Schema made from adult.names (listed categories declared, continuous ' +
    "attributes discovered privately), ε = 1, δ = 1/n², the raw suite's workload, n' = 1000. Target: TV ≤ 0.03 on " +
    'the raw strings of every categorical column, no "(other)".',
  defaultSeeds: 3,
  budget: '≤ 2 min per run',
  cases: (seeds) => shapesSchemaCases(seeds),
};
