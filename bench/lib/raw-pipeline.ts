/**
 * The `raw` suite's run: a raw CSV with no domain declared, to a released CSV, as a curator's
 * release would do it — private discovery (its share of ρ), encoding against the discovered
 * schema (out-of-domain values kept as "(other)", clamped or missing: n = the record count),
 * the engine on the rest of ρ, decoding by the discovered shape — then fidelity against the raw
 * file (raw-metrics.ts). The baseline is today's path: the schema inferred from the data
 * (10 equal-width bins, not private), the engine on the whole ρ, uniform decoding.
 * Seeded, INSECURE noise: benchmarks release nothing.
 */
import { decodeRows } from '../../src/core/data/decode.ts';
import { loadCsv } from '../../src/core/data/load.ts';
import { Rejections } from '../../src/core/data/rejections.ts';
import type { Schema } from '../../src/core/data/schema.ts';
import { readTable } from '../../src/core/data/table.ts';
import { splitBudget } from '../../src/core/discovery/budget.ts';
import { discoverSchema } from '../../src/core/discovery/discover.ts';
import { defaultOptions } from '../../src/core/engine/defaults.ts';
import { runRap } from '../../src/core/engine/rap.ts';
import type { RapReport } from '../../src/core/engine/types.ts';
import { seededNoise } from '../../src/core/privacy/noise.ts';
import { randomWorkload } from '../../src/core/workload/random.ts';
import type { Threshold, Workload } from '../../src/core/workload/types.ts';
import { type Fidelity, fidelity } from './raw-metrics.ts';

export type RawMethod = 'private' | 'equal-width';

export interface RawCase {
  readonly id: string;
  readonly group: string;
  readonly dataset: string;
  /** Path of the raw CSV. */
  readonly file: string;
  readonly epsilon: number;
  /** Discovery's share of ρ (private method). */
  readonly share: number;
  readonly bins?: number;
  readonly method: RawMethod;
  readonly seed: number;
  readonly workload: { readonly k: number; readonly r: number; readonly size: number };
  readonly rows: number;
  /** Also fit every 2-way marginal at this weight (the curator's thresholds keep theirs). */
  readonly pairWeight?: number;
}

export interface RawResult {
  readonly case: RawCase;
  readonly n: number;
  readonly delta: number;
  readonly rhoTotal: number;
  readonly rhoDiscovery: number;
  readonly report: RapReport;
  readonly fidelity: Fidelity;
  readonly schema: Schema;
  readonly cpuSeconds: number;
}

export async function readRows(file: string): Promise<{ names: readonly string[]; rows: string[][] }> {
  const rows: string[][] = [];
  let names: readonly string[] = [];
  await readTable(
    file,
    { start: (s) => (names = s.header), row: (v) => rows.push([...v]) },
    new Rejections(),
  );
  return { names, rows };
}

export async function runRawCase(c: RawCase): Promise<RawResult> {
  const cpu0 = process.cpuUsage();
  const { names, rows } = await readRows(c.file);
  const n = rows.length;
  const delta = 1 / (n * n);
  const noise = seededNoise(`raw/${c.seed}`);
  const budget = splitBudget(c.epsilon, delta, c.share, c.method === 'private');
  let data: Awaited<ReturnType<typeof loadCsv>>['dataset'];
  if (c.method === 'private') {
    const found = await discoverSchema(c.file, {
      rho: budget.rhoDiscovery,
      delta: budget.deltaDiscovery,
      noise,
      ...(c.bins ? { bins: c.bins } : {}),
    });
    const loaded = await loadCsv(c.file, {
      schema: found.schema,
      outOfDomain: 'other',
      raggedAsMissing: true,
    });
    if (loaded.dataset.n !== found.records) {
      throw new Error(`engine n ${loaded.dataset.n} differs from the record count ${found.records}`);
    }
    data = loaded.dataset;
  } else {
    data = (await loadCsv(c.file)).dataset;
  }
  const loadedSchema = data.schema;
  const engineEpsilon = budget.engineEpsilon;
  const engineDelta = budget.engineDelta;
  const drawn = randomWorkload({ numFeatures: names.length, ...c.workload, seed: c.seed });
  const workload = c.pairWeight ? withAllPairs(drawn, names.length, c.pairWeight) : drawn;
  const result = await runRap({
    data,
    workload,
    options: defaultOptions({ epsilon: engineEpsilon, delta: engineDelta, rows: c.rows }),
    noise,
  });
  const synthetic = decodeRows(loadedSchema, result.synthetic.codes, result.synthetic.n, {
    random: () => noise.uniform(),
  });
  const cpu = process.cpuUsage(cpu0);
  return {
    case: c,
    n,
    delta,
    rhoTotal: budget.rho,
    rhoDiscovery: budget.rhoDiscovery,
    report: result.report,
    fidelity: fidelity(names, rows, synthetic, c.method === 'private' ? loadedSchema : undefined),
    schema: loadedSchema,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** The workload plus every 2-way marginal not already in it, at `weight`. */
export function withAllPairs(w: Workload, d: number, weight: number): Workload {
  const have = new Set(w.thresholds.map((t) => t.features.join(',')));
  const pairs: Threshold[] = [];
  for (let a = 0; a < d; a++)
    for (let b = a + 1; b < d; b++)
      if (!have.has(`${a},${b}`)) pairs.push({ features: [a, b], r: 2, weight });
  return { thresholds: [...w.thresholds, ...pairs] };
}
