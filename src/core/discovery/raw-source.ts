/**
 * A raw CSV as a release's source: what is fixed before the ledger reserves (the public header,
 * the declared columns, the budget split, a provisional schema to parse the workload and plan
 * T and K, a readability check that keeps nothing), and what happens after (private discovery,
 * then encoding against the discovered schema with every record kept).
 */
import type { ColumnChoice } from '../data/column-choice.ts';
import { checkDeclaredFit, type FitCheck } from '../data/fit.ts';
import { temporalPatternProblem } from '../data/formats.ts';
import type { Hierarchy } from '../data/hierarchy.ts';
import { type LoadResult, loadCsv } from '../data/load.ts';
import { type RejectedRows, Rejections } from '../data/rejections.ts';
import { type Column, SCHEMA_VERSION, type Schema } from '../data/schema.ts';
import { isKeptAsMissing, readTable, readTableHeader } from '../data/table.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import { InputError } from '../errors.ts';
import { makeGaussianCounts } from '../privacy/counts.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { discoveryPerColumn, discoveryShares, type ReleaseBudget, splitBudget } from './budget-split.ts';
import { type DiscoveredSchema, discoverSchema, LEVEL1_SHARE } from './discover.ts';
import type { ColumnFormat } from './formats.ts';
import {
  countsFromHistograms,
  countsFromStream,
  type HistogramCounter,
  type HistogramStream,
  type TypeCounts,
} from './histograms.ts';
import { LEVEL1_SENSITIVITY } from './numeric.ts';
import { DiscoveryProfile, MAX_DISTINCT_TEXTS } from './profile.ts';

export interface RawSourcePlan {
  readonly path: string;
  /** The table's column names (public). */
  readonly header: readonly string[];
  readonly declared: readonly Column[];
  /** Columns discovery will discover privately. */
  readonly undeclared: readonly string[];
  readonly share: number;
  readonly budget: ReleaseBudget;
  /**
   * Declared columns as declared, undeclared ones as two-category placeholders: enough to parse a
   * workload by column names and to fix table mode's T and K (they depend on the number of
   * thresholds, ρ and n only). Never used to encode data.
   */
  readonly provisional: Schema;
  /** Undeclared columns whose format the curator stated (discover.ts's `formats`). */
  readonly formats?: ReadonlyMap<string, ColumnFormat>;
  /**
   * The curator's column choice: every read of `path` drops the columns it leaves out as it
   * parses (they are not in `header`, never profiled, counted or encoded). Absent: every column.
   */
  readonly choice?: ColumnChoice;
  /** Undeclared columns to discover as hierarchical codes (discover.ts). */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
}

export interface RawSourceOptions {
  readonly header?: boolean;
  /**
   * The person level: the column that identifies persons. It is no column of the release: never
   * discovered, never in `header`, `undeclared` or the provisional schema.
   */
  readonly unitColumn?: string;
  /** Undeclared columns whose temporal or number format the curator states (public). */
  readonly formats?: Readonly<Record<string, ColumnFormat>>;
  /** The columns to read (column-choice.ts); the unit column must be among them. */
  readonly choice?: ColumnChoice;
  /** Undeclared columns marked hierarchical, by name (checked against the header here). */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
  /**
   * The table's columns (the choice applied), when the source is no file to read a header from
   * (a database table's catalogue: release/database.ts).
   */
  readonly knownHeader?: readonly string[];
}

/** Public facts only: reads the header row (and what deciding the header needs). */
export async function planRawSource(
  path: string,
  declared: readonly Column[],
  budget: { epsilon: number; delta: number; share: number },
  opts: RawSourceOptions = {},
): Promise<RawSourcePlan> {
  const { header } = opts.knownHeader
    ? { header: opts.knownHeader }
    : await readTableHeader(path, {
        ...(opts.header === undefined ? {} : { header: opts.header }),
        ...(opts.choice ? { choice: opts.choice } : {}),
      });
  const byName = new Map(declared.map((c) => [c.name, c]));
  for (const c of declared) {
    if (!header.includes(c.name)) {
      throw new InputError(
        `${path}: the declared column "${c.name}" is not in the table (it has: ${header.join(', ')}).`,
        {
          file: path,
          column: c.name,
        },
      );
    }
  }
  const columns = header.filter((h) => h !== opts.unitColumn);
  const undeclared = columns.filter((h) => !byName.has(h));
  for (const name of Object.keys(opts.hierarchies ?? {})) {
    if (!undeclared.includes(name)) {
      throw new InputError(
        `${path}: the hierarchical column "${name}" is not ${columns.includes(name) ? 'a column to discover' : 'in the table'} ` +
          `(it has: ${header.join(', ')}); name a column of the table, or declare its hierarchy with its categories.`,
        { file: path, column: name },
      );
    }
  }
  const formats = new Map(Object.entries(opts.formats ?? {}));
  for (const [name, f] of formats) {
    if (!undeclared.includes(name)) {
      const why = byName.has(name)
        ? 'it is declared: give the format in its schema column'
        : `the table has: ${columns.join(', ')}`;
      throw new InputError(
        `${path}: a format is stated for "${name}", which is not a column to discover (${why}).`,
        {
          file: path,
          column: name,
        },
      );
    }
    const problem = f.temporal ? temporalPatternProblem(f.temporal) : undefined;
    if (problem) throw new InputError(`${path}: column "${name}": ${problem}.`, { file: path, column: name });
  }
  return {
    ...(formats.size > 0 ? { formats } : {}),
    path,
    header: columns,
    declared,
    undeclared,
    share: budget.share,
    budget: splitBudget(budget.epsilon, budget.delta, budget.share, undeclared.length > 0),
    provisional: provisionalSchema(columns, declared),
    ...(opts.choice ? { choice: opts.choice } : {}),
    ...(opts.hierarchies && Object.keys(opts.hierarchies).length > 0
      ? { hierarchies: opts.hierarchies }
      : {}),
  };
}

