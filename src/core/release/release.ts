import path from 'node:path';
import { isPersonTable } from '../counting/person-table.ts';
import type { PostgresSource } from '../counting/postgres.ts';
import { openSnapshot, type PostgresSnapshot } from '../counting/postgres-snapshot.ts';
import type { SourceTable } from '../counting/source-table.ts';
import { alsoKeeping, type ColumnChoice } from '../data/column-choice.ts';
import { type FileFacts, fingerprintAndCountRows } from '../data/file-facts.ts';
import { checkDeclaredFit, type FitCheck } from '../data/fit.ts';
import { fileValueLabels, type ValueLabelSet, withFileDeclarations } from '../data/formats/declarations.ts';
import { hasOwnHeader } from '../data/formats/format.ts';
import { type Hierarchy, hierarchyText } from '../data/hierarchy.ts';
import { type LoadResult, loadCsv } from '../data/load.ts';
import { layoutOf } from '../data/onehot.ts';
import type { RejectedRows } from '../data/rejections.ts';
import { describeSchemaOrigin, type Schema } from '../data/schema.ts';
import { isKeptAsMissing, readTableHeader } from '../data/table.ts';
import { discoveryForColumn } from '../discovery/budget-split.ts';
import { DEFAULT_DISCOVERY_SHARE, type DiscoveredSchema } from '../discovery/discover.ts';
import type { ColumnFormat } from '../discovery/formats.ts';
import {
  type ColumnProvenanceEntry,
  NOT_DP_OVERRIDE,
  NOT_DP_TEXT,
  notDpColumns,
  notDpRefusal,
  provenanceEntries,
} from '../discovery/not-dp.ts';
import { paidOneWaysFor } from '../discovery/one-way.ts';
import {
  checkDiscoverable,
  checkRawSource,
  discoverAndLoad,
  planRawSource,
  type RawSourcePlan,
} from '../discovery/raw-source.ts';
import { defaultOptions } from '../engine/defaults.ts';
import type { MachineMemory } from '../engine/limits.ts';
import { type EngineSpawner, startEngine } from '../engine/process/client.ts';
import { CancelledError } from '../engine/process/errors.ts';
import type { NoiseSpec } from '../engine/process/protocol.ts';
import { type PublicPlan, publicPlan } from '../engine/public-plan.ts';
import { requiredFeatureSets } from '../engine/required-tables.ts';
import type { ProgressEvent, RapOptions, RapResult } from '../engine/types.ts';
import { InputError } from '../errors.ts';
import { canonicalJson, sha256Hex } from '../ledger/canonical.ts';
import type { Ledger, LedgerIdentity } from '../ledger/ledger.ts';
import type { ReleaseRecord, ReserveRequest, SchemaOrigin } from '../ledger/types.ts';
import { defaultDelta, deltaWarning, rhoFromEpsilon } from '../privacy/accounting.ts';
import { type NoiseSource, secureNoise, seededNoise } from '../privacy/noise.ts';
import { APP_VERSION } from '../version.ts';
import { queryCount } from '../workload/queries.ts';
import type { Workload } from '../workload/types.ts';
import { workloadHash, workloadToJson } from '../workload/workload.ts';
import { countingCheck, fitOnTable, RAGGED_ROWS, readRowLevelSource } from './counted-run.ts';
import type { CountedLoad, Counting } from './counted-source.ts';
import { assertFitsStreamed, type MemoryCheck, plannedDataForm, STREAMING_ASKED } from './data-form.ts';
import {
  checkDatabaseSpec,
  databaseDatasetName,
  databaseFacts,
  discoverAndCountDatabase,
  ledgerKeyFor,
  validateDatabase,
} from './database.ts';
import { readPersonLevelDatabase } from './database-person.ts';
import { manifestFields, planThatRan, type RanPlan } from './manifest.ts';
import {
  abortCode,
  CANCELLED_BEFORE_RESERVE,
  declaredDomainMisfit,
  fileChangedWhileRead,
  ledgerAbortReason,
  NON_PRIVATE_NOTE,
  ReleaseAbortedError,
  type ReleaseWarning,
  recordsDoNotFit,
  warnings,
} from './messages.ts';
import { type WrittenCsv, writeSyntheticCsv } from './output.ts';
import { checkOutput } from './output-format.ts';
import { PendingWrites, pendingDirFor } from './pending-writes.ts';
import {
  boundSource,
  checkUnitColumn,
  describeUnit,
  PERSON_DEFAULT_DELTA,
  type PersonOutcome,
  type UnitBudget,
  type UnitSpec,
  unitBudget,
  unitParams,
} from './person.ts';
import { readPersonLevelSource } from './person-counted.ts';
import { publish } from './publish.ts';
import { checkOutputs, type OutputFile } from './targets.ts';

/** The private file and its public schema (declared, a benchmark domain's, or confirmed). */
export interface DataSource {
  /** The file; for a database table, its `location` (no credentials: counting/postgres.ts). */
  readonly path: string;
  /**
   * A PostgreSQL table instead of a file (`--data postgres://…?table=…`): every count is made in
   * the database (release/database.ts); `path` is then the table's location.
   */
  readonly postgres?: PostgresSource;
  /**
   * The curator's public schema. With `discover`, it holds the DECLARED columns only (possibly
   * none), and every other column of the table is discovered privately after the reservation.
   */
  readonly schema: Schema;
  /**
   * Whether the first row names the columns, as the curator said. Left out, a declared schema
   * decides (the first row is a header iff it holds every declared name: the names published are
   * the schema's); with discovery and no answer, a first row that looks like a header is refused
   * (guessedHeaderRefusal): a release never publishes names it guessed.
   */
  readonly header?: boolean;
  /** Private domain discovery of the undeclared columns, at this share of ρ (default 0.2). */
  readonly discover?: {
    readonly share?: number;
    /**
     * Undeclared columns whose date/time or locale number format the curator states (public):
     * their domain is still discovered, without the private format test (discovery/formats.ts).
     */
    readonly formats?: Readonly<Record<string, ColumnFormat>>;
  };
  /**
   * Undeclared columns to discover as hierarchical codes, by name (the CLI's --hierarchy, a schema
   * file's `hierarchy` on a column without categories; spec.ts). Declared columns carry theirs.
   */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
  /**
   * The columns to release (column-choice.ts): every read of the file drops the others as it
   * parses, so a column left out is never profiled, counted, encoded or written, and costs
   * nothing. `schema` holds no column it leaves out (dataSource and withColumnChoice, spec.ts).
   * Absent: every column of the table (or of a declared schema without discovery).
   */
  readonly columns?: ColumnChoice;
  /**
   * An SPSS or Stata file's value labels: 'declare' (absent: the default) takes each labelled
   * column's labels as its declared categories (formats/declarations.ts: the file's dictionary,
   * public metadata); 'discover' ignores them and discovers the column privately like any other
   * (the curator's choice where the labels were made from the data, e.g. Stata's `encode`).
   */
  readonly valueLabels?: 'declare' | 'discover';
}

