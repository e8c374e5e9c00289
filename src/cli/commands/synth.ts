/**
 * `rap-studio synth`: one differentially private release of synthetic data.
 *
 * Privacy first (see src/core/release/release.ts): every argument and public file is
 * checked, the data file is fingerprinted and its records counted (n is public, as in the
 * papers), the ledger reserves the budget, and only then is the private data loaded and run
 * through the engine in its own process. Ctrl-C cancels the engine; the release is then marked
 * aborted and its spend stays counted.
 *
 * Exit codes: 0 released, 1 runtime failure (engine, cancel, output not written), 2 bad input,
 * 3 budget refused (nothing reserved).
 */
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { DEFAULT_TUNING, TABLE_TUNING } from '../../core/engine/defaults.ts';
import type { NoiseSpec } from '../../core/engine/process/protocol.ts';
import type { ProgressEvent } from '../../core/engine/types.ts';
import { InputError } from '../../core/errors.ts';
import { BACKENDS, ENGINE_MODES } from '../../core/input/choices.ts';
import {
  parseChoice,
  parseCount,
  parseDelta,
  parseEpsilon,
  parseNonNegative,
  parseSeed,
} from '../../core/input/numbers.ts';
import { Ledger } from '../../core/ledger/ledger.ts';
import { defaultLedgerPath } from '../../core/ledger/paths.ts';
import { type DataSource, type ReleaseSpec, releaseStraightThrough } from '../../core/release/release.ts';
import { readWorkloadFile, schemaFromOptions } from './workload.ts';

export interface SynthFlags {
  data: string;
  schema?: string;
  domain?: string;
  workload: string;
  evalWorkload?: string;
  epsilon: string;
  delta?: string;
  rows?: string;
  rounds?: string;
  perRound?: string;
  oversample?: string;
  mode?: string;
  maxSteps?: string;
  tolerance?: string;
  out: string;
  report: string;
  ledger?: string;
  seed?: string;
  insecureSeed?: boolean;
  backend?: string;
  threads?: string;
  budgetEpsilon?: string;
  budgetDelta?: string;
  name?: string;
}

export const INSECURE_SEED_WARNING =
  'insecure-seed: this run is NOT differentially private-grade randomness; for tests/benchmarks only';

function parseNoise(flags: SynthFlags): NoiseSpec {
  if (flags.seed === undefined && !flags.insecureSeed) return { mode: 'secure' };
  if (flags.seed === undefined) throw new InputError('--insecure-seed needs --seed <integer>');
  if (!flags.insecureSeed) {
    throw new InputError(
      '--seed makes the run reproducible, which is not private-grade randomness: add --insecure-seed ' +
        '(tests and benchmarks only), or leave --seed out',
    );
  }
  return { mode: 'insecure-seed', seed: parseSeed('--seed', flags.seed) };
}

/** All flags and public files, checked; nothing private is read here. */
export async function synthSpec(
  flags: SynthFlags,
): Promise<ReleaseSpec & { readonly outPath: string; readonly reportPath: string }> {
  const epsilon = parseEpsilon('--epsilon', flags.epsilon);
  const delta = flags.delta === undefined ? undefined : parseDelta('--delta', flags.delta);
  const count = (flag: string, text: string | undefined) =>
    text === undefined ? undefined : parseCount(flag, text);
  const overrides = {
    rows: count('--rows', flags.rows),
    rounds: count('--rounds', flags.rounds),
    perRound: count('--per-round', flags.perRound),
    oversample: count('--oversample', flags.oversample),
    mode: flags.mode === undefined ? undefined : parseChoice('--mode', flags.mode, ENGINE_MODES),
    backend: flags.backend === undefined ? undefined : parseChoice('--backend', flags.backend, BACKENDS),
    threads: count('--threads', flags.threads),
    maxSteps: count('--max-steps', flags.maxSteps),
    tolerance: flags.tolerance === undefined ? undefined : parseNonNegative('--tolerance', flags.tolerance),
  };
  const noise = parseNoise(flags);
  if (flags.budgetDelta !== undefined && flags.budgetEpsilon === undefined) {
    throw new InputError('--budget-delta goes with --budget-epsilon <cap>');
  }
  const budgetCap =
    flags.budgetEpsilon === undefined
      ? undefined
      : {
          epsilon: parseEpsilon('--budget-epsilon', flags.budgetEpsilon),
          delta:
            flags.budgetDelta === undefined ? undefined : parseDelta('--budget-delta', flags.budgetDelta),
        };
  const source: DataSource = { path: flags.data, schema: await schemaFromOptions(flags) };
  const workload = await readWorkloadFile(flags.workload, source.schema);
  const evalWorkload =
    flags.evalWorkload === undefined ? undefined : await readWorkloadFile(flags.evalWorkload, source.schema);
  return {
    source,
    datasetName: flags.name,
    workload,
    evalWorkload,
    epsilon,
    delta,
    overrides: Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
    noise,
    outPath: flags.out,
    reportPath: flags.report,
    budgetCap,
  };
}

