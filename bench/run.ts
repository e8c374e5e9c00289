/**
 * `npm run bench -- [--suite quick|paper|scale|scale-engine|…] [--out DIR] [--seeds N] [--filter TERM] …`
 *
 * Runs a suite's cases one after another, each a release through the release pipeline (the
 * spec module and stages `rap-studio synth` runs; seeded insecure noise, a throwaway ledger per
 * run) scored on its released CSV — or, with --profile / --engine-only, the engine in-process
 * (a kernel micro-benchmark), writes one JSON file per run as soon as it finishes, then the
 * Markdown table (printed, written under --out and as bench/results/latest-<suite>.md).
 * Progress goes to stderr. Benchmarks report; they do not pass or fail. Exit 1 only when a run
 * crashed, 2 on bad options.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type BenchArgs, BenchArgsError, parseBenchArgs, USAGE } from './lib/args.ts';
import { listedCases, selectedCases } from './lib/cases.ts';
import { loadDataset } from './lib/datasets.ts';
import {
  defaultOutDir,
  describeMachine,
  latestTablePath,
  profilePath,
  readStoredResults,
  writeAtomically,
  writeRunJson,
} from './lib/output.ts';
import { type PremSuite, runPremSuite } from './lib/prem-run.ts';
import { type RawSuite, runRawSuite } from './lib/raw-run.ts';
import { runCase } from './lib/run-case.ts';
import { formatNumber, markdownReport } from './lib/table.ts';
import type { BenchCase, BenchResult, Suite } from './lib/types.ts';
import { PREM_SUITES, RAW_SUITES, SHAPES_PARTS, SHAPES_SUITE, SUITES } from './suites/index.ts';
import { PERSON_SUITE, runPersonSuite } from './suites/person.ts';
import { runScaleSuite, SCALE_SUITE } from './suites/scale.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

function pickSuite(name: string): Suite | RawSuite | PremSuite {
  const suite = SUITES.get(name) ?? RAW_SUITES.get(name) ?? PREM_SUITES.get(name);
  if (!suite)
    throw new BenchArgsError(
      `unknown suite '${name}'; choose one of ${[...SUITES.keys(), ...RAW_SUITES.keys(), ...PREM_SUITES.keys(), PERSON_SUITE, SCALE_SUITE, SHAPES_SUITE, ...SHAPES_PARTS.keys()].join(', ')}`,
    );
  return suite;
}

function selectCases(suite: Suite, args: BenchArgs): BenchCase[] {
  const cases = selectedCases(suite, args);
  if (cases.length === 0)
    throw new BenchArgsError(`no case of suite '${suite.name}' matches the filter (see --list)`);
  return cases;
}

function doneLine(r: BenchResult): string {
  const rep = r.report;
  const errors = r.extrapolation
    ? `extrapolated from ${r.extrapolation.measuredRounds}/${r.extrapolation.targetRounds} rounds`
    : r.released
      ? `released CSV ${formatNumber(r.released.maxError)} (${r.released.plan} plan; relaxed ${formatNumber(rep.presentError)})`
      : `engine-only: present ${formatNumber(rep.presentError)} (rounded ${formatNumber(rep.roundedPresentError)})`;
  const seconds = r.extrapolation?.secondsTotal ?? rep.secondsTotal;
  return (
    `    done: ${errors}, T=${rep.rounds} K=${rep.perRound}, ${formatNumber(seconds)} s, ` +
    `${Math.round(r.measurements.queriesPerSecond).toLocaleString('en-US')} queries/s, ` +
    `peak RSS ${Math.round(r.measurements.peakRssBytes / 2 ** 20)} MB`
  );
}

function commandLine(): string {
  const args = process.argv.slice(2).map((a) => (/[\s'"]/.test(a) ? JSON.stringify(a) : a));
  return `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

async function runAll(cases: readonly BenchCase[], args: BenchArgs, outDir: string) {
  log(`bench: ${cases.length} runs → ${outDir}`);
  const results: BenchResult[] = [];
  const failures: string[] = [];
  for (const [i, c] of cases.entries()) {
    log(`[${i + 1}/${cases.length}] ${c.id}`);
    try {
      const data = await loadDataset(c.dataset);
      const result = await runCase(c, data, {
        log,
        workDir: path.join(outDir, 'releases'),
        engineOnly: args.engineOnly,
        ...(args.maxRounds !== undefined ? { maxRounds: args.maxRounds } : {}),
        ...(args.backend !== undefined ? { backend: args.backend } : {}),
        ...(args.threads !== undefined ? { threads: args.threads } : {}),
        ...(args.profile ? { profileFile: profilePath(outDir, c.id) } : {}),
      });
      await writeRunJson(outDir, result);
      results.push(result);
      log(doneLine(result));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      failures.push(`${c.id}: ${message}`);
      log(`    FAILED: ${message}`);
    }
  }
  return { results, failures };
}

/**
 * Earlier results of the selected cases, in suite order (the last folder's result of a case
 * wins); the selected cases without a result are reported as not run.
 */