/**
 * The choice every read of the release's source applies: the curator's, with the person level's
 * unit column kept (it is read for bounding, then dropped: never released).
 */
export function readChoice(spec: Pick<ReleaseSpec, 'source' | 'unit'>): { readonly choice?: ColumnChoice } {
  const choice = spec.source.columns;
  if (!choice) return {};
  return { choice: spec.unit ? alsoKeeping(choice, spec.unit.column) : choice };
}

/**
 * The engine options a curator may set: all of RapOptions but those the release fixes itself (ε
 * and δ from the spec, the pinned table plan, the person unit after bounding).
 */
export type EngineOverrides = Partial<Omit<RapOptions, 'epsilon' | 'delta' | 'tablePlan' | 'unit'>>;

/** What the curator asks for: all public. */
export interface ReleaseSpec {
  readonly source: DataSource;
  /** Display name for the ledger; default the file's base name. */
  readonly datasetName?: string;
  /**
   * The curator named the dataset whose budget this release spends (the CLI's --name, the app's
   * dataset picker): only then may a new file spend a known dataset's budget, or become a new
   * dataset while it looks like a known one (ledger.ensureDataset). Default false.
   */
  readonly datasetChosen?: boolean;
  readonly workload: Workload;
  readonly evalWorkload?: Workload;
  /** More evaluation workloads (the benchmarks' drifts), after `evalWorkload`, in the report. */
  readonly evalWorkloads?: readonly Workload[];
  readonly epsilon: number;
  /** Default 1/n². */
  readonly delta?: number;
  readonly overrides?: EngineOverrides;
  readonly noise: NoiseSpec;
  /** Set as the dataset's cap when it has none yet (δ defaults to the run's δ). */
  readonly budgetCap?: { readonly epsilon: number; readonly delta?: number };
  /**
   * Release over columns whose domain was read off the data without DP (an inferred schema,
   * confirmed or not). Refused by default, before any reservation; with this set, the ledger
   * event and the manifest say "domain not differentially private" for those columns.
   */
  readonly allowNonPrivateDomain?: boolean;
  /**
   * The person as the unit of privacy (person.ts): the column that identifies persons (never
   * released, never in the workload) and k, the rows kept per person (given, or chosen privately).
   * Absent: one row is the unit.
   */
  readonly unit?: UnitSpec;
}

export type Warn = (warning: ReleaseWarning) => void;

// ---- the stages' values: each stage's output is the next one's input ------------------------

/** 1. The public part of a run, fixed before the private file is read or the ledger touched. */
export interface Prepared {
  readonly stage: 'prepared';
  readonly spec: ReleaseSpec;
  readonly name: string;
  /** The file's column names (the ledger tells a re-saved copy of a known dataset by them). */
  readonly columnNames: readonly string[];
  readonly facts: FileFacts;
  readonly delta: number;
  readonly options: RapOptions;
  readonly plan: PublicPlan;
  /** What the plan's memory check assumed (validate looks again where the streaming reader counts). */
  readonly memory: MemoryCheck;
  /** The streaming reader asked for (PrepareOptions.counting): DuckDB never loads the file. */
  readonly streamingAsked?: true;
  readonly request: ReserveRequest;
  /** The raw-CSV plan when columns are discovered privately (after the reservation). */
  readonly raw: RawSourcePlan | null;
  /** The person level: the unit and its share of the budget (null: one row is the unit). */
  readonly unit: { readonly spec: UnitSpec; readonly budget: UnitBudget } | null;
  /**
   * An SPSS or Stata file's value labels that are declared columns' categories (public metadata):
   * the manifest states them and a release to .sav/.dta writes those columns as the file's codes.
   */
  readonly valueLabels?: readonly ValueLabelSet[];
  /**
   * A database source's one snapshot (counting/postgres-snapshot.ts), held open from before the
   * checks until the counting is done: spec.source.postgres reads it. Whoever holds a Prepared,
   * Validated or Reserved closes it on every way out (disposeValidated), as the DuckDB table.
   */
  readonly snapshot?: PostgresSnapshot;
}

type After<T, S extends string> = Omit<T, 'stage'> & { readonly stage: S };

/** 2. The private file read and encoded (for the engine once the budget is reserved). */
export type Validated = After<Prepared, 'validated'> & {
  /** null with discovery: the data is encoded after discovery, after the reservation. */
  readonly loaded: LoadResult | null;
  /**
   * Why the run must count a raw source with the streaming reader, found by the checks (rows of
   * another width: DuckDB would read a longer one as a record, the streaming reader keeps it as
   * missing values). Private: steers the run only, never written.
   */
  readonly streamingOnly?: string;
  /**
   * The raw file parsed once into a private DuckDB table by the checks, for the run to count
   * after the reservation (counting/source-table.ts). Whoever holds a Validated or Reserved
   * disposes it on every way out: run() does; a caller that never runs it calls disposeValidated.
   */
  readonly table?: SourceTable;
};

/** Removes the DuckDB table a validated release holds, and closes its database snapshot, if any (idempotent). */
export async function disposeValidated(v: {
  readonly table?: SourceTable;
  readonly snapshot?: PostgresSnapshot;
}): Promise<void> {
  await v.snapshot?.close();
  await v.table?.dispose();
}

type Awaitable<T> = T | Promise<T>;

/**
 * What the release needs of the ledger. The CLI passes the Ledger itself (synchronous); the app
 * passes the same Ledger running in a worker thread (src/services/ledger-client.ts), whose calls
 * answer with promises, so a lock wait never blocks the app's event loop.
 */
export type LedgerPort = {
  readonly [M in 'ensureDataset' | 'setCap' | 'reserve' | 'abort' | 'commit']: (
    ...args: Parameters<Ledger[M]>
  ) => Awaitable<ReturnType<Ledger[M]>>;
} & { identity(): Awaitable<LedgerIdentity> };

