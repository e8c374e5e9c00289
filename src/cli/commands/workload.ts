/**
 * `rap-studio workload …`: random workloads (with the paper's drift) and workload statistics.
 * Workloads are public: nothing here reads the private data.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  isPostgresSource,
  parsePostgresSource,
  tableColumns,
  withPostgres,
} from '../../core/counting/postgres.ts';
import { parsePostgresQuerySource } from '../../core/counting/postgres-query.ts';
import { writeFileAtomic } from '../../core/data/atomic-write.ts';
import { parseDomainJson } from '../../core/data/benchmark.ts';
import { type ColumnChoice, keptColumnIndices } from '../../core/data/column-choice.ts';
import { domainSizes, type Schema } from '../../core/data/schema.ts';
import { readSchemaFile } from '../../core/data/schema-file.ts';
import { InputError } from '../../core/errors.ts';
import { HEADER_CHOICES, HEADER_VALUE } from '../../core/input/choices.ts';
import { readTextFile } from '../../core/input/files.ts';
import { integerAtLeast, parseChoice } from '../../core/input/numbers.ts';
import { releaseColumnNames } from '../../core/release/release.ts';
import { parseColumnChoice } from '../../core/release/spec.ts';
import { DEFAULT_WORKLOAD_WEIGHT, defaultWorkloadFor } from '../../core/workload/default.ts';
import { futureWorkload } from '../../core/workload/future.ts';
import { type FeatureDistribution, randomWorkload } from '../../core/workload/random.ts';
import { workloadStats } from '../../core/workload/stats.ts';
import type { Workload } from '../../core/workload/types.ts';
import {
  parseWorkloadJson,
  validateWorkload,
  workloadHash,
  workloadToJson,
} from '../../core/workload/workload.ts';

export function parseIntegerOption(min: number): (value: string) => number {
  return (value) => {
    const n = integerAtLeast(value, min);
    if (n === undefined) throw new InvalidArgumentError(`expected an integer >= ${min}, got "${value}"`);
    return n;
  };
}

function parseGamma(value: string): number {
  const g = Number(value);
  if (value.trim() === '' || !(g >= 0 && g <= 1))
    throw new InvalidArgumentError(`expected a number in [0, 1], got "${value}"`);
  return g;
}

/** The schema from exactly one of --schema (schema file) or --domain (benchmark domain JSON). */
export async function schemaFromOptions(opts: { schema?: string; domain?: string }): Promise<Schema> {
  if ((opts.schema === undefined) === (opts.domain === undefined)) {
    throw new InputError('give exactly one of --schema <schema.json> or --domain <domain.json>');
  }
  if (opts.schema !== undefined) return readSchemaFile(opts.schema);
  const domain = opts.domain!;
  return parseDomainJson(await readTextFile(domain, 'domain file'), domain);
}

export async function readWorkloadFile(file: string, schema: Schema): Promise<Workload> {
  return parseWorkloadJson(await readTextFile(file, 'workload file'), schema, file);
}

interface ColumnFlags {
  columns?: string;
  exclude?: string;
}

/** --columns / --exclude with --data: the columns a release with the same flags keeps. */
function columnChoiceOf(opts: ColumnFlags & { data?: string }) {
  if (opts.data === undefined && (opts.columns !== undefined || opts.exclude !== undefined)) {
    throw new InputError('--columns and --exclude go with --data <csv>');
  }
  try {
    return parseColumnChoice(opts);
  } catch (err) {
    const field = (err as InputError).where?.field;
    throw new InputError(`${field === 'exclude' ? '--exclude' : '--columns'}: ${(err as Error).message}`);
  }
}

/**
 * The column names a release of `data` publishes: a file's header (releaseColumnNames), or a
 * PostgreSQL table's columns from its catalogue (no row read), the column choice applied.
 */
async function dataColumnNames(
  data: string,
  said: boolean | undefined,
  choice: ColumnChoice | undefined,
  sql?: string,
): Promise<readonly string[]> {
  if (sql !== undefined && !isPostgresSource(data)) {
    throw new InputError(
      '--sql reads from a PostgreSQL database: give --data postgres://[user@]host[:port]/database',
    );
  }
  if (!isPostgresSource(data)) return releaseColumnNames(data, said, choice);
  // A read-only query's result columns (its description: no row read) or a table's catalogue.
  const pg = sql === undefined ? parsePostgresSource(data) : parsePostgresQuerySource(data, sql);
  if (said !== undefined) throw new InputError('--header: a database table names its columns; leave it out');
  const all = await withPostgres(pg, (client) => tableColumns(client, pg));
  return choice ? keptColumnIndices(pg.location, all, choice).map((i) => all[i]) : all;
}