async function storedResults(cases: readonly BenchCase[], dirs: readonly string[]) {
  const byId = new Map((await readStoredResults(dirs)).map((r) => [r.case.id, r]));
  const results = cases.flatMap((c) => byId.get(c.id) ?? []);
  const missing = cases.filter((c) => !byId.has(c.id)).map((c) => c.id);
  log(`bench: ${results.length} of ${cases.length} selected cases found in ${dirs.join(', ')}`);
  return { results, failures: missing.map((id) => `${id}: not run`) };
}

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // The person-level suite (issue 27) runs whole releases through the release pipeline.
  if (args.suite === PERSON_SUITE) {
    const outDir = path.resolve(args.out ?? defaultOutDir(PERSON_SUITE));
    return runPersonSuite(args, outDir, latestTablePath(PERSON_SUITE), commandLine());
  }
  // `shapes` (issue 28): its parts one after another, each with its own folder and latest table.
  if (args.suite === SHAPES_SUITE) {
    const base = path.resolve(args.out ?? defaultOutDir(SHAPES_SUITE));
    let code = 0;
    for (const [name, part] of SHAPES_PARTS) {
      code = Math.max(code, await part(args, path.join(base, name), latestTablePath(name), commandLine()));
    }
    const schema = RAW_SUITES.get('shapes-schema')!;
    const schemaCode = await runRawSuite(
      schema,
      args,
      path.join(base, schema.name),
      latestTablePath(schema.name),
      commandLine(),
    );
    return Math.max(code, schemaCode);
  }
  const shapesPart = SHAPES_PARTS.get(args.suite);
  if (shapesPart) {
    const outDir = path.resolve(args.out ?? defaultOutDir(args.suite));
    return shapesPart(args, outDir, latestTablePath(args.suite), commandLine());
  }
  // Raw files far beyond memory through `rap-studio synth` (issue 31): CPU seconds and peak RSS.
  if (args.suite === SCALE_SUITE) {
    const outDir = path.resolve(args.out ?? defaultOutDir(SCALE_SUITE));
    return runScaleSuite(args, outDir, latestTablePath(SCALE_SUITE), commandLine());
  }
  const picked = pickSuite(args.suite);
  if ('kind' in picked && picked.kind === 'prem') {
    const outDir = path.resolve(args.out ?? defaultOutDir(picked.name));
    await mkdir(outDir, { recursive: true });
    return runPremSuite(picked, args, outDir, latestTablePath(picked.name), commandLine());
  }
  if ('kind' in picked) {
    const outDir = path.resolve(args.out ?? defaultOutDir(picked.name));
    return runRawSuite(picked, args, outDir, latestTablePath(picked.name), commandLine());
  }
  const suite = picked;
  const cases = selectCases(suite, args);
  if (listedCases(cases, args)) return 0;
  const outDir = path.resolve(args.out ?? defaultOutDir(suite.name));
  await mkdir(outDir, { recursive: true });
  const started = performance.now();
  const { results, failures } = args.from.length
    ? await storedResults(cases, args.from)
    : await runAll(cases, args, outDir);
  const wallSeconds = args.from.length
    ? results.reduce((s, r) => s + r.measurements.wallSeconds, 0)
    : (performance.now() - started) / 1000;
  const notes = [
    ...args.notes,
    ...(args.filter.length ? [`Filtered: ${args.filter.join(' AND ')} (${cases.length} cases)`] : []),
    ...(args.from.length
      ? [`Assembled from earlier runs (${args.from.join(', ')}); wall time = sum of the runs' wall times`]
      : []),
    ...(failures.length ? [`Not in the table: ${failures.join('; ')}`] : []),
  ];
  const report = markdownReport(
    {
      suite: suite.name,
      description: suite.description,
      command: commandLine(),
      date: new Date().toISOString(),
      machine: describeMachine(),
      wallSeconds,
      budget: suite.budget,
      notes,
      sections: suite.sections?.(results) ?? [],
    },
    results,
  );
  await writeAtomically(path.join(outDir, 'table.md'), report);
  await writeAtomically(
    path.join(outDir, 'summary.json'),
    `${JSON.stringify({ suite: suite.name, command: commandLine(), wallSeconds, failures, results }, null, 2)}\n`,
  );
  if (args.latest && results.length > 0) await writeAtomically(latestTablePath(suite.name), report);
  process.stdout.write(report);
  log(
    `bench ${suite.name}: ${formatNumber(wallSeconds)} s wall, ${results.length} runs, ${failures.length} failed`,
  );
  return failures.length > 0 && !args.from.length ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof BenchArgsError) {
      log(`bench: ${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exitCode = 1;
    }
  },
);
