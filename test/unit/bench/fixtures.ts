/** Hand-made benchmark results for the table and aggregation tests. */

import type { BenchCase, BenchResult, Extrapolation } from '../../../bench/lib/types.ts';
import { fakeGmBaseline } from '../../../src/core/engine/testing.ts';
import type { RapReport } from '../../../src/core/engine/types.ts';

export function fakeCase(over: Partial<BenchCase> = {}): BenchCase {
  const c = {
    suite: 'test',
    dataset: 'adult' as const,
    workload: { k: 3, r: 3, size: 16 },
    epsilon: 0.1,
    rows: 1000,
    mode: 'query' as const,
    seed: 0,
    ...over,
  };
  const group = over.group ?? `adult/3of3/W${c.workload.size}/eps${c.epsilon}`;
  return { ...c, group, id: over.id ?? `${group}/s${c.seed}` };
}

export function fakeReport(over: Partial<RapReport> = {}): RapReport {
  return {
    mode: 'query',
    presentError: 0.2,
    roundedPresentError: 0.21,
    meanError: 1e-5,
    roundedMeanError: 1.1e-5,
    all0Error: 0.75,
    gmError: 5.9,
    gmBaseline: fakeGmBaseline(5.9),
    numQueries: 780_674,
    rho: 1e-4,
    epsilon: 0.1,
    delta: 4e-10,
    rounds: 10,
    perRound: 50,
    rows: 1000,
    oversample: 5,
    secondsTotal: 40,
    secondsSelection: 5,
    secondsProjection: 34,
    backend: 'cpu',
    seedMode: 'insecure-seed',
    relativeErrorProfile: [],
    perThresholdError: [],
    ...over,
  };
}

export function fakeResult(
  c: Partial<BenchCase> = {},
  report: Partial<RapReport> = {},
  extrapolation?: Extrapolation,
): BenchResult {
  const bc = fakeCase(c);
  const rep = fakeReport(report);
  const seconds = extrapolation?.secondsTotal ?? rep.secondsTotal;
  return {
    case: bc,
    dataset: { name: bc.dataset, n: 48_842, width: 588 },
    workload: { ...bc.workload, queries: rep.numQueries },
    delta: 4e-10,
    backend: rep.backend,
    report: rep,
    measurements: {
      wallSeconds: seconds,
      cpuSeconds: seconds,
      peakRssBytes: 200 * 2 ** 20,
      queriesPerSecond: rep.numQueries / seconds,
    },
    ...(extrapolation ? { extrapolation } : {}),
    startedAt: '2025-01-01T00:00:00.000Z',
  };
}