/** The header's columns: declared ones as declared, the others two-category placeholders. */
export function provisionalSchema(header: readonly string[], declared: readonly Column[]): Schema {
  const byName = new Map(declared.map((c) => [c.name, c]));
  const columns: Column[] = header.map(
    (h) => byName.get(h) ?? { name: h, kind: 'categorical', categories: ['a', 'b'], missing: false },
  );
  return { version: SCHEMA_VERSION, origin: 'discovered', columns };
}

/**
 * Reads the whole file once for the curator, BEFORE any reservation, keeping nothing but counts:
 * a file that cannot be read (not UTF-8, an unclosed quote) fails here, and every record is
 * checked against the declared columns, which are used exactly (the release refuses a misfit).
 */
export async function checkRawSource(plan: RawSourcePlan, opts: RawSourceOptions = {}): Promise<FitCheck> {
  return checkDeclaredFit(plan.path, plan.declared, {
    ...(opts.header === undefined ? {} : { header: opts.header }),
    ...(plan.choice ? { choice: plan.choice } : {}),
  });
}

/**
 * A column discovery would have to treat as categorical needs its distinct values counted, and at
 * most MAX_DISTINCT_TEXTS are (memory). A column past that limit would stop discovery after the
 * reservation, so it is refused here, BEFORE reserving, for the curator only (the refusal
 * publishes nothing): unless every value is a number or missing and there are enough numbers
 * that level 1 calls it numeric but with negligible probability. Level 1 calls a column numeric
 * when its noisy count of numbers exceeds 4σ₁ and its noisy count of texts; with no texts and at
 * least NUMERIC_SURE_SIGMAS·σ₁ numbers, failing needs a Gaussian of scale ≤ √7·σ₁ (numbers − texts
 * carries the three missing forms' noise and twice the texts') to pass 36σ₁ (z > 13.6: probability
 * below 1e-41).
 */
export const NUMERIC_SURE_SIGMAS = 40;