/** 3. The budget reserved in the ledger. */
export type Reserved = After<Validated, 'reserved'> & { readonly release: ReleaseRecord };

/** 4. The engine's result, waiting to be written (in the app: until the curator exports). */
export type Finished = Omit<After<Reserved, 'finished'>, 'loaded'> & {
  /**
   * The encoded rows, or the exact tables the engine read: counted by DuckDB (counted-source.ts)
   * or in the database (a PostgreSQL table, database.ts).
   */
  readonly loaded: LoadResult | CountedLoad;
  /** Which reader counted a raw source at the row level, and why the streaming one (absent: not raw). */
  readonly counting?: Counting;
  readonly result: RapResult;
  /** What discovery released (null when every column was declared). */
  readonly discovery: DiscoveredSchema | null;
  /** The person level: k, how it was chosen, n̂ (public; null when one row is the unit). */
  readonly person: PersonOutcome | null;
};

/** 5. Written and committed. */
export interface Committed {
  readonly stage: 'committed';
  readonly release: ReleaseRecord;
  readonly csv: WrittenCsv;
}

// ---- 1. prepare ------------------------------------------------------------------------------

/** The hierarchies in their text form (parseHierarchy reads them back), for the ledger and manifest. */
function hierarchyTexts(h: Readonly<Record<string, Hierarchy>>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([name, x]) => [name, hierarchyText(x)]));
}

/**
 * Hierarchical columns to discover need discovery (at the person level too: there each level
 * counts distinct persons per key, discovery/hierarchical.ts). Refused here, before anything is
 * read or reserved.
 */
function checkHierarchies(source: DataSource, discovering: boolean): void {
  const names = Object.keys(source.hierarchies ?? {});
  if (names.length === 0) return;
  const list = names.map((n) => `"${n}"`).join(', ');
  if (!discovering) {
    throw new InputError(
      `${source.path}: hierarchical ${list} must be discovered privately, or declared with their categories in the schema`,
      { file: source.path, field: 'hierarchy' },
    );
  }
}

/** What prepare needs beside the spec. */
export interface PrepareOptions {
  /**
   * The ledger's key (Ledger.sourceKey()): a database source's identity in the ledger is keyed
   * with it (databaseFingerprint). Needed only for a database source; a dry run may pass any key.
   */
  readonly ledgerKey?: Buffer;
  /**
   * 'streaming': a raw source is read and counted by the streaming reader even where DuckDB could
   * (the scale benchmark's today's-path comparison, tests); the release is otherwise the same,
   * its privacy untouched. The memory check then assumes rows.
   */
  readonly counting?: 'streaming';
  /** The machine the memory check assumes (tests; default this machine). */
  readonly machine?: MachineMemory;
}

export async function prepare(
  given: ReleaseSpec,
  warn: Warn = () => {},
  prepareOptions: PrepareOptions = {},
): Promise<Prepared> {
  const pg = given.source.postgres;
  if (!pg) return preparePublic(given, warn, prepareOptions);
  // A database source: one snapshot for the checks here and in validate and the counting after
  // the reservation (counting/postgres-snapshot.ts), so a row written meanwhile changes nothing.
  const snapshot = await openSnapshot(pg);
  try {
    const spec = { ...given, source: { ...given.source, postgres: snapshot.source } };
    return { ...(await preparePublic(spec, warn, prepareOptions)), snapshot };
  } catch (err) {
    await snapshot.close();
    throw err;
  }
}

