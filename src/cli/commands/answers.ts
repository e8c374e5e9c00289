/**
 * `rap-studio answers`: the exact answers of a workload on the private data, by counting.
 * The output holds exact (NON-private) statistics of the private data: it is for the curator's
 * own evaluation and must never be released; the command says so on stderr.
 *
 * Formats: `bin` is little-endian float64 in the implicit query order (thresholds in workload
 * order, row-major over each threshold's listed features, the last fastest); `json` is the same
 * numbers with each threshold's features, r, weight and dimensions.
 */
import { endianness } from 'node:os';
import { type Command, Option } from 'commander';
import { PRIVATE_FILE_MODE, writeFileAtomic } from '../../core/data/atomic-write.ts';
import { loadCsv } from '../../core/data/load.ts';
import { domainSizes, type EncodedDataset, type Schema } from '../../core/data/schema.ts';
import { isKeptAsMissing } from '../../core/data/table.ts';
import { assertTableFits, exactThresholdAnswers } from '../../core/workload/exact.ts';
import { thresholdSizes, totalQueryCount } from '../../core/workload/queries.ts';
import type { Workload } from '../../core/workload/types.ts';
import { workloadHash, workloadToObject } from '../../core/workload/workload.ts';
import { readWorkloadFile, schemaFromOptions } from './workload.ts';

export type AnswersFormat = 'bin' | 'json';

interface AnswersOptions {
  data: string;
  schema?: string;
  domain?: string;
  workload: string;
  out: string;
  format?: AnswersFormat;
}

function float64LE(values: Float64Array): Uint8Array {
  if (endianness() === 'LE') return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i], true);
  return bytes;
}

function* binChunks(data: EncodedDataset, w: Workload): Generator<Uint8Array> {
  for (const t of w.thresholds) yield float64LE(exactThresholdAnswers(data, t));
}

function* jsonChunks(data: EncodedDataset, w: Workload, schema: Schema): Generator<string> {
  const named = workloadToObject(w, schema).thresholds;
  yield `{\n  "format": "rap-studio-answers",\n  "version": 1,\n` +
    `  "workloadSha256": ${JSON.stringify(workloadHash(w, schema))},\n` +
    `  "order": "row-major over each threshold's listed features, the last varying fastest",\n` +
    `  "thresholds": [\n`;
  for (let i = 0; i < w.thresholds.length; i++) {
    const t = w.thresholds[i];
    const head = { ...named[i], dims: thresholdSizes(t, domainSizes(schema)) };
    yield `    ${JSON.stringify(head).slice(0, -1)},"answers":[`;
    const answers = exactThresholdAnswers(data, t);
    // Chunks keep memory flat for tables of millions of answers.
    for (let start = 0; start < answers.length; start += 65_536) {
      const part = Array.from(answers.subarray(start, start + 65_536), String).join(',');
      yield start === 0 ? part : `,${part}`;
    }
    yield `]}${i + 1 < w.thresholds.length ? ',' : ''}\n`;
  }
  yield '  ]\n}\n';
}

function formatOf(opts: AnswersOptions): AnswersFormat {
  if (opts.format) return opts.format;
  return opts.out.toLowerCase().endsWith('.json') ? 'json' : 'bin';
}

async function loadData(opts: AnswersOptions): Promise<EncodedDataset> {
  // The release's rule for rows of the wrong width (kept, every value missing), so that the exact
  // answers are over the same n records as a release of this file.
  const loaded = await loadCsv(opts.data, { schema: await schemaFromOptions(opts), raggedAsMissing: true });
  const rejected = loaded.summary.rejected
    .filter((r) => !isKeptAsMissing(r.reason))
    .reduce((s, r) => s + r.count, 0);
  if (rejected > 0) {
    process.stderr.write(
      `rap-studio: ${rejected} of ${loaded.summary.rowsRead} rows of ${opts.data} were rejected (see rap-studio schema); ` +
        'the answers cover the accepted rows only\n',
    );
  }
  return loaded.dataset;
}

export async function answersCommand(opts: AnswersOptions): Promise<void> {
  const data = await loadData(opts);
  const w = await readWorkloadFile(opts.workload, data.schema);
  // Refuse an oversized threshold before writing anything.
  const sizes = domainSizes(data.schema);
  w.thresholds.forEach((t, i) => {
    assertTableFits(thresholdSizes(t, sizes), `${opts.workload}: thresholds[${i}]`);
  });
  const format = formatOf(opts);
  // Exact statistics of the private data: readable by the owner alone.
  await writeFileAtomic(opts.out, format === 'bin' ? binChunks(data, w) : jsonChunks(data, w, data.schema), {
    mode: PRIVATE_FILE_MODE,
  });
  process.stderr.write(
    `rap-studio: wrote ${totalQueryCount(w, sizes)} answers (${format}) to ${opts.out}\n` +
      `rap-studio: warning: ${opts.out} holds EXACT, non-private statistics of the private data; ` +
      'keep it with the private data and never release it\n',
  );
}

export function register(program: Command): void {
  program
    .command('answers')
    .description('exact answers of a workload on the private data (non-private: for evaluation only)')
    .requiredOption('--data <file>', 'the private CSV')
    .option('--schema <file>', 'schema file (rap-studio-schema JSON)')
    .option('--domain <file>', 'benchmark domain file {"column": size, …} (integer-coded CSV)')
    .requiredOption('--workload <file>', 'workload file')
    .requiredOption('--out <file>', 'answers file to write')
    .addOption(
      new Option(
        '--format <format>',
        'bin: little-endian float64 in query order; json (default: by --out extension)',
      ).choices(['bin', 'json']),
    )
    .action((opts: AnswersOptions) => answersCommand(opts));
}
