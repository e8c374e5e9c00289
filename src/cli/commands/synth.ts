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
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, Option } from 'commander';
import {
  isPostgresSource,
  parsePostgresSource,
  tableColumns,
  withPostgres,
} from '../../core/counting/postgres.ts';
import { parsePostgresQuerySource } from '../../core/counting/postgres-query.ts';
import { keepsColumn, keptColumnIndices } from '../../core/data/column-choice.ts';
import { SCHEMA_VERSION, type Schema } from '../../core/data/schema.ts';
import { readDeclaredSchema } from '../../core/data/schema-file.ts';
import { readTableHeader } from '../../core/data/table.ts';
import { discoveryShares } from '../../core/discovery/budget-split.ts';
import {
  discoveryLossPreview,
  hierarchyPreview,
  hierarchySentences,
  lossSentence,
} from '../../core/discovery/preview.ts';
import { provisionalSchema } from '../../core/discovery/raw-source.ts';
import { DEFAULT_CERTIFY_SHARE } from '../../core/engine/certify.ts';
import { DEFAULT_TUNING, SOFTMAX_LR_SCALE, TABLE_TUNING } from '../../core/engine/defaults.ts';
import { DIRECT_LR_BOOST } from '../../core/engine/table-mode/direct-fit.ts';
import type { ProgressEvent } from '../../core/engine/types.ts';
import { InputError } from '../../core/errors.ts';
import {
  BACKENDS,
  HEADER_CHOICES,
  HEADER_VALUE,
  IMPORTANCE,
  RELAXATIONS,
  SELECTIONS,
  VALUE_LABEL_CHOICES,
} from '../../core/input/choices.ts';
import { parseChoice, parseDelta, parseEpsilon } from '../../core/input/numbers.ts';
import { Ledger } from '../../core/ledger/ledger.ts';
import { defaultLedgerPath } from '../../core/ledger/paths.ts';
import { dataPackagePathFor, releasedStem } from '../../core/release/data-package.ts';
import { noWriterNote, outputFormatOf } from '../../core/release/output-format.ts';
import { checkUnitColumn, type UnitSpec, workloadWithoutUnit } from '../../core/release/person.ts';
import {
  type DataSource,
  disposeValidated,
  prepare,
  type ReleasePaths,
  type ReleaseSpec,
  releaseColumnNames,
  releaseStraightThrough,
} from '../../core/release/release.ts';
import { reportPathsFor, writeReportsBeside } from '../../core/release/report/index.ts';
import {
  dataSource,
  parseHierarchies,
  parseRunSettings,
  type RunSettingsText,
  releaseSpec,
  SETTING_LABELS,
  type SettingName,
  statedFormats,
  TEXT_SETTINGS,
  type TextSettingName,
  workloadOverKept,
} from '../../core/release/spec.ts';
import { readWorkloadFile, schemaFromOptions } from './workload.ts';

/** commander's values: every text setting of the spec under its own name, and the CLI's own flags. */
export interface SynthFlags extends Partial<Record<TextSettingName, string>> {
  data: string;
  /** A read-only query over the database `data` names (counting/postgres-query.ts). */
  sql?: string;
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
  report?: string;
  ledger?: string;
  seed?: string;
  insecureSeed?: boolean;
  backend?: string;
  selection?: string;
  relaxation?: string;
  importance?: string;
  history?: string;
  threads?: string;
  budgetEpsilon?: string;
  budgetDelta?: string;
  confirmCap?: boolean;
  name?: string;
  discoveryShare?: string;
  hierarchy?: string[];
  dryRun?: boolean;
  discoverUndeclared?: boolean;
  allowNonPrivateDomain?: boolean;
  valueLabels?: string;
  force?: boolean;
  /** Hidden, for benchmarks and tests: 'streaming' counts a raw source with the streaming reader. */
  counting?: string;
  certify?: string;
  certifyShare?: string;
  certifyBeta?: string;
  certifyViolations?: string;
  header?: string;
  unitColumn?: string;
  rowsPerPerson?: string;
  columns?: string;
  exclude?: string;
}

