/**
 * The benchmark datasets, loaded once per process: ADULT in the benchmark format from the
 * shared folder, and the synthetic LOANS-domain data of loans-generator.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBenchmark } from '../../src/core/data/benchmark.ts';
import type { EncodedDataset } from '../../src/core/data/schema.ts';
import { generateLoansDataset } from './loans-generator.ts';
import type { DatasetId } from './types.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SHARED_DATASETS = path.resolve(REPO_ROOT, '../shared/datasets');

const FILES: Record<DatasetId, readonly string[]> = {
  adult: ['adult/adult.csv', 'adult/adult-domain.json'],
  'loans-synthetic': ['loans/loans-domain.json'],
};

function shared(relative: string): string {
  const p = path.join(SHARED_DATASETS, relative);
  if (!existsSync(p)) {
    throw new Error(`benchmark input ${p} is missing: the shared datasets belong in ${SHARED_DATASETS}`);
  }
  return p;
}

async function load(id: DatasetId): Promise<EncodedDataset> {
  const [a, b] = FILES[id].map(shared);
  if (id === 'adult') return (await loadBenchmark(a, b)).dataset;
  return generateLoansDataset(a);
}

const cache = new Map<DatasetId, Promise<EncodedDataset>>();

export function loadDataset(id: DatasetId): Promise<EncodedDataset> {
  let p = cache.get(id);
  if (!p) cache.set(id, (p = load(id)));
  return p;
}
