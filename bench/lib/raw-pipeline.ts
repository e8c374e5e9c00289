/**
 * The `raw` suite's run: a raw CSV with no domain declared, released through the release
 * pipeline as `rap-studio synth --data RAW.csv` does it — private discovery (its share of ρ),
 * encoding against the discovered schema, the engine on the rest of ρ, the released CSV — then
 * fidelity of the released CSV against the raw file (raw-metrics.ts). The baseline: the schema
 * read off the data (equal-width bins, not private), released with the non-private override.
 * Seeded, INSECURE noise and a throwaway ledger: benchmarks release nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OTHER_CATEGORY } from '../../src/core/data/encode.ts';
import { inferSchema } from '../../src/core/data/infer.ts';
import { Rejections } from '../../src/core/data/rejections.ts';
import type { Schema } from '../../src/core/data/schema.ts';
import { readTable } from '../../src/core/data/table.ts';
import { readTableSchema } from '../../src/core/data/table-schema.ts';
import { tableSchemaFromNames } from '../../src/core/data/uci-names.ts';
import type { RapReport } from '../../src/core/engine/types.ts';
import { defaultWorkload } from '../../src/core/workload/default.ts';
import { randomWorkload } from '../../src/core/workload/random.ts';
import type { Threshold, Workload } from '../../src/core/workload/types.ts';
import { fileNameFor } from './output.ts';
import { type Fidelity, fidelity } from './raw-metrics.ts';
import { releaseCase } from './release-run.ts';

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
  /** Random r-of-k thresholds, or the default workload (every 2-way marginal at weight 1). */
  readonly workload: { readonly k: number; readonly r: number; readonly size: number } | 'default';
  /** Columns left out (`--exclude`): never read, never released, not scored. */
  readonly exclude?: readonly string[];
  /** Columns discovered as hierarchical codes (`--hierarchy col=LEVELS`, private method only). */
  readonly hierarchy?: readonly string[];
  readonly rows: number;
  /** Also fit every 2-way marginal at this weight (the curator's thresholds keep theirs). */
  readonly pairWeight?: number;
  /**
   * A public codebook (a UCI .names file) read as a Frictionless Table Schema (`rap-studio schema
   * from-names`) and given as the declared schema: its listed categories are declared, the rest
   * discovered (private method only).
   */
  readonly codebook?: { readonly names: string; readonly className: string };
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
  /** The largest share of released rows that say "(other)" in one categorical column. */
  readonly otherShare?: number;
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

/**
 * One raw case as a release: `rap-studio synth --data RAW.csv` (no schema: private discovery at
 * the case's share) or, for the baseline, the schema read off the data released over with the
 * non-private override — through the release pipeline either way, scored on the released CSV.
 */
export async function runRawCase(c: RawCase, workDir: string): Promise<RawResult> {
  if (c.bins !== undefined) throw new Error(`${c.id}: bins are not a release setting`);
  const all = await readRows(c.file);
  const n = all.rows.length;
  const delta = 1 / (n * n);
  // The released columns, in the file's order (the run's --exclude left out), and the real rows' cells of them.
  const keep = all.names.flatMap((name, i) => (c.exclude?.includes(name) ? [] : [i]));
  const names = keep.map((i) => all.names[i]);
  const rows = all.rows.map((r) => keep.map((i) => r[i]));
  const drawn =
    c.workload === 'default'
      ? defaultWorkload(names.length)
      : randomWorkload({ numFeatures: names.length, ...c.workload, seed: c.seed });
  const workload = c.pairWeight ? withAllPairs(drawn, names.length, c.pairWeight) : drawn;
  const schema = c.method === 'private' ? null : (await inferSchema(c.file)).schema;
  const declared = c.codebook ? await codebookSchema(c.codebook) : undefined;
  const r = await releaseCase({
    data: c.file,
    schema,
    ...(declared && { declared }),
    workload,
    settings: {
      epsilon: String(c.epsilon),
      delta: String(delta),
      rows: String(c.rows),
      seed: String(c.seed),
      ...(c.exclude && { exclude: c.exclude.join(',') }),
    },
    ...(c.hierarchy && c.method === 'private' && { hierarchy: c.hierarchy }),
    ...(c.method === 'private' ? { discoveryShare: c.share } : { allowNonPrivateDomain: true }),
    // The raw suite's files (adult.data as shipped here, housing.csv) name their columns on line 1.
    header: true,
    dir: path.join(workDir, fileNameFor(c.id)),
    name: 'release',
  });
  const released = r.outcome.schema;
  const synthetic = (await readRows(r.csvPath)).rows;
  const discovery = r.outcome.release.params.discovery as { rho: number } | undefined;
  return {
    case: c,
    n,
    delta,
    rhoTotal: r.outcome.release.rho,
    rhoDiscovery: discovery?.rho ?? 0,
    report: r.outcome.report,
    fidelity: fidelity(names, rows, synthetic, c.method === 'private' ? released : undefined),
    schema: released,
    cpuSeconds: r.cpuSeconds,
    otherShare: Math.max(
      0,
      ...names.map((_, j) => synthetic.filter((row) => row[j] === OTHER_CATEGORY).length / synthetic.length),
    ),
  };
}

/** The codebook as `rap-studio schema from-names` writes it, read as `--schema` reads it. */
async function codebookSchema(codebook: NonNullable<RawCase['codebook']>): Promise<Schema> {
  const ts = tableSchemaFromNames(await readFile(codebook.names, 'utf8'), codebook.names, {
    className: codebook.className,
  });
  return readTableSchema(ts, codebook.names).schema;
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