export const INSECURE_SEED_WARNING =
  'insecure-seed: this run is NOT differentially private-grade randomness; for tests/benchmarks only';

/** The seed pairing is the CLI's own (the app has one field): --seed needs --insecure-seed. */
function checkSeedFlags(flags: SynthFlags): void {
  if (flags.seed === undefined && flags.insecureSeed)
    throw new InputError('--insecure-seed needs --seed <integer>');
  if (flags.seed !== undefined && !flags.insecureSeed) {
    throw new InputError(
      '--seed makes the run reproducible, which is not private-grade randomness: add --insecure-seed ' +
        '(tests and benchmarks only), or leave --seed out',
    );
  }
}

/** Each setting's flag, its name in kebab case (commander's camelCase in reverse): the CLI's messages start with it. */
export const SETTING_FLAGS = Object.fromEntries(
  (Object.keys(SETTING_LABELS) as SettingName[]).map((name) => [
    name,
    `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  ]),
) as Readonly<Record<SettingName, string>>;

/** The flags as the spec module's text settings (the app's fields give the same). */
export function settingsText(flags: SynthFlags): RunSettingsText {
  return {
    ...Object.fromEntries(TEXT_SETTINGS.map((name) => [name, flags[name]])),
    epsilon: flags.epsilon,
    mode: flags.mode,
    selection: flags.selection,
    relaxation: flags.relaxation,
    importance: flags.importance,
    seed: flags.seed,
    columns: flags.columns,
    exclude: flags.exclude,
  };
}

/** All flags and public files, checked; nothing private is read here. */
export async function synthSpec(flags: SynthFlags): Promise<ReleaseSpec & ReleasePaths> {
  checkSeedFlags(flags);
  const { settings, problems } = parseRunSettings(settingsText(flags));
  if (!settings) {
    const first = problems[0];
    throw new InputError(`${SETTING_FLAGS[first.field]}: ${first.message}`, { field: first.field });
  }
  if (flags.history !== undefined && settings.importance !== 'history') {
    throw new InputError(
      '--history <file> gives the historical workload for --importance history; add --importance history',
    );
  }
  if (flags.budgetDelta !== undefined && flags.budgetEpsilon === undefined) {
    throw new InputError('--budget-delta goes with --budget-epsilon <cap>');
  }
  // A cap is set on purpose: `rap-studio ledger set-cap`, or --budget-epsilon with --confirm-cap.
  if (flags.budgetEpsilon !== undefined && !flags.confirmCap) {
    throw new InputError(
      "--budget-epsilon would set the dataset's budget cap in passing; set it on purpose with " +
        '`rap-studio ledger set-cap --dataset <csv> --epsilon <cap>`, or add --confirm-cap',
    );
  }
  const budgetCap =
    flags.budgetEpsilon === undefined
      ? undefined
      : {
          epsilon: parseEpsilon('--budget-epsilon', flags.budgetEpsilon),
          delta:
            flags.budgetDelta === undefined ? undefined : parseDelta('--budget-delta', flags.budgetDelta),
        };
  const source = await sourceFromFlags(flags);
  const unit = await unitFromFlags(flags, source);
  // Workload features are column names: resolved against the declared schema, or, with
  // discovery, against the header (placeholder domains until discovery, after the reservation).
  // With a unit column, against the header with the unit column, which no threshold may name.
  // With a column choice, against every column, then refused if a threshold names one left out.
  const names = unit ? unit.withUnit : await workloadSchema(source);
  const all = names.columns.map((c) => c.name);
  const choice = settings.columns;
  // Unknown names (and a choice keeping fewer than two) refused first, naming the header.
  if (choice && (source.discover !== undefined || unit)) keptColumnIndices(source.path, all, choice);
  const kept = all.filter((n) => keepsColumn(choice, n) || n === unit?.spec.column);
  const readWorkload = async (file: string) => {
    const read = await readWorkloadFile(file, names);
    const w = choice ? workloadOverKept(read, all, kept, file) : read;
    return unit ? workloadWithoutUnit(w, kept.indexOf(unit.spec.column), unit.spec.column) : w;
  };
  const workload = await readWorkload(flags.workload);
  const spec = releaseSpec(settings, {
    source,
    datasetName: flags.name,
    datasetChosen: flags.name !== undefined,
    workload,
    history: flags.history === undefined ? undefined : await readWorkload(flags.history),
    columns: kept.length - (unit ? 1 : 0),
    evalWorkload: flags.evalWorkload === undefined ? undefined : await readWorkload(flags.evalWorkload),
    budgetCap,
    allowNonPrivateDomain: flags.allowNonPrivateDomain === true,
    ...(unit ? { unit: unit.spec } : {}),
  });
  return {
    ...spec,
    outPath: flags.out,
    reportPath: flags.report ?? `${releasedStem(flags.out)}.REPORT.private.json`,
    replace: flags.force === true,
  };
}

/** --unit-column COL [--rows-per-person k|private]: the person as the unit (default k: private). */
async function unitFromFlags(flags: SynthFlags, source: DataSource) {
  if (flags.unitColumn === undefined) {
    if (flags.rowsPerPerson !== undefined)
      throw new InputError('--rows-per-person goes with --unit-column <column>');
    return undefined;
  }
  const spec: UnitSpec = { column: flags.unitColumn, bound: parseRowsPerPerson(flags.rowsPerPerson) };
  // A database source's columns come from its catalogue (no row read; counted in the database).
  const pg = source.postgres;
  const { header } = pg
    ? { header: await withPostgres(pg, (client) => tableColumns(client, pg)) }
    : await readTableHeader(source.path, source.header === undefined ? {} : { header: source.header });
  checkUnitColumn(source.path, spec, header, source.schema);
  // Without discovery a database release reads the declared columns and the unit column only
  // (release/database.ts databaseFacts); a file's must declare every other column (prepare).
  const read =
    pg && !source.discover
      ? header.filter((n) => n === spec.column || source.schema.columns.some((c) => c.name === n))
      : header;
  // The release's columns are the header's in order, the unit column left out (release/person.ts).
  return {
    spec,
    withUnit: provisionalSchema(read, source.schema.columns),
  };
}

function parseRowsPerPerson(text: string | undefined): number | 'private' {
  if (text === undefined || text === 'private') return 'private';
  const k = Number(text);
  if (!(Number.isSafeInteger(k) && k >= 1)) {
    throw new InputError(`--rows-per-person must be an integer >= 1 or "private", got "${text}"`);
  }
  return k;
}

/**
 * No --schema and no --domain: a raw CSV, every column discovered privately (the default).
 * --schema (a rap-studio schema, or a Frictionless Table Schema / Data Package): its declared
 * columns are the release's columns. A Table Schema's fields that state no domain (a string
 * without "enum", a number without bounds, a date) are discovered privately, with the table's
 * other columns; so are, with --discover-undeclared, the table's other columns and the schema's
 * columns read off the data (e.g. an app schema with some columns edited).
 * --domain: the papers' integer-coded data, every column declared.
 */
async function sourceFromFlags(flags: SynthFlags): Promise<DataSource> {
  // A PostgreSQL table (postgres://…?table=…): parsed (a password in it refused) before anything else.
  if (flags.sql !== undefined && !isPostgresSource(flags.data)) {
    throw new InputError(
      '--sql reads from a PostgreSQL database: give --data postgres://[user@]host[:port]/database',
    );
  }
  if (isPostgresSource(flags.data)) {
    const pg =
      flags.sql === undefined
        ? parsePostgresSource(flags.data)
        : parsePostgresQuerySource(flags.data, flags.sql);
    if (flags.header !== undefined)
      throw new InputError('--header: a database table names its columns; leave it out');
    return { ...(await sourceWithoutHeader({ ...flags, data: pg.location })), postgres: pg };
  }
  const header =
    flags.header === undefined
      ? {}
      : { header: HEADER_VALUE[parseChoice('--header', flags.header, HEADER_CHOICES)] };
  const labels =
    flags.valueLabels === undefined
      ? {}
      : { valueLabels: parseChoice('--value-labels', flags.valueLabels, VALUE_LABEL_CHOICES) };
  return { ...(await sourceWithoutHeader(flags)), ...header, ...labels };
}

async function sourceWithoutHeader(flags: SynthFlags): Promise<DataSource> {
  const share = flags.discoveryShare === undefined ? undefined : parseShare(flags.discoveryShare);
  const hierarchies = flags.hierarchy?.length ? { hierarchies: parseHierarchies(flags.hierarchy) } : {};
  if (flags.domain !== undefined || flags.schema !== undefined) {
    if (flags.domain !== undefined) {
      const schema = await schemaFromOptions(flags);
      if (share !== undefined) throw new InputError('--discovery-share needs a raw CSV (no --domain)');
      if (flags.hierarchy?.length) throw new InputError('--hierarchy needs a raw CSV (no --domain)');
      return { path: flags.data, schema };
    }
    // A Table Schema may name fields without stating their domain: those are discovered privately.
    const { schema, open } = await readDeclaredSchema(flags.schema!);
    if (!flags.discoverUndeclared && open.length === 0) {
      if (share !== undefined)
        throw new InputError('--discovery-share goes with --discover-undeclared (or no --schema)');
      return dataSource({ path: flags.data, schema, undeclared: 'as-read', ...hierarchies });
    }
    const source = dataSource({
      path: flags.data,
      schema,
      undeclared: 'discover',
      ...(share !== undefined && { share }),
      ...hierarchies,
    });
    const formats = statedFormats(open);
    return Object.keys(formats).length === 0
      ? source
      : { ...source, discover: { ...source.discover, formats } };
  }
  const empty: Schema = { version: SCHEMA_VERSION, origin: 'declared', columns: [] };
  return dataSource({
    path: flags.data,
    schema: empty,
    undeclared: 'discover',
    ...(share !== undefined && { share }),
    ...hierarchies,
  });
}

async function workloadSchema(source: DataSource): Promise<Schema> {
  if (!source.discover) return source.schema;
  // A database table's columns come from its catalogue (no row read).
  const pg = source.postgres;
  const names = pg
    ? await withPostgres(pg, (client) => tableColumns(client, pg))
    : await releaseColumnNames(source.path, source.header);
  return provisionalSchema(names, source.schema.columns);
}

function parseShare(text: string): number {
  const x = Number(text);
  if (text.trim() === '' || !(x > 0 && x < 1)) {
    throw new InputError(`--discovery-share must be a number with 0 < share < 1, got "${text}"`);
  }
  return x;
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

/**
 * `--dry-run`: the release's public plan and what discovery will merge, per column, from the
 * header, the record count and the flags only; nothing is reserved, no ledger is opened, no
 * value is read.
 */
async function dryRun(spec: Awaited<ReturnType<typeof synthSpec>>): Promise<void> {
  // No ledger is opened: a database source's identity is keyed with a throw-away key (never shown).
  const prepared = await prepare(spec, (w) => process.stderr.write(`warning: ${w.message}\n`), {
    ledgerKey: randomBytes(32),
  });
  // Nothing more reads the database: its snapshot, if any, is closed now.
  await disposeValidated(prepared);
  const out: string[] = [
    'dry run: nothing reserved, no value read (the header and the record count only)',
    `ε = ${spec.epsilon}, δ = ${prepared.delta.toExponential(3)}, n = ${prepared.facts.rows}; ` +
      `${prepared.plan.kind} mode, T = ${prepared.plan.rounds}, K = ${prepared.plan.perRound}`,
  ];
  const raw = prepared.raw;
  if (!raw || raw.undeclared.length === 0) {
    // A person-level release builds the raw plan even when every other column is declared.
    out.push('every column declared: nothing is discovered, no category merges');
  } else {
    const b = raw.budget;
    const marked = raw.hierarchies ?? {};
    const shares = discoveryShares(raw.undeclared, marked).total;
    const levels =
      shares > raw.undeclared.length ? `, ${shares} shares: a hierarchical column one per level` : '';
    out.push(
      `discovery: ${raw.share} of ρ = ${b.rho.toExponential(3)} over ${raw.undeclared.length} undeclared columns${levels} ` +
        `(each ρ = ${(b.rhoDiscovery / shares).toExponential(3)}); synthesis ρ = ${b.rhoSynthesis.toExponential(3)}`,
    );
    const preview = discoveryLossPreview(b, raw.undeclared, marked);
    for (const p of preview) {
      const lines = marked[p.name]
        ? hierarchySentences(p.name, hierarchyPreview(b, raw.undeclared, marked, p.name), spec.epsilon)
        : [lossSentence(p, spec.epsilon)];
      for (const line of lines) out.push(`  ${line}`);
    }
    if (preview.length > 0) {
      const p = preview[0];
      out.push(
        `  "(other)" itself is released only when its records number more than about ${p.otherSigmas}·${Math.round(p.sigma)}·√k ` +
          '(k: the categories released); otherwise they join the largest category',
      );
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function synthCommand(flags: SynthFlags): Promise<void> {
  const spec = await synthSpec(flags);
  if (flags.dryRun) return dryRun(spec);
  if (spec.noise.mode === 'insecure-seed') process.stderr.write(`${INSECURE_SEED_WARNING}\n`);
  const ledgerPath = flags.ledger ?? defaultLedgerPath();
  const ledger = Ledger.open(ledgerPath, { onWarning: (m) => process.stderr.write(`warning: ${m}\n`) });
  const cancel = new AbortController();
  const onSignal = () => cancel.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const bar = progressBar(spec.overrides?.maxSteps ?? DEFAULT_TUNING.maxSteps);
  try {
    // The HTML reports are drawn after the commit; their paths are checked before reserving too.
    const html = reportPathsFor(path.resolve(spec.outPath));
    const later = [
      { what: 'public HTML report', path: html.publicHtml },
      { what: 'private HTML report', path: html.privateHtml },
    ] as const;
    const { release, report, finished, manifestPath } = await releaseStraightThrough(
      ledger,
      spec,
      { ...spec, later },
      {
        signal: cancel.signal,
        onWarning: (w) => process.stderr.write(`warning: ${w.message}\n`),
        onReserved: (r) => process.stderr.write(`reserved release ${r.id} (ledger ${ledger.file})\n`),
        onProgress: (e) => bar.update(e),
        ...(flags.counting === 'streaming' ? { counting: 'streaming' as const } : {}),
      },
    );
    bar.complete();
    bar.stop();
    const shown = (p: string) => path.relative('.', p) || p;
    process.stdout.write(
      `released ${release.id}: ${report.output.rows} synthetic rows → ${shown(report.output.path)} ` +
        `(sha256 ${report.output.sha256}); private report → ${spec.reportPath}\n` +
        `public: manifest ${shown(manifestPath)}, Data Package ${shown(dataPackagePathFor(report.output.path))}\n`,
    );
    const noWriter = outputFormatOf(report.output.path) === 'csv' ? noWriterNote(spec.source.path) : null;
    if (noWriter) process.stdout.write(`note: ${noWriter}\n`);
    // The certificate is public (a DP output of the relative-error pass): the manifest holds it too.
    if (report.certificate) process.stdout.write(`accuracy certificate: ${report.certificate.statement}\n`);
    // Committed: a report that cannot be written now can be drawn again with `rap-studio report`.
    try {
      const html = await writeReportsBeside(finished, {
        csvPath: report.output.path,
        manifestPath,
        reportJsonPath: path.resolve(spec.reportPath),
        replace: spec.replace === true,
      });
      process.stdout.write(
        `reports: ${shown(html.publicHtml)} (public, publish it with the data); ${shown(html.privateHtml)} (private, yours only)\n`,
      );
    } catch (err) {
      process.stderr.write(
        `warning: the HTML reports were not written (${(err as Error).message}); release ${release.id} is committed: ` +
          `draw them with \`rap-studio report ${release.id}\`\n`,
      );
    }
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
    .requiredOption(
      '--data <file|url>',
      'the private table: a CSV (or a Parquet, Excel .xlsx, SPSS .sav, Stata .dta or SAS .sas7bdat file), or a PostgreSQL table postgres://[user@]host[:port]/database?table=[schema.]name (no password in the URL: PGPASSWORD or ~/.pgpass; counted in the database, no row leaves it)',
    )
    .option(
      '--sql <query>',
      'with --data postgres://[user@]host[:port]/database: release the result of this one read-only SELECT (or WITH … SELECT), counted in the database as (query) AS source; every query over the database spends one budget (docs/privacy.md)',
    )
    .option(
      '--header <yes|no>',
      'whether the first row names the columns; needed when it looks like a header and no --schema/--domain names them (a release never publishes guessed names; without a header the columns are column_1…column_N)',
    )
    .option(
      '--value-labels <declare|discover>',
      "an SPSS or Stata file's value labels: declare (the default) takes a labelled column's labels as its public categories (the file's dictionary); discover ignores them and discovers the column privately, for labels made from the data (e.g. Stata's encode)",
    )
    .option(
      '--schema <file>',
      'declared schema file (rap-studio-schema JSON, or a Frictionless Table Schema / datapackage.json); without it, every column is discovered privately',
    )
    .option(
      '--discover-undeclared',
      "with --schema: also release the table's other columns, and the schema's columns it does not declare (read off the data), discovered privately",
    )
    .option('--domain <file>', 'benchmark domain file {"column": size, …} (integer-coded CSV)')
    .option(
      '--columns <a,b,c>',
      'release only these columns (comma-separated header names); the others are never read and cost nothing',
    )
    .option(
      '--exclude <x,y>',
      'leave these columns out (comma-separated header names): never read, never released, no cost',
    )
    .option(
      '--discovery-share <s>',
      'share of the budget for discovering undeclared columns privately (0 < s < 1); default 0.2',
    )
    .option(
      '--hierarchy <col=levels>',
      'a column of hierarchical codes, discovered level by level from the top (repeatable): a preset (icd10, postcode, naics) or prefix lengths, e.g. zip=postcode, code=1,3,full; add ,full-codes to decode to released full codes',
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option(
      '--allow-non-private-domain',
      'release over a domain read off the data without differential privacy (an inferred schema): it LEAKS',
    )
    .requiredOption('--workload <file>', 'workload file (thresholds)')
    .option(
      '--eval-workload <file>',
      'an evaluation (future) workload: the report gives its error per threshold beside the present error, with the All-0 and GM baselines (see `workload random --drift`)',
    )
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
      '--learning-rate <x>',
      `Adam's step size (> 0); default ${DEFAULT_TUNING.learningRate} (query mode), ${TABLE_TUNING.learningRate} (table mode), ×${SOFTMAX_LR_SCALE} with softmax unless given; the direct plan's one fit uses ×${DIRECT_LR_BOOST.toFixed(2)} of it where its measurement noise is far under rounding's (large n)`,
    )
    .option(
      '--tolerance <x>',
      `early-stopping relative loss improvement (0 = never stop early); default ${DEFAULT_TUNING.tolerance}`,
    )
    .option('--backend <name>', `${BACKENDS.join(' | ')}; default: the best available`)
    .option(
      '--selection <how>',
      `query mode: ${SELECTIONS.join(' | ')} (one-shot Gumbel top-K, OSAS; or adaptive peeling, AS; same privacy cost); default one-shot`,
    )
    .option(
      '--relaxation <how>',
      `${RELAXATIONS.join(' | ')}: how the relaxed data stays on the simplex (RAP's sparsemax or GEM's softmax); default sparsemax`,
    )
    .option(
      '--importance <how>',
      `${IMPORTANCE.join(' | ')}: history multiplies each threshold's weight by how often its features appear in the historical workload (max weight 1: no privacy cost); default none`,
    )
    .option(
      '--history <file>',
      'the historical workload for --importance history; default the --workload itself',
    )
    .option('--threads <n>', 'CPU kernel threads; default every core (the result does not depend on it)')
    .option(
      '--certify <ζ>',
      'relative-error pass after RAP (PREM) at margin ζ (0 < ζ < 1), with a public accuracy certificate in the manifest',
    )
    .option(
      '--certify-share <s>',
      `share of the engine's budget the pass spends (taken out of the synthesis; the ledger charges the same total); default ${DEFAULT_CERTIFY_SHARE}`,
    )
    .option('--certify-beta <β>', "the certificate's failure probability β; default 0.05")
    .option('--certify-violations <c>', 'how many violations the pass may find and feed back (c); default 3')
    .requiredOption(
      '--out <file>',
      'synthetic data to write: .csv, .parquet, .xlsx, .sav or .dta (the format follows the extension; others are refused)',
    )
    .option(
      '--report <file>',
      'the PRIVATE report (error metrics against the exact answers: for the curator only); default <out>.REPORT.private.json',
    )
    .option(
      '--force',
      "replace existing output files (never the input, never a committed release's CSV); default: refuse, before anything is reserved",
    )
    .option('--ledger <path>', `privacy budget ledger; default ${defaultLedgerPath()}`)
    .option(
      '--name <name>',
      "the dataset whose budget this release spends: a known dataset's name or alias (a new or re-saved " +
        'file then spends that budget), or a new name for a new dataset; default the data file name, and a ' +
        'new file that looks like a known dataset (same columns, similar record count) is refused until you choose',
    )
    .option('--seed <integer>', 'reproducible randomness (needs --insecure-seed)')
    .option('--insecure-seed', 'allow --seed: tests and benchmarks only, NOT private-grade randomness')
    .option('--budget-epsilon <ε>', "set the dataset's budget cap if it has none yet (needs --confirm-cap)")
    .option('--confirm-cap', 'confirm that --budget-epsilon sets the budget cap on purpose')
    .option('--budget-delta <δ>', "δ of the cap; default this run's δ")
    .option(
      '--unit-column <column>',
      'the column that identifies the person when one person can have several rows: privacy protects a person (all their rows), the column is never released',
    )
    .option(
      '--rows-per-person <k|private>',
      'with --unit-column: at most k rows per person enter the release (a secure random sample of a person with more); "private" (the default) chooses k from a noisy histogram at 5% of the budget',
    )
    .option(
      '--dry-run',
      'print the plan and, per discovered column, which categories will merge into "(other)" at this ε; reserves nothing',
    )
    .addOption(
      // The scale benchmark's today's-path row (bench/README.md): the same release, privacy
      // untouched, read and counted by the streaming reader instead of DuckDB.
      new Option('--counting <reader>', 'auto (DuckDB where it reads the file) or streaming: benchmarks only')
        .choices(['auto', 'streaming'])
        .hideHelp(),
    )
    .action((flags: SynthFlags) => synthCommand(flags));
}