async function preparePublic(
  given: ReleaseSpec,
  warn: Warn,
  prepareOptions: PrepareOptions,
): Promise<Prepared> {
  const pg = given.source.postgres;
  // A discovering release takes the file's own declarations (SPSS and Stata value labels) as
  // declared, unless the curator chose to discover them (DataSource.valueLabels).
  const fileLabels = !pg && given.source.valueLabels !== 'discover';
  const spec: ReleaseSpec =
    given.source.discover === undefined || !fileLabels
      ? given
      : {
          ...given,
          source: {
            ...given.source,
            schema: await withFileDeclarations(given.source.path, given.source.schema, given.source.columns),
          },
        };
  const { schema } = spec.source;
  const valueLabels = fileLabels ? await fileValueLabels(spec.source.path, schema) : [];
  const header = spec.source.header === undefined ? {} : { header: spec.source.header };
  const choice = readChoice(spec);
  // Refused before anything else: a domain read off the data without DP leaks.
  const notDp = notDpColumns(schema);
  if (notDp.length > 0 && !spec.allowNonPrivateDomain) {
    throw notDpRefusal(spec.source.path, notDp, NOT_DP_OVERRIDE);
  }
  if (notDp.length > 0) warn(warnings.domainNotDp(notDp));
  const discovering = spec.source.discover !== undefined;
  const unitSpec = spec.unit ?? null;
  if (pg) checkDatabaseSpec(spec);
  // A database table: its columns and row count from the database, its identity keyed (database.ts).
  const db = pg
    ? await databaseFacts(
        pg,
        schema.columns,
        ledgerKeyFor(pg, prepareOptions),
        choice.choice,
        discovering,
        unitSpec?.column,
      )
    : null;
  if (db && db.repeats.length > 0) warn(warnings.queryRepeats(db.repeats));
  const names = db
    ? db.header
    : discovering || unitSpec
      ? await releaseColumnNames(spec.source.path, spec.source.header, choice.choice)
      : schema.columns.map((c) => c.name);
  // A declared release reads the schema's columns only; the choice's names are still checked
  // against the header here, before anything is reserved.
  if (choice.choice && !(discovering || unitSpec) && !db) {
    await readTableHeader(spec.source.path, { ...header, ...choice, expectedNames: names });
  }
  if (unitSpec) {
    checkUnitColumn(spec.source.path, unitSpec, names, schema);
    const undeclared = names.filter(
      (n) => n !== unitSpec.column && !schema.columns.some((c) => c.name === n),
    );
    if (!discovering && undeclared.length > 0) {
      throw new InputError(
        `${spec.source.path}: with a unit column, the schema must declare every other column of the table ` +
          `(it does not declare ${undeclared.join(', ')}); declare them, or discover them privately ` +
          '(--discover-undeclared)',
        { file: spec.source.path, field: 'schema' },
      );
    }
  }
  checkHierarchies(spec.source, discovering);
  const facts = db ? db.facts : await fingerprintAndCountRows(spec.source.path, [...names]);
  // 1/n² would publish the row count, which at the person level is private: a public constant there.
  const delta = spec.delta ?? (unitSpec ? PERSON_DEFAULT_DELTA : defaultDelta(Math.max(2, facts.rows)));
  const dw = deltaWarning(delta, facts.rows);
  if (dw) warn(warnings.deltaLarge(dw));
  const rawPlan =
    discovering || unitSpec
      ? await planRawSource(
          spec.source.path,
          schema.columns,
          { epsilon: spec.epsilon, delta, share: spec.source.discover?.share ?? DEFAULT_DISCOVERY_SHARE },
          {
            ...header,
            ...choice,
            ...(unitSpec ? { unitColumn: unitSpec.column } : {}),
            ...(spec.source.hierarchies ? { hierarchies: spec.source.hierarchies } : {}),
            ...(spec.source.discover?.formats ? { formats: spec.source.discover.formats } : {}),
            ...(db ? { knownHeader: db.header } : {}),
          },
        )
      : null;
  // Every column declared: nothing to discover, the declared schema is the whole schema (at the
  // person level the raw path still runs: the data is bounded after the reservation).
  const raw = rawPlan && (rawPlan.undeclared.length > 0 || unitSpec) ? rawPlan : null;
  const discovers = raw !== null && raw.undeclared.length > 0;
  // With discovery the engine runs on what is left of ρ, given as the ε that converts back to it.
  const engineBudget = discovers && raw ? raw.budget : null;
  // The person level takes its shares (n̂, and k when private) from the synthesis' part.
  const unit = unitSpec && raw ? { spec: unitSpec, budget: unitBudget(raw.budget, unitSpec) } : null;
  const requested = defaultOptions({
    epsilon: unit?.budget.engineEpsilon ?? engineBudget?.engineEpsilon ?? spec.epsilon,
    delta: unit ? raw!.budget.engineDelta : (engineBudget?.engineDelta ?? delta),
    ...spec.overrides,
  });
  // Query mode's default T and K depend on the domain sizes, known only after discovery: with
  // discovery it needs both given (the engine still refuses T·K above the discovered query count).
  if (
    (discovers || unit) &&
    requested.mode !== 'table' &&
    (spec.overrides?.rounds === undefined || spec.overrides?.perRound === undefined)
  ) {
    throw new InputError(
      'query mode with private discovery or a unit column needs the rounds T and the queries per round K given ' +
        '(its default rule depends on the domain sizes and the row count); give both, or use table mode (the default)',
      { field: 'mode' },
    );
  }
  const planSchema = raw ? raw.provisional : schema;
  // A database table, or a file DuckDB counts, reaches the engine as its exact tables (no rows):
  // memory is the tables'. Where the checks find DuckDB cannot count it, validate looks again.
  const streamingAsked = prepareOptions.counting === 'streaming';
  const memory: MemoryCheck = {
    form: plannedDataForm({
      database: Boolean(pg),
      raw,
      streamingAsked,
    }),
    ...(prepareOptions.machine ? { machine: prepareOptions.machine } : {}),
  };
  const plan = publicPlan(requested, planSchema, facts.rows, spec.workload, memory.machine, memory.form);
  // Pin T, K and table mode's plan so the engine runs exactly what the ledger records. The plan
  // is pinned with them: a pinned T or K alone reads, to the engine, as a curator asking for
  // rounds (the adaptive plan), which is how releases once never ran the direct or mixed plan.
  //
  // With discovery, table mode's plan reads the cell counts of the DISCOVERED domains (known only
  // after the reservation), so the engine picks it by the same public rule on the discovered
  // schema; T₀ and K are left to the engine too, whose table-mode rule reads ρ, n and the
  // threshold count only (defaultTablePlan), so they equal what the ledger records here.
  //
  // At the person level the row count is private: the engine's public rule picks T₀, K and the
  // plan from n̂/k after the reservation (params.unit says so); the plan above only checks sizes
  // and memory.
  const pinPlan = (raw === null || requested.mode !== 'table') && !unit;
  const options: RapOptions = pinPlan
    ? {
        ...requested,
        rounds: plan.rounds,
        perRound: plan.perRound,
        ...(plan.table ? { tablePlan: plan.table.strategy } : {}),
      }
    : requested;
  const name = spec.datasetName ?? (pg ? databaseDatasetName(pg) : path.basename(spec.source.path));
  const columns = columnEntries(schema, raw);
  const request: ReserveRequest = {
    fingerprint: facts.fingerprint,
    mechanism: `${unit ? 'person-bounding+' : ''}${engineBudget ? 'domain-discovery+' : ''}rap-${options.mode}`,
    // With discovery the run is δ_ps-approximately ρ(ε, δ − δ_ps)-zCDP (δ_ps = δ/10 goes to
    // partition selection, params.discovery): the ledger charges both, ρ and approxDelta. At the
    // person level without discovery the plan is made after bounding (n̂): ρ(ε, δ) is reserved.
    epsilon: spec.epsilon,
    delta,
    rho: engineBudget ? engineBudget.rho : unit ? rhoFromEpsilon(spec.epsilon, delta) : plan.rho,
    approxDelta: engineBudget ? engineBudget.deltaDiscovery : 0,
    params: {
      rounds: plan.rounds,
      perRound: plan.perRound,
      rows: options.rows,
      oversample: options.oversample,
      kind: plan.kind,
      // Which plan ran (table mode) and how it shares the synthesis ρ: public, fixed here.
      ...(plan.table
        ? {
            tablePlan: pinPlan
              ? plan.table
              : unit
                ? 'set by the noisy row count (person level)'
                : 'set by discovery',
          }
        : {}),
      // With discovery the domain sizes (so the query count) are known only after the reservation.
      numQueries: discovers ? 'set by discovery' : plan.numQueries,
      selection: options.selection,
      relaxation: options.relaxation ?? 'sparsemax',
      learningRate: options.learningRate,
      maxSteps: options.maxSteps,
      tolerance: options.tolerance,
      batchSize: options.batchSize,
      ...(spec.evalWorkload ? { evalWorkloadHash: workloadHash(spec.evalWorkload, planSchema) } : {}),
      ...(engineBudget && raw
        ? {
            discovery: {
              share: raw.share,
              rho: engineBudget.rhoDiscovery,
              delta: engineBudget.deltaDiscovery,
              synthesisRho: engineBudget.rhoSynthesis,
              usedRho: engineBudget.rho,
              deltaTotal: delta,
              ...(raw.hierarchies ? { hierarchies: hierarchyTexts(raw.hierarchies) } : {}),
            },
          }
        : {}),
      // The relative-error pass (PREM): its share of ρ, its cost and the certificate's α and β.
      // With discovery, m (so α) is known only after the reservation: the certificate states it.
      ...(plan.certify
        ? { certify: raw ? { ...plan.certify, alpha: 'set by discovery' } : plan.certify }
        : {}),
      columns,
      ...(unit ? { unit: unitParams(unit.spec, unit.budget) } : {}),
    },
    workload: {
      hash: workloadHash(spec.workload, planSchema),
      json: workloadToJson(spec.workload, planSchema),
    },
    // What really happened, as a whole (ledger schema 3): which column is which is in params.columns.
    schema: {
      hash: engineBudget
        ? sha256Hex(
            canonicalJson({
              declared: schema,
              discovery: raw?.share,
              ...(raw?.hierarchies ? { hierarchies: hierarchyTexts(raw.hierarchies) } : {}),
            }),
          )
        : sha256Hex(canonicalJson(schema)),
      origin: ledgerOrigin(columns),
    },
    seedMode: spec.noise.mode,
    backend: options.backend ?? 'auto',
    appVersion: APP_VERSION,
  };
  return {
    stage: 'prepared',
    spec,
    name,
    columnNames: [...names],
    facts,
    delta,
    options,
    plan,
    memory,
    ...(streamingAsked ? { streamingAsked: true as const } : {}),
    request,
    raw,
    unit,
    ...(valueLabels.length > 0 ? { valueLabels } : {}),
  };
}

