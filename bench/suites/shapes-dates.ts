/**
 * `shapes-dates` (issue 28, item 2; a part of the `shapes` suite): hospital-visits (26,580
 * visits) released through the release pipeline (prepare → validate → reserve → run → write &
 * commit, a temporary ledger) with NO schema: every column discovered privately, dates and times
 * included (discovery/formats.ts, discovery/temporal.ts). ε = 1, δ = 1/n² (the release's default),
 * row level; workload: every 2-way marginal of the 13 columns at weight 1 (`workload default`).
 * Scored on the released CSV against every real visit:
 * - admit_date, discharge_date: KS on days ≤ 0.05, and each day of the week's share within 0.03
 *   of the real one;
 * - admit_time: KS on minutes of the day ≤ 0.05;
 * and the released formats (a date stays an ISO date, a time HH:MM). Seeded, INSECURE noise:
 * benchmarks release nothing. CPU seconds include the engine's process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fingerprintFile } from '../../src/core/data/fingerprint.ts';
import { parseTemporal, type TemporalFormat, weekdayOf } from '../../src/core/data/formats.ts';
import { type NumericColumn, SCHEMA_VERSION, type Schema } from '../../src/core/data/schema.ts';
import { ksTwoSample } from '../../src/core/data/two-sample.ts';
import { Ledger } from '../../src/core/ledger/ledger.ts';
import { type ReleaseSpec, releaseStraightThrough } from '../../src/core/release/release.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import type { BenchArgs } from '../lib/args.ts';
import { listedCases, selectedCases } from '../lib/cases.ts';
import { SHARED_DATASETS } from '../lib/datasets.ts';
import { describeMachine, fileNameFor, publishReport, writeAtomically } from '../lib/output.ts';
import { readRows } from '../lib/raw-pipeline.ts';
import { cpuWithChildren } from '../lib/release-run.ts';
import { formatNumber } from '../lib/table.ts';

export const SHAPES_DATES_SUITE = 'shapes-dates';
const FILE = path.join(SHARED_DATASETS, 'hospital-visits/visits.csv');
const EPSILON = 1;
const DATES = ['admit_date', 'discharge_date'] as const;
const TIMES = ['admit_time'] as const;
/** The acceptance. */
export const TARGETS = { ksDays: 0.05, ksMinutes: 0.05, weekdayShare: 0.03 } as const;

const ISO_DATE: TemporalFormat = { kind: 'date', format: '%Y-%m-%d' };
const HH_MM: TemporalFormat = { kind: 'time', format: '%H:%M' };

export interface ShapesDatesCase {
  readonly id: string;
  readonly seed: number;
}

export interface TemporalScore {
  readonly column: string;
  /** The format discovery chose (or "not temporal"). */
  readonly format: string;
  /** KS on days (dates) or minutes of the day (times). */
  readonly ks: number;
  /** Largest |synthetic − real| share over the days of the week (dates). */
  readonly weekday?: number;
  /** Released cells that do not read as the real file's format (missing left out). */
  readonly unreadable: number;
  readonly pass: boolean;
}

export interface ShapesDatesResult {
  readonly case: ShapesDatesCase;
  readonly rho: number;
  readonly scores: readonly TemporalScore[];
  readonly pass: boolean;
  readonly cpuSeconds: number;
}

export function shapesDatesCases(seeds: readonly number[]): ShapesDatesCase[] {
  return seeds.map((seed) => ({
    id: `${SHAPES_DATES_SUITE}/hospital-visits/eps${EPSILON}/no-schema/s${seed}`,
    seed,
  }));
}

function allPairs(d: number): Workload {
  const thresholds = [];
  for (let a = 0; a < d; a++)
    for (let b = a + 1; b < d; b++) thresholds.push({ features: [a, b], r: 2, weight: 1 });
  return { thresholds };
}

/** Values of a column in the real file's format (days, or minutes of the day), sorted. */
function values(
  cells: readonly string[],
  format: TemporalFormat,
): { sorted: Float64Array; unreadable: number } {
  const out: number[] = [];
  let unreadable = 0;
  for (const cell of cells) {
    if (cell === '' || cell === '?' || cell === 'NA') continue;
    const x = parseTemporal(format, cell);
    if (x === undefined) unreadable++;
    else out.push(format.kind === 'time' ? Math.floor(x / 60) : x);
  }
  return { sorted: Float64Array.from(out).sort(), unreadable };
}

function weekdayGap(real: Float64Array, synth: Float64Array): number {
  const share = (xs: Float64Array) => {
    const c = new Float64Array(7);
    for (const x of xs) c[weekdayOf('date', x)]++;
    return c.map((v) => v / Math.max(1, xs.length));
  };
  const r = share(real);
  const s = share(synth);
  return Math.max(...r.map((v, i) => Math.abs(v - s[i])));
}