interface RandomOptions extends ColumnFlags {
  sql?: string;
  schema?: string;
  domain?: string;
  data?: string;
  header?: string;
  k: number;
  r: number;
  size: number;
  dist: FeatureDistribution;
  drift?: number;
  from?: string;
  seed: number;
  weight: number;
  out: string;
}

/**
 * A random workload from the column names of the data file alone (public: no value is read
 * beyond what deciding the header needs), so a raw CSV needs no domain file.
 */
async function randomFromHeader(opts: RandomOptions & { data: string }): Promise<void> {
  if (opts.schema !== undefined || opts.domain !== undefined) {
    throw new InputError(
      'give one of --data <csv>, --schema <schema.json> or --domain <domain.json>, not several',
    );
  }
  if (opts.drift !== undefined || opts.from !== undefined) {
    throw new InputError('--drift and --from need --schema or --domain');
  }
  // The names a release would publish: a guessed header row is refused there, so here too.
  const said =
    opts.header === undefined
      ? undefined
      : HEADER_VALUE[parseChoice('--header', opts.header, HEADER_CHOICES)];
  const header = await dataColumnNames(opts.data, said, columnChoiceOf(opts), opts.sql);
  const w = randomWorkload({
    numFeatures: header.length,
    k: opts.k,
    r: opts.r,
    size: opts.size,
    seed: opts.seed,
    weight: opts.weight,
    dist: opts.dist,
  });
  await writeFileAtomic(opts.out, workloadToJson(w, header));
  process.stderr.write(
    `rap-studio: wrote ${opts.out}: ${w.thresholds.length} thresholds over the columns of ${opts.data} ` +
      '(drawn from the column names only; the number of queries depends on the domain, fixed at release)\n',
  );
}

async function randomCommand(opts: RandomOptions): Promise<void> {
  columnChoiceOf(opts);
  if (opts.data !== undefined) return randomFromHeader({ ...opts, data: opts.data });
  const schema = await schemaFromOptions(opts);
  const d = schema.columns.length;
  if (opts.from !== undefined && opts.drift === undefined) {
    throw new InputError('--from gives the historical workload for --drift; add --drift <γ> (0 = no drift)');
  }
  const draw = {
    numFeatures: d,
    k: opts.k,
    r: opts.r,
    size: opts.size,
    seed: opts.seed,
    weight: opts.weight,
  };
  const w =
    opts.drift === undefined
      ? randomWorkload({ ...draw, dist: opts.dist })
      : futureWorkload({
          ...draw,
          drift: opts.drift,
          base:
            opts.from !== undefined
              ? { kind: 'workload', workload: await readWorkloadFile(opts.from, schema) }
              : { kind: 'distribution', dist: opts.dist },
        });
  validateWorkload(w, schema);
  await writeFileAtomic(opts.out, workloadToJson(w, schema));
  const stats = workloadStats(w, domainSizes(schema));
  process.stderr.write(
    `rap-studio: wrote ${opts.out}: ${stats.thresholds} thresholds, ${stats.queries} queries\n`,
  );
}

/** Every 2-way marginal (plus 3-way with the target): from the column names only. */
async function defaultCommand(
  opts: ColumnFlags & {
    data: string;
    sql?: string;
    header?: string;
    target?: string;
    out: string;
  },
): Promise<void> {
  // The names a release would publish: a guessed header row is refused there, so here too.
  const said =
    opts.header === undefined
      ? undefined
      : HEADER_VALUE[parseChoice('--header', opts.header, HEADER_CHOICES)];
  const header = await dataColumnNames(opts.data, said, columnChoiceOf(opts), opts.sql);
  const w = defaultWorkloadFor(header, opts.target, opts.data);
  await writeFileAtomic(opts.out, workloadToJson(w, header));
  const pairs = w.thresholds.filter((t) => t.features.length === 2).length;
  const triples = w.thresholds.length - pairs;
  process.stderr.write(
    `rap-studio: wrote ${opts.out}: every 2-way marginal of the ${header.length} columns of ${opts.data} (${pairs})` +
      (opts.target === undefined ? '' : `, and every 3-way marginal with "${opts.target}" (${triples})`) +
      `, each at weight ${DEFAULT_WORKLOAD_WEIGHT} (read from the column names only)\n`,
  );
}

