/**
 * `person` (issue 27): hospital-visits (26,580 visits of 12,000 patients) released through the
 * release pipeline (prepare → validate → reserve → run → write & commit, a temporary ledger) at
 * ε = 1, δ = 10⁻¹⁰, with the patient as the unit (`unit: patient_id`) for k ∈ {1, 2, 4, 8} and k
 * chosen privately, beside the row-level release; every column discovered privately; workload:
 * every 2-way marginal of the release's 12 columns. Fidelity on the released CSV against every
 * visit (raw-metrics.ts): KS per numeric column, TV per categorical column on the released domain,
 * the largest 2-way marginal error with real values mapped into the released domain. Seeded,
 * INSECURE noise: benchmarks release nothing. CPU seconds include the engine's process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fingerprintFile } from '../../src/core/data/fingerprint.ts';
import { SCHEMA_VERSION, type Schema } from '../../src/core/data/schema.ts';
import { Ledger } from '../../src/core/ledger/ledger.ts';
import { type ReleaseSpec, releaseStraightThrough } from '../../src/core/release/release.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import type { BenchArgs } from '../lib/args.ts';
import { listedCases, selectedCases } from '../lib/cases.ts';
import { SHARED_DATASETS } from '../lib/datasets.ts';
import { describeMachine, fileNameFor, publishReport, writeAtomically } from '../lib/output.ts';
import { type Fidelity, fidelity } from '../lib/raw-metrics.ts';
import { readRows } from '../lib/raw-pipeline.ts';
import { cpuWithChildren } from '../lib/release-run.ts';
import { formatNumber } from '../lib/table.ts';

export const PERSON_SUITE = 'person';
const FILE = path.join(SHARED_DATASETS, 'hospital-visits/visits.csv');
const UNIT = 'patient_id';
const EPSILON = 1;
const DELTA = 1e-10;

type Bound = number | 'private' | 'row';

interface PersonCase {
  readonly id: string;
  readonly bound: Bound;
  readonly seed: number;
}

interface PersonResult {
  readonly case: PersonCase;
  /** k used (null at the row level), n̂ and what choosing k cost. */
  readonly k: number | null;
  readonly noisyRows: number | null;
  readonly boundRho: number;
  readonly rowCountRho: number;
  readonly rho: number;
  readonly fidelity: Fidelity;
  readonly cpuSeconds: number;
}

function cases(seeds: readonly number[]): PersonCase[] {
  const bounds: Bound[] = [1, 2, 4, 8, 'private', 'row'];
  return bounds.flatMap((bound) =>
    seeds.map((seed) => ({
      id: `person/visits/eps${EPSILON}/${bound === 'row' ? 'row-level' : `k-${bound}`}/s${seed}`,
      bound,
      seed,
    })),
  );
}

/** Every 2-way marginal of the given columns (indices into the release's schema). */
function allPairs(columns: readonly number[]): Workload {
  const thresholds = [];
  for (let a = 0; a < columns.length; a++)
    for (let b = a + 1; b < columns.length; b++)
      thresholds.push({ features: [columns[a], columns[b]], r: 2, weight: 1 });
  return { thresholds };
}

