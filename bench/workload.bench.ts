/**
 * Exact answers on ADULT (benchmark format): 64 random 3-way marginals and 16 random 1-of-4
 * thresholds, each group timed (target: under 10 s each on a 2-core machine) with peak RSS.
 * Prints timings and sizes only, never an answer.
 *
 *   npx tsx bench/workload.bench.ts [--seed S] [--compare]
 *
 * --compare also times the literal inclusion–exclusion (2^k broadcast marginals) on the 1-of-4
 * group, against the factorized transform that exactThresholdAnswers uses.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadBenchmark } from '../src/core/data/benchmark.ts';
import { domainSizes, type EncodedDataset } from '../src/core/data/schema.ts';
import { exactAnswersByInclusionExclusion, exactThresholdAnswers } from '../src/core/workload/exact.ts';
import { queryCount } from '../src/core/workload/queries.ts';
import { randomWorkload } from '../src/core/workload/random.ts';
import type { Workload } from '../src/core/workload/types.ts';

const root = resolve(import.meta.dirname, '..');
const csv = resolve(root, '../shared/datasets/adult/adult.csv');
const domain = resolve(root, '../shared/datasets/adult/adult-domain.json');
const seedArg = process.argv.indexOf('--seed');
const seed = seedArg >= 0 ? Number(process.argv[seedArg + 1]) : 2024;
const compare = process.argv.includes('--compare');

type Answer = (data: EncodedDataset, t: Workload['thresholds'][number]) => Float64Array;

function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024; // maxRSS is in KiB
}

function timeGroup(
  name: string,
  data: EncodedDataset,
  w: Workload,
  answer: Answer = exactThresholdAnswers,
): void {
  const sizes = domainSizes(data.schema);
  const cells = w.thresholds.reduce((s, t) => s + queryCount(t, sizes), 0);
  const largest = Math.max(...w.thresholds.map((t) => queryCount(t, sizes)));
  let checksum = 0; // keeps the work observable without printing any answer
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (const t of w.thresholds) checksum += answer(data, t).length;
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (checksum !== cells) throw new Error('answer count mismatch');
  console.log(
    `${name}: ${w.thresholds.length} thresholds, ${cells} queries (largest ${largest}): ` +
      `${seconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU, peak RSS so far ${peakRssMiB().toFixed(0)} MiB ${seconds < 10 ? '(< 10 s: ok)' : '(OVER 10 s)'}`,
  );
}

async function main(): Promise<void> {
  if (!existsSync(csv) || !existsSync(domain)) {
    console.log(`skipped: ADULT not found at ${csv} (needs ../shared/datasets/adult next to the repository)`);
    return;
  }
  const t0 = performance.now();
  const { dataset } = await loadBenchmark(csv, domain);
  const d = dataset.schema.columns.length;
  console.log(
    `loaded ADULT: ${dataset.n} rows, ${d} features in ${((performance.now() - t0) / 1000).toFixed(2)} s; ` +
      `seed ${seed}; peak RSS ${peakRssMiB().toFixed(0)} MiB`,
  );
  timeGroup(
    '64 random 3-way marginals',
    dataset,
    randomWorkload({ numFeatures: d, k: 3, r: 3, size: 64, seed }),
  );
  const oneOfFour = randomWorkload({ numFeatures: d, k: 4, r: 1, size: 16, seed });
  timeGroup('16 random 1-of-4 thresholds', dataset, oneOfFour);
  if (compare)
    timeGroup('  same, literal inclusion–exclusion', dataset, oneOfFour, exactAnswersByInclusionExclusion);
  // The worst case of 1-of-4 on ADULT: the four largest domains (about 10^8 queries).
  const bySize = domainSizes(dataset.schema)
    .map((s, f) => [s, f])
    .sort((a, b) => b[0] - a[0]);
  const worst = bySize.slice(0, 4).map(([, f]) => f);
  timeGroup('worst 1-of-4 threshold (largest domains)', dataset, {
    thresholds: [{ features: worst, r: 1, weight: 1 }],
  });
}

await main();