export async function checkDiscoverable(
  plan: RawSourcePlan,
  opts: RawSourceOptions & {
    readonly signal?: AbortSignal;
    /**
     * The columns' histograms from a counter that reads the file as the streaming reader does
     * (release/counted-source.ts; a file with no row of another width): one scan instead of the
     * streaming pass. A counter that fails leaves the streaming pass to decide.
     */
    readonly counter?: HistogramCounter;
    /**
     * The same histograms streamed (a loaded table: counting/source-table.ts), preferred to
     * `counter`: each distinct text is counted as it comes, no column's histogram is held whole
     * (a continuous column has millions). A stream that fails leaves the streaming pass to decide.
     */
    readonly stream?: HistogramStream;
    readonly trim?: boolean;
  } = {},
): Promise<{ readonly keptAsMissing: readonly RejectedRows[] }> {
  // Nothing to discover (the person level with every other column declared): nothing to check,
  // and no discovery budget to size σ₁ with.
  if (plan.undeclared.length === 0) return { keptAsMissing: [] };
  if (opts.stream) {
    const counts = await countsFromStream(
      opts.stream,
      plan.undeclared,
      DEFAULT_MISSING_MARKERS,
      opts.trim ?? true,
      opts.signal,
    ).catch(() => {
      opts.signal?.throwIfAborted();
      return undefined;
    });
    if (counts) {
      refuseUndiscoverable(plan, counts);
      return { keptAsMissing: [] };
    }
  } else if (opts.counter) {
    const histograms = await opts.counter(plan.undeclared).catch(() => {
      opts.signal?.throwIfAborted();
      return undefined;
    });
    if (histograms) {
      refuseUndiscoverable(
        plan,
        countsFromHistograms(histograms, plan.undeclared, DEFAULT_MISSING_MARKERS, opts.trim ?? true),
      );
      return { keptAsMissing: [] };
    }
  }
  const rejections = new Rejections();
  const profile = new DiscoveryProfile(plan.undeclared, DEFAULT_MISSING_MARKERS);
  await readTable(
    plan.path,
    { start: (shape) => profile.start(plan.path, shape.header), row: (values) => profile.row(values) },
    rejections,
    {
      raggedAsMissing: true,
      ...(opts.header === undefined ? {} : { header: opts.header }),
      ...(plan.choice ? { choice: plan.choice } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  refuseUndiscoverable(plan, profile.columns);
  return { keptAsMissing: rejections.list().filter((r) => isKeptAsMissing(r.reason)) };
}

function refuseUndiscoverable(plan: RawSourcePlan, columns: readonly TypeCounts[]): void {
  // A plain column's ρ (one share; a hierarchical column is not type-tested: it skips level 1).
  const { rho } = discoveryPerColumn(plan.budget, discoveryShares(plan.undeclared, plan.hierarchies).total);
  const sigma1 = makeGaussianCounts(LEVEL1_SHARE * rho, LEVEL1_SENSITIVITY).sigma;
  const limit = MAX_DISTINCT_TEXTS.toLocaleString('en-US');
  for (const counts of columns) {
    if (counts.values) continue;
    const where = `${plan.path}, column "${counts.name}"`;
    const untouched = 'Nothing was reserved: the budget is untouched.';
    if (counts.texts > 0 || counts.padded > 0) {
      throw new InputError(
        `${where}: more than ${limit} distinct values, not all numbers; discovery finds at most ${limit} ` +
          `categories in a column. ${untouched} Drop the column (an identifier?), or declare its categories ` +
          'in a schema file.',
        { file: plan.path, column: counts.name },
      );
    }
    if (counts.numbers < NUMERIC_SURE_SIGMAS * sigma1) {
      throw new InputError(
        `${where}: more than ${limit} distinct numbers, and at this ε too few of them for discovery to be sure ` +
          `the column is numeric (it would then need its ${limit}+ values as categories). ${untouched} ` +
          'Declare its bounds in a schema file, or release at a larger ε.',
        { file: plan.path, column: counts.name },
      );
    }
  }
}

export interface DiscoveredSource {
  readonly discovery: DiscoveredSchema;
  readonly loaded: LoadResult;
}

/**
 * AFTER the reservation: private discovery of the undeclared columns, then the data encoded
 * against the discovered schema with every record kept: in a DISCOVERED column a value outside
 * the domain becomes "(other)", is clamped, or becomes missing; a DECLARED column is used exactly
 * (checkRawSource refused any record it cannot hold before the reservation). So the engine's n
 * is the record count `n`.
 */
export async function discoverAndLoad(
  plan: RawSourcePlan,
  n: number,
  noise: NoiseSource,
  opts: RawSourceOptions & {
    readonly signal?: AbortSignal;
    /**
     * The person level: discovery and encoding read the bounded file (release/person.ts: at most
     * k records per person, grouped by person, with a header row) instead of plan.path, whose
     * records are `n`; counts' sensitivities are ×k and n̂ stands for n (discover.ts).
     */
    readonly person?: { readonly file: string; readonly bound: number; readonly rows: number };
  } = {},
): Promise<DiscoveredSource> {
  const header = opts.person ? { header: true } : opts.header === undefined ? {} : { header: opts.header };
  const file = opts.person ? opts.person.file : plan.path;
  // The bounded file (person level) holds the kept columns only; the curator's file is read through the choice.
  const choice = !opts.person && plan.choice ? { choice: plan.choice } : {};
  const unit =
    opts.person && opts.unitColumn !== undefined
      ? { unit: { column: opts.unitColumn, bound: opts.person.bound, rows: opts.person.rows } }
      : {};
  // With every column declared nothing is measured (no noise is drawn, ρ and δ spent are 0);
  // discoverSchema still wants a valid budget to split over zero columns.
  const discovery = await discoverSchema(file, {
    rho: plan.budget.rhoDiscovery > 0 ? plan.budget.rhoDiscovery : 1,
    delta: plan.budget.deltaDiscovery > 0 ? plan.budget.deltaDiscovery : 0.5,
    noise,
    declared: plan.declared,
    ...(plan.hierarchies ? { hierarchies: plan.hierarchies } : {}),
    ...(plan.formats ? { formats: plan.formats } : {}),
    ...unit,
    ...header,
    ...choice,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return {
    discovery,
    loaded: await loadDiscovered(file, n, discovery, {
      ...header,
      ...choice,
      ...(opts.signal ? { signal: opts.signal } : {}),
    }),
  };
}

/**
 * The data encoded against a discovered schema with every record kept (discoverAndLoad's second
 * half; also the streaming fallback once discovery ran on SQL-counted histograms).
 */
export async function loadDiscovered(
  file: string,
  n: number,
  discovery: DiscoveredSchema,
  opts: Pick<RawSourceOptions, 'header' | 'choice'> & { readonly signal?: AbortSignal } = {},
): Promise<LoadResult> {
  const loaded = await loadCsv(file, {
    schema: discovery.schema,
    outOfDomain: (c) => (c.provenance?.source === 'declared' ? 'reject' : 'other'),
    raggedAsMissing: true,
    ...(opts.header === undefined ? {} : { header: opts.header }),
    ...(opts.choice ? { choice: opts.choice } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (loaded.dataset.n !== n || discovery.records !== n) {
    throw new Error(
      `${file}: the file has ${n} records, but ${loaded.dataset.n} were encoded (${discovery.records} profiled); ` +
        'did it change during the run?',
    );
  }
  return loaded;
}
