/** Runs of the same case over seeds → one table row with mean and spread per metric. */
import type { BenchResult } from './types.ts';

export interface Spread {
  readonly mean: number;
  /** Sample standard deviation (n − 1); 0 for a single value. */
  readonly sd: number;
  readonly min: number;
  readonly max: number;
  readonly count: number;
}

export function spread(values: readonly number[]): Spread | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const mean = values.reduce((s, x) => s + x, 0) / n;
  const ss = values.reduce((s, x) => s + (x - mean) ** 2, 0);
  return {
    mean,
    sd: n > 1 ? Math.sqrt(ss / (n - 1)) : 0,
    min: Math.min(...values),
    max: Math.max(...values),
    count: n,
  };
}

export const METRICS = [
  'presentError',
  'roundedPresentError',
  'meanError',
  'all0Error',
  'gmError',
  'secondsTotal',
  'secondsSelection',
  'secondsProjection',
  'cpuSeconds',
  'queriesPerSecond',
  'peakRssMB',
] as const;

export type Metric = (typeof METRICS)[number];

/**
 * One run's metric values. A truncated run (--max-rounds) has extrapolated times and no error
 * figures: its errors are those of a shorter run, not of the case.
 */
export function metricsOf(r: BenchResult): Record<Metric, number | undefined> {
  const rep = r.report;
  const x = r.extrapolation;
  const err = (v: number) => (x ? undefined : v);
  return {
    presentError: err(rep.presentError),
    // The released CSV's error as read back (release path); the engine's own figure otherwise.
    roundedPresentError: err(r.released?.maxError ?? rep.roundedPresentError),
    meanError: err(r.released?.meanError ?? rep.meanError),
    all0Error: rep.all0Error,
    gmError: rep.gmError,
    secondsTotal: x?.secondsTotal ?? rep.secondsTotal,
    secondsSelection: x?.secondsSelection ?? rep.secondsSelection,
    secondsProjection: x?.secondsProjection ?? rep.secondsProjection,
    cpuSeconds: r.measurements.cpuSeconds,
    queriesPerSecond: r.measurements.queriesPerSecond,
    peakRssMB: r.measurements.peakRssBytes / 2 ** 20,
  };
}

export interface TableRow {
  readonly group: string;
  /** The row's runs in seed order; the first supplies the settings columns. */
  readonly results: readonly BenchResult[];
  readonly metrics: Readonly<Record<Metric, Spread | undefined>>;
}

/** Rows in order of each group's first run. */
export function aggregate(results: readonly BenchResult[]): TableRow[] {
  const groups = new Map<string, BenchResult[]>();
  for (const r of results) {
    const list = groups.get(r.case.group) ?? [];
    list.push(r);
    groups.set(r.case.group, list);
  }
  return [...groups].map(([group, runs]) => {
    const values = runs.map(metricsOf);
    const metrics = Object.fromEntries(
      METRICS.map((m) => [m, spread(values.map((v) => v[m]).filter((v): v is number => v !== undefined))]),
    ) as Record<Metric, Spread | undefined>;
    return { group, results: runs, metrics };
  });
}
