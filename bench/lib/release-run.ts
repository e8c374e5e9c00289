/**
 * A benchmark release through the front door: the settings go through the same spec module as
 * `rap-studio synth` and the app (src/core/release/spec.ts), the release through the same staged
 * pipeline (releaseStraightThrough: output checks → prepare → validate → reserve → run in the
 * engine process → publish), with a throwaway ledger and seeded, INSECURE noise (benchmarks
 * release nothing: the manifest says notARelease). Figures are then scored on the released CSV,
 * read back as any user would read it.
 *
 * Clocks: wall seconds of the whole release; CPU seconds of this process plus its reaped
 * children (the engine process), from /proc/self/stat; peak RSS is the larger of this process's
 * and the engine's (sampled from /proc/<pid>/status while it runs).
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Schema } from '../../src/core/data/schema.ts';
import type { ProgressEvent } from '../../src/core/engine/types.ts';
import { Ledger } from '../../src/core/ledger/ledger.ts';
import { type ReleaseOutcome, releaseStraightThrough } from '../../src/core/release/release.ts';
import {
  dataSource,
  parseHierarchies,
  parseRunSettings,
  type RunSettingsText,
  releaseSpec,
} from '../../src/core/release/spec.ts';
import type { Workload } from '../../src/core/workload/types.ts';
import { PeakRssMeter } from './memory.ts';

export interface ReleaseCaseInput {
  /** The private CSV. */
  readonly data: string;
  /** Its declared schema (a benchmark domain), or null: every column discovered privately. */
  readonly schema: Schema | null;
  /** With schema null: the columns the curator declared (a Table Schema's), the others discovered. */
  readonly declared?: Schema;
  readonly workload: Workload;
  readonly evalWorkloads?: readonly Workload[];
  /** The settings as a curator would type them (seed: the insecure seed). */
  readonly settings: RunSettingsText & { readonly seed: string };
  /** Release over a schema read off the data (the raw suite's non-private baseline). */
  readonly allowNonPrivateDomain?: boolean;
  /**
   * Whether line 1 names the columns, said as a curator says it (`--header yes|no`): a raw
   * release refuses a header it would have to guess (docs/privacy.md, the header rule).
   */
  readonly header?: boolean;
  /** Discovery's share (raw data only); default the product's. */
  readonly discoveryShare?: number;
  /** Columns marked hierarchical, as `--hierarchy col=TEXT` entries (raw data only). */
  readonly hierarchy?: readonly string[];
  /** A fresh folder for the throwaway ledger and the release's files. */
  readonly dir: string;
  readonly name: string;
  readonly onProgress?: (e: ProgressEvent) => void;
}

export interface ReleasedCase {
  readonly outcome: ReleaseOutcome;
  readonly csvPath: string;
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
}

/** Clock ticks per second of /proc/self/stat's times (USER_HZ: 100 on Linux). */
const CLK_TCK = 100;

/** CPU seconds of this process and of its children that have exited and been waited for. */
export async function cpuWithChildren(): Promise<number> {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = await readFile('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 3; cutime and cstime are fields 16 and 17.
    children = (Number(fields[13]) + Number(fields[14])) / CLK_TCK;
  } catch {
    children = 0; // not Linux: the engine's CPU time is not counted (the table says so)
  }
  return (own.user + own.system) / 1e6 + children;
}

async function childPeakBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function releaseCase(input: ReleaseCaseInput): Promise<ReleasedCase> {
  await mkdir(input.dir, { recursive: true });
  const { settings, problems } = parseRunSettings(input.settings);
  if (!settings) throw new Error(`bench settings: ${problems.map((p) => p.message).join('; ')}`);
  const chosen = input.schema
    ? dataSource({ path: input.data, schema: input.schema, undeclared: 'as-read' })
    : dataSource({
        path: input.data,
        schema: input.declared ?? ({ version: 1, origin: 'declared', columns: [] } as Schema),
        undeclared: 'discover',
        ...(input.discoveryShare !== undefined && { share: input.discoveryShare }),
        ...(input.hierarchy && { hierarchies: parseHierarchies(input.hierarchy) }),
      });
  const source = input.header === undefined ? chosen : { ...chosen, header: input.header };
  const spec = releaseSpec(settings, {
    source,
    datasetName: input.name,
    workload: input.workload,
    ...(input.evalWorkloads && { evalWorkloads: input.evalWorkloads }),
    columns: input.schema?.columns.length ?? 0,
    allowNonPrivateDomain: input.allowNonPrivateDomain === true,
    // A throwaway ledger: the cap only has to admit the run.
    budgetCap: { epsilon: 1e6 },
  });
  const csvPath = path.join(input.dir, `${input.name}.csv`);
  const ledger = Ledger.open(path.join(input.dir, 'ledger.sqlite'), { anchorFile: null });
  const memory = new PeakRssMeter();
  let enginePeak = 0;
  let sampler: NodeJS.Timeout | undefined;
  const cpu0 = await cpuWithChildren();
  const t0 = performance.now();
  memory.start();
  try {
    const outcome = await releaseStraightThrough(
      ledger,
      spec,
      { outPath: csvPath, reportPath: path.join(input.dir, `${input.name}.REPORT.private.json`) },
      {
        ...(input.onProgress && { onProgress: input.onProgress }),
        onEngineStarted: (pid) => {
          if (pid === undefined) return;
          sampler = setInterval(() => {
            void childPeakBytes(pid).then((b) => {
              enginePeak = Math.max(enginePeak, b);
            });
          }, 200);
          sampler.unref();
        },
      },
    );
    const wallSeconds = (performance.now() - t0) / 1000;
    return {
      outcome,
      csvPath,
      wallSeconds,
      cpuSeconds: (await cpuWithChildren()) - cpu0,
      peakRssBytes: Math.max(memory.stop(), enginePeak),
    };
  } finally {
    clearInterval(sampler);
    memory.stop();
    ledger.close();
  }
}