async function statsCommand(file: string, opts: { schema?: string; domain?: string }): Promise<void> {
  const schema = await schemaFromOptions(opts);
  const w = await readWorkloadFile(file, schema);
  const stats = workloadStats(w, domainSizes(schema));
  const out = {
    thresholds: stats.thresholds,
    queries: stats.queries.toString(),
    largestThresholdQueries: stats.largestThresholdQueries,
    thresholdsByK: stats.thresholdsByK,
    sha256: workloadHash(w, schema),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

export function register(program: Command): void {
  const workload = program
    .command('workload')
    .description('r-of-k threshold workloads (public: no private data)');
  workload
    .command('random')
    .description('draw N distinct random thresholds of k features (optionally with the paper’s drift)')
    .option('--schema <file>', 'schema file (rap-studio-schema JSON)')
    .option('--domain <file>', 'benchmark domain file {"column": size, …}')
    .option(
      '--data <csv|url>',
      'the data file, or a PostgreSQL table postgres://…?table=…: draw from its column names only (no domain needed)',
    )
    .option(
      '--header <yes|no>',
      'with --data: whether its first row names the columns (asked when it looks like a header)',
    )
    .option(
      '--sql <query>',
      'with --data postgres://…/database: the columns of this read-only query (as synth --sql)',
    )
    .option('--columns <a,b,c>', 'with --data: draw over only these columns (as synth --columns)')
    .option('--exclude <x,y>', 'with --data: draw over every column but these (as synth --exclude)')
    .requiredOption('--k <k>', 'features per threshold', parseIntegerOption(1))
    .requiredOption(
      '--r <r>',
      'at least r of the k features must match (r = k: k-way marginal)',
      parseIntegerOption(1),
    )
    .requiredOption('--size <n>', 'number of distinct thresholds', parseIntegerOption(1))
    .addOption(
      new Option(
        '--dist <dist>',
        'feature distribution over the column order (zipf: exponent 1; geometric: p = 0.5)',
      )
        .choices(['uniform', 'zipf', 'geometric'])
        .default('uniform'),
    )
    .option(
      '--drift <gamma>',
      'drift γ in [0, 1] of the feature distribution (0 none, 0.5 random, 1 reversed)',
      parseGamma,
    )
    .option(
      '--from <file>',
      'historical workload whose feature frequencies --drift starts from (default: --dist)',
    )
    .option(
      '--weight <w>',
      'weight of every threshold',
      (v) => {
        const w = Number(v);
        if (!(Number.isFinite(w) && w > 0))
          throw new InvalidArgumentError(`expected a finite number > 0, got "${v}"`);
        return w;
      },
      1,
    )
    .requiredOption('--seed <seed>', 'seed of the (public) random draw', parseIntegerOption(0))
    .requiredOption('--out <file>', 'workload file to write')
    .action((opts: RandomOptions) => randomCommand(opts));
  workload
    .command('default')
    .description(
      'the workload for no analysis in mind: every 2-way marginal, plus every 3-way marginal with --target; weight 1 each',
    )
    .requiredOption(
      '--data <csv|url>',
      'the data file, or a PostgreSQL table postgres://…?table=…: only its column names are read',
    )
    .option(
      '--header <yes|no>',
      'whether its first row names the columns (asked when it looks like a header)',
    )
    .option(
      '--sql <query>',
      'with --data postgres://…/database: the columns of this read-only query (as synth --sql)',
    )
    .option('--target <column>', 'a target column: also every 3-way marginal of two other columns with it')
    .option('--columns <a,b,c>', 'only these columns (as synth --columns)')
    .option('--exclude <x,y>', 'every column but these (as synth --exclude)')
    .requiredOption('--out <file>', 'workload file to write')
    .action(
      (opts: ColumnFlags & { data: string; sql?: string; header?: string; target?: string; out: string }) =>
        defaultCommand(opts),
    );
  workload
    .command('stats')
    .description('validate a workload file and print its size and SHA-256')
    .argument('<workload>', 'workload file')
    .option('--schema <file>', 'schema file (rap-studio-schema JSON)')
    .option('--domain <file>', 'benchmark domain file {"column": size, …}')
    .action((file: string, opts: { schema?: string; domain?: string }) => statsCommand(file, opts));
}