// ---- progress on stderr: round, step, loss, noisy max error, ETA; never a private value ------

function progressBar(maxSteps: number): { update(e: ProgressEvent): void; complete(): void; stop(): void } {
  const bar = new SingleBar({
    stream: process.stderr,
    format:
      'synth [{bar}] {percentage}% | round {round}/{rounds} step {step} | loss {loss} | ' +
      'max err (selected, noisy) {maxErr} | ETA {etaText}',
    hideCursor: null,
    gracefulExit: false,
  });
  let started = false;
  return {
    update(e) {
      const done = e.round - 1 + Math.min(1, e.step / maxSteps);
      const payload = {
        round: e.round,
        rounds: e.rounds,
        step: e.step,
        loss: e.loss.toExponential(2),
        maxErr: e.maxSelectedError.toFixed(4),
        etaText: `${Math.round(e.etaSeconds)}s`,
      };
      if (!started) bar.start(e.rounds, done, payload);
      else bar.update(done, payload);
      started = true;
    },
    complete() {
      if (started) bar.update(bar.getTotal());
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

// ---- the command ---------------------------------------------------------------------------

async function synthCommand(flags: SynthFlags): Promise<void> {
  const spec = await synthSpec(flags);
  if (spec.noise.mode === 'insecure-seed') process.stderr.write(`${INSECURE_SEED_WARNING}\n`);
  const ledgerPath = flags.ledger ?? defaultLedgerPath();
  const ledger = Ledger.open(ledgerPath, { onWarning: (m) => process.stderr.write(`warning: ${m}\n`) });
  const cancel = new AbortController();
  const onSignal = () => cancel.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const bar = progressBar(spec.overrides?.maxSteps ?? DEFAULT_TUNING.maxSteps);
  try {
    const { release, report } = await releaseStraightThrough(ledger, spec, spec, {
      signal: cancel.signal,
      onWarning: (w) => process.stderr.write(`warning: ${w.message}\n`),
      onReserved: (r) => process.stderr.write(`reserved release ${r.id} (ledger ${ledger.file})\n`),
      onProgress: (e) => bar.update(e),
    });
    bar.complete();
    bar.stop();
    process.stdout.write(
      `released ${release.id}: ${report.output.rows} synthetic rows → ${path.relative('.', report.output.path) || report.output.path} ` +
        `(sha256 ${report.output.sha256}); report → ${flags.report}\n`,
    );
  } finally {
    bar.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    ledger.close();
  }
}

export function register(program: Command): void {
  program
    .command('synth')
    .description(
      'release differentially private synthetic data (RAP); reserves the budget in the ledger first',
    )
    .requiredOption('--data <file>', 'the private CSV')
    .option('--schema <file>', 'declared schema file (rap-studio-schema JSON)')
    .option('--domain <file>', 'benchmark domain file {"column": size, …} (integer-coded CSV)')
    .requiredOption('--workload <file>', 'workload file (thresholds)')
    .option('--eval-workload <file>', 'a second workload to report the future error on')
    .requiredOption('--epsilon <ε>', 'privacy budget ε of this run (> 0)')
    .option('--delta <δ>', 'δ of this run (0 < δ < 1); default 1/n²')
    .option('--rows <n>', "synthetic (relaxed) rows n'; default 1000")
    .option(
      '--rounds <T>',
      'rounds T (table mode: T0, the bound on rounds; T0 x K measurements set their first budget); default: the documented rule',
    )
    .option(
      '--per-round <K>',
      'queries per round K (query mode), or whole tables measured per round (table mode); default: the rule',
    )
    .option('--oversample <m>', 'samples per relaxed row in randomized rounding; default 50')
    .option(
      '--mode <mode>',
      "query (select single queries, the papers' RAP) or table (select and measure whole tables, AIM-style); default table",
    )
    .option(
      '--max-steps <n>',
      `Adam steps per round at most; default ${TABLE_TUNING.maxSteps} (table mode), ${DEFAULT_TUNING.maxSteps} (query mode)`,
    )
    .option(
      '--tolerance <x>',
      `early-stopping relative loss improvement (0 = never stop early); default ${DEFAULT_TUNING.tolerance}`,
    )
    .option('--backend <name>', `${BACKENDS.join(' | ')}; default: the best available`)
    .option('--threads <n>', 'CPU kernel threads; default every core (the result does not depend on it)')
    .requiredOption('--out <file>', 'synthetic CSV to write')
    .requiredOption('--report <file>', 'report JSON to write (holds non-private diagnostics)')
    .option('--ledger <path>', `privacy budget ledger; default ${defaultLedgerPath()}`)
    .option('--name <name>', 'dataset name for the ledger; default the data file name')
    .option('--seed <integer>', 'reproducible randomness (needs --insecure-seed)')
    .option('--insecure-seed', 'allow --seed: tests and benchmarks only, NOT private-grade randomness')
    .option('--budget-epsilon <ε>', "set the dataset's budget cap if it has none yet")
    .option('--budget-delta <δ>', "δ of the cap; default this run's δ")
    .action((flags: SynthFlags) => synthCommand(flags));
}