/**
 * The column names a discovering release publishes. Only the curator can say that the first row
 * is a header: a guess could take a private record for one (a headerless all-text file once
 * published its first record as the released CSV's header). A guess of "no header" is safe (the
 * names are column_1…column_N); a guess of "header" is refused until the curator says which.
 */
export async function releaseColumnNames(
  file: string,
  said: boolean | undefined,
  choice?: ColumnChoice,
): Promise<readonly string[]> {
  const shape = await readTableHeader(file, {
    ...(said === undefined ? {} : { header: said }),
    ...(choice ? { choice } : {}),
  });
  // A Parquet (or other self-describing) file names its columns in its schema: no guess.
  if (said === undefined && shape.hasHeader && !hasOwnHeader(file))
    throw guessedHeaderRefusal(file, shape.firstLine);
  return shape.header;
}

/** The curator must say whether the first row names the columns (nothing is reserved). */
export function guessedHeaderRefusal(file: string, line: number): InputError {
  return new InputError(
    `${file}, line ${line}: this row looks like a header, but RAP Studio publishes column names only when ` +
      'you say the row holds them (a record taken for a header would be published). Say which: ' +
      '--header yes if it names the columns, --header no if it is a record (the columns are then ' +
      "named column_1, column_2, …). In the app: the Data step's Header row. Nothing was reserved.",
    { file, line, field: 'header' },
  );
}

/**
 * Each column's provenance as the ledger event and the manifest state it, fixed before the
 * reservation: declared, discovered privately (its ρ and δ), or "domain not differentially private".
 */
function columnEntries(schema: Schema, raw: RawSourcePlan | null) {
  const declared = provenanceEntries(schema);
  if (!raw || raw.undeclared.length === 0) return declared;
  const byName = new Map(declared.map((e) => [e.name, e]));
  return raw.header.map(
    (name) =>
      byName.get(name) ?? {
        name,
        domain: 'discovered privately' as const,
        ...discoveryForColumn(raw.budget, raw.undeclared, raw.hierarchies, name),
      },
  );
}

/** The released columns' names (public: the schema's, as params.columns lists them), for checks before reserving. */
function releasedColumnNames(validated: Validated): string[] {
  const columns = validated.request.params.columns as readonly ColumnProvenanceEntry[] | undefined;
  return (columns ?? []).map((c) => c.name);
}

/**
 * The ledger's origin for the release as a whole: 'inferred' as soon as one column's domain was
 * read off the data without DP (the override), else 'discovered' when discovery released any
 * column, else 'declared' (every column declared by the curator).
 */
function ledgerOrigin(columns: readonly ColumnProvenanceEntry[]): SchemaOrigin {
  if (columns.some((c) => c.domain === NOT_DP_TEXT)) return 'inferred';
  if (columns.some((c) => c.domain === 'discovered privately')) return 'discovered';
  return 'declared';
}

/** Discovery's noise: the run's source (a seeded run gets its own stream). */
function discoveryNoise(spec: ReleaseSpec): NoiseSource {
  return spec.noise.mode === 'secure' ? secureNoise() : seededNoise(`${spec.noise.seed}/discovery`);
}

/** Contribution bounding's randomness and noise (k, n̂): the run's source, its own stream. */
function personNoise(spec: ReleaseSpec): NoiseSource {
  return spec.noise.mode === 'secure' ? secureNoise() : seededNoise(`${spec.noise.seed}/person`);
}

// ---- 2. validate -----------------------------------------------------------------------------

