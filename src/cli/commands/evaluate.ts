/**
 * `rap-studio evaluate`: how well a released synthetic CSV answers a workload, measured against
 * the private data. The numbers compare with EXACT private answers: they are non-private
 * diagnostics for the curator (no budget is spent, so they must not be published).
 */
import type { Command } from 'commander';
import { type LoadResult, loadCsv } from '../../core/data/load.ts';
import type { EncodedDataset, Schema } from '../../core/data/schema.ts';
import { asWrittenSchema } from '../../core/release/output.ts';
import { exactThresholdAnswers } from '../../core/workload/exact.ts';
import type { Workload } from '../../core/workload/types.ts';
import { workloadToObject } from '../../core/workload/workload.ts';
import { readWorkloadFile, schemaFromOptions } from './workload.ts';

interface EvaluateFlags {
  data: string;
  synthetic: string;
  schema?: string;
  domain?: string;
  workload: string;
  json?: boolean;
}

export const EVALUATION_NOTE =
  'NON-PRIVATE: these errors compare the synthetic data with the exact answers on the private data; ' +
  'they are diagnostics for the curator only and must not be published.';

export interface ThresholdError {
  readonly features: readonly string[];
  readonly r: number;
  readonly weight: number;
  readonly numQueries: number;
  readonly maxError: number;
  readonly meanError: number;
}

export interface Evaluation {
  readonly format: 'rap-studio-evaluation';
  readonly nonPrivate: true;
  readonly note: string;
  readonly real: { readonly file: string; readonly rows: number };
  readonly synthetic: { readonly file: string; readonly rows: number };
  readonly numQueries: number;
  /** Max and mean over all workload queries of |real answer − synthetic answer|. */
  readonly maxError: number;
  readonly meanError: number;
  readonly perThreshold: readonly ThresholdError[];
}

/** Errors of `synthetic` against `real`, threshold by threshold (one threshold's tables in memory). */
export function evaluateSynthetic(
  real: EncodedDataset,
  synthetic: EncodedDataset,
  w: Workload,
  schema: Schema,
) {
  const named = workloadToObject(w, schema).thresholds;
  let total = 0;
  let sum = 0;
  let max = 0;
  const perThreshold = w.thresholds.map((t, i): ThresholdError => {
    const a = exactThresholdAnswers(real, t);
    const b = exactThresholdAnswers(synthetic, t);
    let tMax = 0;
    let tSum = 0;
    for (let q = 0; q < a.length; q++) {
      const e = Math.abs(a[q] - b[q]);
      if (e > tMax) tMax = e;
      tSum += e;
    }
    total += a.length;
    sum += tSum;
    max = Math.max(max, tMax);
    return {
      ...named[i],
      weight: t.weight,
      numQueries: a.length,
      maxError: tMax,
      meanError: tSum / a.length,
    };
  });
  return { numQueries: total, maxError: max, meanError: sum / total, perThreshold };
}

async function load(file: string, schema: Schema): Promise<LoadResult> {
  const loaded = await loadCsv(file, { schema });
  return warnRejected(file, loaded);
}

function warnRejected(file: string, loaded: LoadResult): LoadResult {
  const rejected = loaded.summary.rejected.reduce((s, r) => s + r.count, 0);
  if (rejected > 0) {
    process.stderr.write(
      `warning: ${rejected} of ${loaded.summary.rowsRead} rows of ${file} were rejected by the schema; ` +
        'the errors cover the accepted rows only\n',
    );
  }
  return loaded;
}

function formatText(e: Evaluation): string {
  const lines = e.perThreshold.map(
    (t, i) =>
      `  [${i}] {${t.features.join(', ')}} r=${t.r}: ${t.numQueries} queries, ` +
      `max ${t.maxError.toFixed(6)}, mean ${t.meanError.toFixed(6)}`,
  );
  return (
    `${e.note}\n` +
    `real ${e.real.file} (${e.real.rows} rows) vs synthetic ${e.synthetic.file} (${e.synthetic.rows} rows)\n` +
    `${e.numQueries} queries: max error ${e.maxError.toFixed(6)}, mean error ${e.meanError.toFixed(6)}\n` +
    `${lines.join('\n')}\n`
  );
}

async function evaluateCommand(flags: EvaluateFlags): Promise<void> {
  // Public inputs first: a bad schema or workload fails before the private data is read.
  const schema = await schemaFromOptions(flags);
  const w = await readWorkloadFile(flags.workload, schema);
  const real = await load(flags.data, schema);
  // A released CSV writes formula-like categories with a leading ' (output.ts): read them as written.
  const synthetic = warnRejected(
    flags.synthetic,
    await loadCsv(flags.synthetic, { schema: asWrittenSchema(schema) }),
  );
  const evaluation: Evaluation = {
    format: 'rap-studio-evaluation',
    nonPrivate: true,
    note: EVALUATION_NOTE,
    real: { file: flags.data, rows: real.dataset.n },
    synthetic: { file: flags.synthetic, rows: synthetic.dataset.n },
    ...evaluateSynthetic(real.dataset, synthetic.dataset, w, schema),
  };
  if (flags.json) process.stdout.write(`${JSON.stringify(evaluation, null, 2)}\n`);
  else process.stdout.write(formatText(evaluation));
}

export function register(program: Command): void {
  program
    .command('evaluate')
    .description('error of a released synthetic CSV on a workload, against the private data (non-private)')
    .requiredOption('--data <file>', 'the private (real) CSV')
    .requiredOption('--synthetic <file>', 'the synthetic CSV to evaluate')
    .option('--schema <file>', 'schema file (rap-studio-schema JSON), used for both files')
    .option('--domain <file>', 'benchmark domain file {"column": size, …} (integer-coded CSVs)')
    .requiredOption('--workload <file>', 'workload file')
    .option('--json', 'print the result as JSON')
    .action((flags: EvaluateFlags) => evaluateCommand(flags));
}
