/**
 * The benchmark datasets, loaded once per process: ADULT in the benchmark format from the
 * shared folder, and the synthetic LOANS-domain data of loans-generator.ts.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBenchmark } from '../../src/core/data/benchmark.ts';
import { writeCsv } from '../../src/core/data/csv-write.ts';
import type { EncodedDataset, Schema } from '../../src/core/data/schema.ts';
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

/**
 * A dataset as a release reads it: a CSV file and its declared schema (the benchmark domain).
 * ADULT is the shared file itself; any other dataset (the generated LOANS-domain data, a
 * test's) is written once per folder as the integer-coded CSV it stands for.
 */
export async function datasetSource(
  id: DatasetId,
  data: EncodedDataset,
  dir: string,
): Promise<{ csv: string; schema: Schema }> {
  if (id === 'adult' && cache.has('adult') && data === (await loadDataset('adult'))) {
    return { csv: shared(FILES.adult[0]), schema: data.schema };
  }
  let csv = written.get(data);
  if (!csv || !existsSync(csv)) {
    csv = path.join(dir, `${id}-${++writtenCount}.csv`);
    await mkdir(dir, { recursive: true });
    const names = data.schema.columns.map((c) => c.name);
    const rows = function* () {
      for (let i = 0; i < data.n; i++) yield data.codes.map((col) => String(col[i]));
    };
    await writeCsv(csv, names, rows());
    written.set(data, csv);
  }
  return { csv, schema: data.schema };
}

const written = new WeakMap<EncodedDataset, string>();
let writtenCount = 0;