/** Reads the private file for the curator only; the engine has not started. */
export async function validate(
  prepared: Prepared,
  warn: Warn = () => {},
  signal?: AbortSignal,
): Promise<Validated> {
  const { source } = prepared.spec;
  const header = source.header === undefined ? {} : { header: source.header };
  if (source.postgres) {
    // Counted in the database, for the curator only: declared columns fit, the others discoverable.
    // A refusal closes the release's snapshot: nothing more will read it.
    await validateDatabase(source.postgres, prepared).catch(async (err: unknown) => {
      await disposeValidated(prepared);
      throw err;
    });
    return { ...prepared, stage: 'validated', loaded: null };
  }
  if (prepared.raw) {
    // Before the reservation, for the curator only: whether the file reads, and whether every
    // record fits the declared columns (used exactly; a misfit is refused here, never dropped,
    // mapped or found after the budget is spent). Discovery itself waits for the reservation.
    // Where the run will count with DuckDB, the file is parsed once into a private DuckDB table
    // here: these checks read it, and the run counts from it after the reservation (counted-run.ts).
    let { table, streaming, ...counter } = prepared.streamingAsked
      ? { streaming: STREAMING_ASKED }
      : await countingCheck(prepared, header, signal);
    let check: FitCheck;
    try {
      // The table answers the fit check where it can; the streaming pass where it cannot (no
      // table, or a misfit, whose first record the curator is shown).
      check =
        (table && (await fitOnTable(table, prepared.raw, signal))) ??
        (await checkRawSource(prepared.raw, header));
      if (check.records !== prepared.facts.rows) throw fileChangedWhileRead(source.path);
      if (check.first) throw declaredDomainMisfit(source.path, { ...check, first: check.first });
      if (check.ragged > 0 && table) {
        // Rows of another width (the strict load would have refused them): streamed throughout.
        await table.dispose();
        table = undefined;
        streaming = undefined;
        counter = {};
      }
      // A column past discovery's distinct-value limit is refused now, not after the reservation.
      const read = await checkDiscoverable(prepared.raw, {
        ...header,
        ...(signal ? { signal } : {}),
        ...counter,
      });
      warnKeptAsMissing(read.keptAsMissing, source.path, warn);
      // The streaming reader holds the rows: the run must fit with them (data-form.ts).
      assertFitsStreamed(prepared, check.ragged > 0 ? RAGGED_ROWS : streaming);
    } catch (err) {
      await table?.dispose();
      throw err;
    }
    const why = check.ragged > 0 ? RAGGED_ROWS : streaming;
    return {
      ...prepared,
      stage: 'validated',
      loaded: null,
      ...(why !== undefined ? { streamingOnly: why } : {}),
      ...(table ? { table } : {}),
    };
  }
  const choice = readChoice(prepared.spec);
  const loaded = await loadCsv(source.path, {
    schema: source.schema,
    signal,
    raggedAsMissing: true,
    ...header,
    ...choice,
  });
  // The ledger records the bytes fingerprinted when n was counted; the file must not change meanwhile.
  if (loaded.fingerprint !== prepared.facts.fingerprint) throw fileChangedWhileRead(source.path);
  // n is public and fixed: a record the declared domain cannot hold is refused here, before any
  // reservation, rather than dropped (which would make the engine's n differ from the ledger's).
  if (loaded.dataset.n !== prepared.facts.rows) {
    // The first record that does not fit, with its value, for the curator's message.
    const check = await checkDeclaredFit(source.path, source.schema.columns, {
      ...header,
      ...choice,
      signal,
    });
    if (check.first) throw declaredDomainMisfit(source.path, { ...check, first: check.first });
    throw recordsDoNotFit(loaded, prepared.facts.rows);
  }
  warnKeptAsMissing(
    loaded.summary.rejected.filter((r) => isKeptAsMissing(r.reason)),
    source.path,
    warn,
  );
  return { ...prepared, stage: 'validated', loaded };
}

/** The one rule for rows of the wrong width, said aloud: kept, every value missing (n counts them). */
function warnKeptAsMissing(kept: readonly RejectedRows[], file: string, warn: Warn): void {
  if (kept.length === 0) return;
  const rows = kept.reduce((s, r) => s + r.count, 0);
  warn(warnings.rowsKeptMissing(rows, Math.min(...kept.map((r) => r.firstLine)), path.basename(file)));
}

// ---- 3. reserve ------------------------------------------------------------------------------

/** Registers the dataset (and its cap when asked), then reserves in one BEGIN IMMEDIATE. */
export async function reserve(
  ledger: LedgerPort,
  validated: Validated,
  warn: Warn = () => {},
  signal?: AbortSignal,
): Promise<Reserved> {
  const { facts, spec, name } = validated;
  // The dataset whose budget this file spends: the curator's named dataset (spec.datasetName), or
  // the file's own; a new file that looks like a known dataset is refused here, unless named.
  const dataset = await ledger.ensureDataset({
    fingerprint: facts.fingerprint,
    name,
    rows: facts.rows,
    columns: validated.columnNames,
    chosen: spec.datasetChosen === true,
  });
  const cap = spec.budgetCap;
  if (cap && dataset.cap) warn(warnings.capExists(dataset.name, dataset.cap.epsilon, dataset.cap.delta));
  else if (cap)
    await ledger.setCap(dataset.fingerprint, cap.epsilon, cap.delta ?? validated.delta, spec.unit?.column);
  if (signal?.aborted) throw new CancelledError(CANCELLED_BEFORE_RESERVE);
  const request =
    dataset.fingerprint === facts.fingerprint
      ? validated.request
      : { ...validated.request, fingerprint: dataset.fingerprint, fileFingerprint: facts.fingerprint };
  return { ...validated, stage: 'reserved', release: await ledger.reserve(request) };
}

// ---- 4. run ----------------------------------------------------------------------------------

export interface RunHooks {
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Called once the engine process exists (the app shows its pid; tests kill it). */
  readonly onEngineStarted?: (pid: number | undefined) => void;
  readonly spawner?: EngineSpawner;
  /** 'streaming': count a raw source with the streaming reader even where DuckDB could (tests). */
  readonly counting?: 'streaming';
}