/** Scores of the released CSV (bench only: reads the real data). */
export function scoreTemporal(
  names: readonly string[],
  real: readonly string[][],
  releasedNames: readonly string[],
  released: readonly string[][],
  schema: Schema,
): TemporalScore[] {
  const cells = (rows: readonly string[][], at: number) => rows.map((r) => r[at]);
  return [...DATES, ...TIMES].map((column) => {
    const format = (DATES as readonly string[]).includes(column) ? ISO_DATE : HH_MM;
    const r = values(cells(real, names.indexOf(column)), format);
    const s = values(cells(released, releasedNames.indexOf(column)), format);
    const ks = ksTwoSample(r.sorted, s.sorted);
    const weekday = format.kind === 'date' ? weekdayGap(r.sorted, s.sorted) : undefined;
    const col = schema.columns.find((c) => c.name === column) as NumericColumn | undefined;
    const pass =
      s.unreadable === 0 &&
      ks <= (format.kind === 'date' ? TARGETS.ksDays : TARGETS.ksMinutes) &&
      (weekday === undefined || weekday <= TARGETS.weekdayShare);
    return {
      column,
      format: col?.temporal ? `${col.temporal.kind} ${col.temporal.format}` : 'not temporal',
      ks,
      ...(weekday !== undefined ? { weekday } : {}),
      unreadable: s.unreadable,
      pass,
    };
  });
}

export async function runShapesDatesCase(
  c: ShapesDatesCase,
  names: readonly string[],
  real: readonly string[][],
): Promise<ShapesDatesResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rap-bench-shapes-dates-'));
  const cpu0 = await cpuWithChildren();
  const ledger = Ledger.open(path.join(dir, 'ledger.sqlite'), { anchorFile: null });
  try {
    const fingerprint = await fingerprintFile(FILE);
    ledger.ensureDataset({ fingerprint, name: 'visits.csv', rows: 0 });
    ledger.setCap(fingerprint, 10, 1e-6);
    const empty: Schema = { version: SCHEMA_VERSION, origin: 'declared', columns: [] };
    const spec: ReleaseSpec = {
      source: { path: FILE, schema: empty, header: true, discover: {} },
      datasetName: 'visits.csv',
      workload: allPairs(names.length),
      epsilon: EPSILON,
      noise: { mode: 'insecure-seed', seed: c.seed },
    };
    const csvPath = path.join(dir, 'out.csv');
    const outcome = await releaseStraightThrough(ledger, spec, {
      outPath: csvPath,
      reportPath: path.join(dir, 'out.REPORT.private.json'),
    });
    const released = await readRows(csvPath);
    const scores = scoreTemporal(names, real, released.names, released.rows, outcome.schema);
    return {
      case: c,
      rho: outcome.release.rho,
      scores,
      pass: scores.every((s) => s.pass),
      cpuSeconds: (await cpuWithChildren()) - cpu0,
    };
  } finally {
    ledger.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`);

export function shapesDatesTable(results: readonly ShapesDatesResult[]): string {
  const out = [
    `| release | column | discovered format | KS (days / minutes; target ≤ ${TARGETS.ksDays}) | weekday share gap (target ≤ ${TARGETS.weekdayShare}) | unreadable cells | pass | CPU s |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of results) {
    for (const s of r.scores) {
      out.push(
        `| seed ${r.case.seed} | ${s.column} | ${s.format} | ${formatNumber(s.ks)} | ${s.weekday === undefined ? '—' : formatNumber(s.weekday)} | ${s.unreadable} | ${s.pass ? 'yes' : 'NO'} | ${formatNumber(r.cpuSeconds)} |`,
      );
    }
  }
  return out.join('\n');
}

export async function runShapesDatesSuite(
  args: BenchArgs,
  outDir: string,
  latestPath: string,
  command: string,
): Promise<number> {
  const all = selectedCases({ defaultSeeds: 1, cases: shapesDatesCases }, args);
  if (listedCases(all, args)) return 0;
  const { names, rows } = await readRows(FILE);
  const results: ShapesDatesResult[] = [];
  const failures: string[] = [];
  for (const [i, c] of all.entries()) {
    log(`[${i + 1}/${all.length}] ${c.id}`);
    try {
      const r = await runShapesDatesCase(c, names, rows);
      await writeAtomically(path.join(outDir, 'runs', `${fileNameFor(c.id)}.json`), `${JSON.stringify(r)}\n`);
      results.push(r);
      log(`    done: ${r.pass ? 'pass' : 'FAIL'}, ${formatNumber(r.cpuSeconds)} CPU s`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      failures.push(`${c.id}: ${message}`);
      log(`    FAILED: ${message}`);
    }
  }
  const report = [
    `# Benchmark: ${SHAPES_DATES_SUITE}\n`,
    'hospital-visits through the release pipeline with no schema, ε = 1, δ = 1/n², row level; workload: every 2-way marginal of the 13 columns. Dates and times discovered privately; scored on the released CSV against every real visit.\n',
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${describeMachine()} (shared: compare CPU s, engine process included)`,
    ...(failures.length ? [`- Not in the table: ${failures.join('; ')}`] : []),
    '',
    shapesDatesTable(results),
    '',
  ].join('\n');
  await publishReport(outDir, latestPath, report, args.latest && results.length > 0);
  const failed = failures.length > 0 || results.some((r) => !r.pass);
  return failed ? 1 : 0;
}