async function runCase(
  c: PersonCase,
  names: readonly string[],
  real: readonly string[][],
): Promise<PersonResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rap-bench-person-'));
  const cpu0 = await cpuWithChildren();
  const ledger = Ledger.open(path.join(dir, 'ledger.sqlite'), { anchorFile: null });
  try {
    const unit = c.bound === 'row' ? undefined : UNIT;
    const fingerprint = await fingerprintFile(FILE);
    ledger.ensureDataset({ fingerprint, name: 'visits.csv', rows: 0 });
    ledger.setCap(fingerprint, 10, 1e-6, unit);
    const empty: Schema = { version: SCHEMA_VERSION, origin: 'declared', columns: [] };
    // Person level: the release's columns are the header's without the identifier. Row level: the
    // identifier is a column of the release (all "(other)"), kept out of the workload and the scores.
    const indices =
      c.bound === 'row'
        ? names.flatMap((n, i) => (n === UNIT ? [] : [i]))
        : names.filter((n) => n !== UNIT).map((_, i) => i);
    const spec: ReleaseSpec = {
      source: { path: FILE, schema: empty, header: true, discover: {} },
      datasetName: 'visits.csv',
      workload: allPairs(indices),
      epsilon: EPSILON,
      delta: DELTA,
      noise: { mode: 'insecure-seed', seed: c.seed },
      ...(c.bound === 'row' ? {} : { unit: { column: UNIT, bound: c.bound } }),
    };
    const csvPath = path.join(dir, 'out.csv');
    const outcome = await releaseStraightThrough(ledger, spec, {
      outPath: csvPath,
      reportPath: path.join(dir, 'out.REPORT.private.json'),
    });
    const released = await readRows(csvPath);
    // Scored on the release's columns other than the identifier.
    const cols = released.names.flatMap((n, i) => (n === UNIT ? [] : [i]));
    const scored = cols.map((i) => released.names[i]);
    const realKept = real.map((r) => scored.map((n) => r[names.indexOf(n)]));
    const synthRows = released.rows.map((r) => cols.map((i) => r[i]));
    const full = outcome.schema;
    const schema: Schema = { ...full, columns: full.columns.filter((col) => col.name !== UNIT) };
    const person = (
      outcome.manifest as {
        unit?: {
          rowsPerPerson?: number;
          boundChosen?: { rho: number } | null;
          noisyRowCount?: { rows: number; rho: number };
        };
      }
    ).unit;
    return {
      case: c,
      k: person?.rowsPerPerson ?? null,
      noisyRows: person?.noisyRowCount?.rows ?? null,
      boundRho: person?.boundChosen?.rho ?? 0,
      rowCountRho: person?.noisyRowCount?.rho ?? 0,
      rho: outcome.release.rho,
      fidelity: fidelity(scored, realKept, synthRows, schema),
      cpuSeconds: (await cpuWithChildren()) - cpu0,
    };
  } finally {
    ledger.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function table(results: readonly PersonResult[]): string {
  const out = [
    '| release | k | n̂ | ρ for k | mean KS | max KS | mean TV (released domain) | max TV | largest 2-way error (released domain) | CPU s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of results) {
    const ks = r.fidelity.columns.flatMap((c) => (c.ks === undefined ? [] : [c.ks]));
    const tv = r.fidelity.columns.flatMap((c) => (c.tvReleased === undefined ? [] : [c.tvReleased]));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const name =
      r.case.bound === 'row'
        ? 'row level (a visit)'
        : r.case.bound === 'private'
          ? 'person, k private'
          : `person, k = ${r.case.bound}`;
    out.push(
      `| ${name} (seed ${r.case.seed}) | ${r.k ?? '—'} | ${r.noisyRows ?? '—'} | ${r.boundRho ? r.boundRho.toExponential(2) : '—'} | ${formatNumber(mean(ks))} | ${formatNumber(Math.max(...ks))} | ${formatNumber(mean(tv))} | ${formatNumber(Math.max(...tv))} | ${formatNumber(r.fidelity.maxTwoWayReleased)} | ${formatNumber(r.cpuSeconds)} |`,
    );
  }
  return out.join('\n');
}

export async function runPersonSuite(
  args: BenchArgs,
  outDir: string,
  latestPath: string,
  command: string,
): Promise<number> {
  const all = selectedCases({ defaultSeeds: 1, cases }, args);
  if (listedCases(all, args)) return 0;
  const { names, rows } = await readRows(FILE);
  const results: PersonResult[] = [];
  const failures: string[] = [];
  for (const [i, c] of all.entries()) {
    log(`[${i + 1}/${all.length}] ${c.id}`);
    try {
      const r = await runCase(c, names, rows);
      await writeAtomically(path.join(outDir, 'runs', `${fileNameFor(c.id)}.json`), `${JSON.stringify(r)}\n`);
      results.push(r);
      log(
        `    done: k ${r.k ?? 'row'}, mean KS ${formatNumber(r.fidelity.meanKs)}, 2-way ${formatNumber(r.fidelity.maxTwoWayReleased)}, ${formatNumber(r.cpuSeconds)} CPU s`,
      );
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      failures.push(`${c.id}: ${message}`);
      log(`    FAILED: ${message}`);
    }
  }
  const report = [
    `# Benchmark: ${PERSON_SUITE}\n`,
    'hospital-visits through the release pipeline at ε = 1, δ = 1e-10: the patient as the unit (k ∈ {1, 2, 4, 8, private}) beside the row-level release; every column discovered privately; workload: every 2-way marginal of the 12 released columns. Fidelity against every real visit on the released CSV.\n',
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${describeMachine()} (shared: compare CPU s, engine process included)`,
    ...(failures.length ? [`- Not in the table: ${failures.join('; ')}`] : []),
    '',
    table(results),
    '',
  ].join('\n');
  await publishReport(outDir, latestPath, report, args.latest && results.length > 0);
  return failures.length > 0 ? 1 : 0;
}