/** The engine on the validated data; any failure marks the release aborted (ReleaseAbortedError). */
export async function run(ledger: LedgerPort, reserved: Reserved, hooks: RunHooks = {}): Promise<Finished> {
  const { signal } = hooks;
  const releaseId = reserved.release.id;
  try {
    if (signal?.aborted) throw new CancelledError();
    const { spec } = reserved;
    let loaded: LoadResult | CountedLoad | null = reserved.loaded;
    let counting: Counting | undefined;
    let discovery: DiscoveredSchema | null = null;
    let person: PersonOutcome | null = null;
    let options = reserved.options;
    const header = spec.source.header === undefined ? {} : { header: spec.source.header };
    if (reserved.raw && reserved.unit && reserved.table && isPersonTable(reserved.table) && !hooks.counting) {
      // The person level counted by DuckDB (person-counted.ts): the same bounding, discovery and
      // tables as below, from the table parsed before the reservation; no record held.
      const read = await readPersonLevelSource(
        reserved.table,
        reserved.raw,
        reserved.unit.spec,
        reserved.unit.budget,
        { person: personNoise(spec), discovery: discoveryNoise(spec) },
        (schema) => requiredFeatureSets({ schema, workload: spec.workload, ...evalWorkloadsOf(spec) }),
        { ...header, ...(signal ? { signal } : {}) },
      ).finally(() => disposeValidated(reserved));
      loaded = read.counted;
      discovery = reserved.raw.undeclared.length > 0 ? read.discovery : null;
      counting = { by: 'duckdb' };
      person = read.person;
      options = { ...options, unit: { bound: person.bound, normaliser: person.rows.rows } };
    } else if (reserved.raw && reserved.unit && spec.source.postgres) {
      // The person level counted in the database (database-person.ts): the same bounding,
      // discovery and tables as DuckDB's, no row leaving the database.
      const read = await readPersonLevelDatabase(
        spec.source.postgres,
        reserved.raw,
        reserved.facts.rows,
        reserved.unit.spec,
        reserved.unit.budget,
        { person: personNoise(spec), discovery: discoveryNoise(spec) },
        (schema) => requiredFeatureSets({ schema, workload: spec.workload, ...evalWorkloadsOf(spec) }),
        signal,
      ).finally(() => disposeValidated(reserved));
      loaded = read.counted;
      discovery = reserved.raw.undeclared.length > 0 ? read.discovery : null;
      counting = { by: 'postgresql' };
      person = read.person;
      options = { ...options, unit: { bound: person.bound, normaliser: person.rows.rows } };
    } else if (reserved.raw && reserved.unit) {
      // The person level: at most k records per person (a secure sample), n̂ measured; discovery
      // and the encoder read the bounded records only; the identifier column goes no further.
      // Streamed where DuckDB cannot read the file as the streaming reader does (the reason said).
      await disposeValidated(reserved);
      counting = {
        by: 'streaming',
        why: hooks.counting
          ? 'asked for'
          : (reserved.streamingOnly ?? 'DuckDB could not read the file as the streaming reader does'),
      };
      const bounded = await boundSource(
        spec.source.path,
        reserved.unit.spec,
        reserved.unit.budget,
        personNoise(spec),
        {
          ...header,
          ...readChoice(spec),
          ...(signal ? { signal } : {}),
        },
      );
      try {
        const found = await discoverAndLoad(reserved.raw, bounded.kept, discoveryNoise(spec), {
          unitColumn: bounded.column,
          person: { file: bounded.file, bound: bounded.bound, rows: bounded.rows.rows },
          ...(signal ? { signal } : {}),
        });
        loaded = found.loaded;
        discovery = reserved.raw.undeclared.length > 0 ? found.discovery : null;
      } finally {
        await bounded.dispose();
      }
      person = { column: bounded.column, bound: bounded.bound, chosen: bounded.chosen, rows: bounded.rows };
      options = { ...options, unit: { bound: bounded.bound, normaliser: bounded.rows.rows } };
    } else if (spec.source.postgres) {
      // Counted in the database: discovery's histograms, then exactly the tables the engine reads.
      const found = await discoverAndCountDatabase(
        spec.source.postgres,
        reserved.raw,
        spec.source.schema,
        reserved.facts.rows,
        discoveryNoise(spec),
        (schema) => requiredFeatureSets({ schema, workload: spec.workload, ...evalWorkloadsOf(spec) }),
        signal,
      ).finally(() => disposeValidated(reserved));
      discovery = found.discovery;
      counting = { by: 'postgresql' };
      loaded = {
        kind: 'counted',
        dataset: found.data,
        summary: { hasHeader: true },
        header: found.data.schema.columns.map((c) => c.name),
        histograms: found.histograms,
        trimmed: false,
      };
    } else if (reserved.raw) {
      // DuckDB's two scans where it can read the file as the streaming reader does (counted-run.ts).
      const read = await readRowLevelSource(
        reserved.raw,
        reserved.facts.rows,
        discoveryNoise(spec),
        (schema) => requiredFeatureSets({ schema, workload: spec.workload, ...evalWorkloadsOf(spec) }),
        {
          ...header,
          ...(signal ? { signal } : {}),
          ...(hooks.counting ? { streaming: STREAMING_ASKED } : {}),
          ...(reserved.streamingOnly ? { streaming: reserved.streamingOnly } : {}),
          ...(reserved.table ? { table: reserved.table } : {}),
        },
      ).finally(() => disposeValidated(reserved));
      loaded = 'counted' in read ? read.counted : read.loaded;
      discovery = read.discovery;
      counting = read.counting;
    }
    if (!loaded) throw new Error('internal: no encoded data for the engine');
    const data = loaded;
    // With discovery, query mode's T and K were given before the query count m was known: fitted
    // to the discovered domains here (post-processing of DP outputs) rather than refused after
    // the reservation.
    if (reserved.raw) options = fitQueryRounds(options, data.dataset.schema, spec.workload);
    // Discovery's one-way histograms are the engine's one-way measurements (budget spent once;
    // discovery/one-way.ts). At the person level only numeric columns have one (rows counted,
    // σ ×k), in the engine's units: counts over the public n̂, the engine's own normaliser.
    const paid = discovery
      ? paidOneWaysFor(discovery.paidOneWays, data.dataset.schema, person ? person.rows.rows : data.dataset.n)
      : [];
    const engine = startEngine(
      {
        data: data.dataset,
        workload: spec.workload,
        options,
        noise: spec.noise,
        ...(paid.some((p) => p !== null) ? { paidOneWays: paid } : {}),
        ...evalWorkloadsOf(spec),
      },
      { onProgress: hooks.onProgress, spawner: hooks.spawner },
    );
    hooks.onEngineStarted?.(engine.pid);
    const onAbort = () => engine.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) engine.cancel();
    try {
      const result = await engine.result;
      const { table: _counted, snapshot: _snapshot, ...rest } = reserved;
      return {
        ...rest,
        stage: 'finished',
        options,
        loaded: data,
        discovery,
        person,
        result,
        ...(counting ? { counting } : {}),
      };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  } catch (err) {
    const code = abortCode(err, signal?.aborted === true);
    let marked = true;
    try {
      await ledger.abort(releaseId, ledgerAbortReason(code, err));
    } catch {
      marked = false;
    }
    throw new ReleaseAbortedError(code, err, releaseId, marked);
  } finally {
    await disposeValidated(reserved);
  }
}

/** The spec's evaluation workloads, as the engine and requiredFeatureSets take them. */
function evalWorkloadsOf(spec: ReleaseSpec) {
  return {
    ...(spec.evalWorkload ? { evalWorkload: spec.evalWorkload } : {}),
    ...(spec.evalWorkloads ? { evalWorkloads: spec.evalWorkloads } : {}),
  };
}

/**
 * Query mode's T·K at most the workload's m on the discovered domains: T ≤ m, K = ⌊m/T⌋ when the
 * given K does not fit. The ledger keeps the T and K it reserved with; the report states the run's.
 */
export function fitQueryRounds(options: RapOptions, schema: Schema, workload: Workload): RapOptions {
  if (options.mode !== 'query' || options.rounds === undefined || options.perRound === undefined)
    return options;
  const sizes = layoutOf(schema).sizes;
  const m = workload.thresholds.reduce((sum, t) => sum + queryCount(t, sizes), 0);
  if (options.rounds * options.perRound <= m) return options;
  const rounds = Math.max(1, Math.min(options.rounds, m));
  return { ...options, rounds, perRound: Math.max(1, Math.floor(m / rounds)) };
}

// ---- 5. write & commit: publish.ts (the one stage 5, CLI and app) ----------------------------

// ---- the CLI: 1–5 straight through -----------------------------------------------------------

export interface ReleaseHooks extends RunHooks {
  readonly onWarning?: Warn;
  readonly onReserved?: (release: ReleaseRecord) => void;
}

/** What REPORT.json holds: the engine's report plus the release's identity. */
export type ReleaseReport = RapResult['report'] & {
  readonly format: 'rap-studio-report';
  /** The engine's own ε, δ, ρ: synthesis's part of the chosen ε (all of it without discovery). */
  readonly synthesis: { readonly epsilon: number; readonly delta: number; readonly rho: number };
  /** The plan that ran (as the manifest states it). */
  readonly plan: RanPlan;
  readonly releaseId: string;
  readonly ledger: string;
  /** No fingerprint: nothing written beside a release holds a hash of the private file. */
  readonly dataset: { readonly name: string; readonly rows: number; readonly engineRows: number };
  readonly output: { readonly path: string; readonly sha256: string; readonly rows: number };
  readonly schemaOrigin: string;
  /** The unit of privacy in words ("one row", or the person level's statement). */
  readonly unit: string;
  readonly nonPrivateDiagnostics: string;
  /**
   * Which reader counted a raw source (DuckDB, or the streaming reader and why): for the curator
   * only, never in the public manifest (a fallback can depend on the file's rows, e.g. one of
   * another width).
   */
  readonly counting?: Counting;
};

export interface ReleaseOutcome {
  readonly release: ReleaseRecord;
  readonly report: ReleaseReport;
  /** The finished run (for the HTML reports, src/core/release/report/). */
  readonly finished: Finished;
  /** The schema the release was encoded and decoded with (declared, or discovered privately). */
  readonly schema: Schema;
  readonly csv: WrittenCsv;
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly manifestPath: string;
}

/** Where the CLI's release goes (checked before anything is reserved: targets.ts). */
export interface ReleasePaths {
  readonly outPath: string;
  readonly reportPath: string;
  /** Replace existing files (never the input or a committed release's CSV): the CLI's --force. */
  readonly replace?: boolean;
  /** Files the caller writes after the commit (the CLI's HTML reports), checked up front too. */
  readonly later?: readonly OutputFile[];
}

/**
 * The CLI's release (and the benchmarks'); the caller opens (and closes) the ledger. The output
 * paths are checked first, so a release that could not be written costs nothing; temp files a
 * crashed earlier write left behind are removed first.
 */
export async function releaseStraightThrough(
  ledger: Ledger,
  spec: ReleaseSpec,
  paths: ReleasePaths,
  hooks: ReleaseHooks = {},
): Promise<ReleaseOutcome> {
  const warn = hooks.onWarning ?? (() => {});
  const pending = new PendingWrites(pendingDirFor(ledger.file));
  await pending.sweep();
  const outputs = await checkOutputs({
    input: spec.source.path,
    csv: paths.outPath,
    report: paths.reportPath,
    replace: paths.replace === true,
    ...(paths.later && { later: paths.later }),
    isCommittedOutput: (file) =>
      ledger
        .releases()
        .some(
          (r) =>
            r.status === 'committed' &&
            (r.outputSha256 === file.sha256 ||
              (r.outputPath !== undefined && path.resolve(r.outputPath) === file.path)),
        ),
  });
  // A database source's identity in the ledger is keyed with the ledger's key (release/database.ts).
  const keyed = spec.source.postgres ? { ledgerKey: ledger.sourceKey() } : {};
  const asked = hooks.counting ? { counting: hooks.counting } : {};
  const validated = await validate(await prepare(spec, warn, { ...keyed, ...asked }), warn, hooks.signal);
  let finished: Finished;
  try {
    checkOutput(
      outputs.csv.path,
      validated.options.rows * validated.options.oversample,
      releasedColumnNames(validated),
    );
    const reserved = await reserve(ledger, validated, warn, hooks.signal);
    hooks.onReserved?.(reserved.release);
    finished = await run(ledger, reserved, hooks).catch((err: unknown) => {
      throw err instanceof ReleaseAbortedError ? err.forCli() : err;
    });
  } finally {
    // The DuckDB table of the checks, where the run did not get to remove it.
    await disposeValidated(validated);
  }
  let report: ReleaseReport | undefined;
  const published = await publish(
    ledger,
    {
      releaseId: finished.release.id,
      voice: 'cli',
      fillCsv: (temp) =>
        writeSyntheticCsv(temp, finished.loaded, finished.result, finished.spec.noise, { fresh: true }),
      manifestFields: manifestFields(finished, finished.name),
      report: (csv) => (report = cliReport(ledger, finished, csv)),
    },
    outputs,
    pending,
  );
  return { ...published, report: report!, schema: finished.loaded.dataset.schema, finished };
}

function cliReport(ledger: Ledger, f: Finished, csv: WrittenCsv): ReleaseReport {
  return {
    format: 'rap-studio-report',
    releaseId: f.release.id,
    ledger: path.resolve(ledger.file),
    dataset: { name: f.name, rows: f.facts.rows, engineRows: f.loaded.dataset.n },
    output: { path: csv.path, sha256: csv.sha256, rows: csv.rows },
    ...f.result.report,
    // One ε: the one the curator chose (the engine's ε, with discovery, is synthesis's part of its ρ).
    epsilon: f.request.epsilon,
    delta: f.request.delta,
    rho: f.request.rho,
    synthesis: { epsilon: f.result.report.epsilon, delta: f.result.report.delta, rho: f.result.report.rho },
    plan: planThatRan(f),
    seedMode: f.spec.noise.mode,
    schemaOrigin: describeSchemaOrigin(f.loaded.dataset.schema),
    unit: f.person ? describeUnit(f.person) : 'one row',
    nonPrivateDiagnostics: NON_PRIVATE_NOTE,
    ...(f.counting ? { counting: f.counting } : {}),
  };
}
