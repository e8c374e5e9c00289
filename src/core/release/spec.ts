/**
 * The one place where what a curator typed becomes a release: the CLI's flags and the app's
 * Privacy-step fields arrive here as the same text settings, are checked with one set of rules
 * and messages, and leave as a ReleaseSpec (release.ts). A run option is added here once (its
 * text field, its parse, its place in EngineOverrides); the CLI flag and the app field only
 * pass text in.
 *
 * Every message names the setting with its one label (SETTING_LABELS, e.g. "ε", "K (per
 * round)"); the CLI prefixes its flag ("--per-round: …"), the app shows it under the field.
 */

import { type ColumnChoice, keepsColumn, parseColumnList } from '../data/column-choice.ts';
import { type NumberFormat, type TemporalKind, toStrftime } from '../data/formats.ts';
import { type Hierarchy, parseHierarchy } from '../data/hierarchy.ts';
import type { Schema } from '../data/schema.ts';
import type { ColumnFormat } from '../discovery/formats.ts';
import { declaredColumns } from '../discovery/not-dp.ts';
import { DEFAULT_CERTIFY_SHARE } from '../engine/certify.ts';
import { DEFAULT_MODE } from '../engine/defaults.ts';
import type { NoiseSpec } from '../engine/process/protocol.ts';
import { InputError } from '../errors.ts';
import {
  BACKENDS,
  ENGINE_MODES,
  ENGINE_SELECTION,
  IMPORTANCE,
  type ImportanceName,
  RELAXATIONS,
  SELECTIONS,
} from '../input/choices.ts';
import {
  integerAtLeast,
  parseChoice,
  parseCount,
  parseDelta,
  parseEpsilon,
  parseNonNegative,
  parseSeed,
} from '../input/numbers.ts';
import { weightByHistory } from '../workload/importance.ts';
import type { Workload } from '../workload/types.ts';
import type { DataSource, EngineOverrides, ReleaseSpec } from './release.ts';

/** The run settings as typed: text, absent or blank for "the default". */
export interface RunSettingsText {
  readonly epsilon?: string;
  readonly delta?: string;
  readonly rows?: string;
  readonly rounds?: string;
  readonly perRound?: string;
  readonly oversample?: string;
  readonly mode?: string;
  readonly backend?: string;
  readonly threads?: string;
  readonly maxSteps?: string;
  readonly tolerance?: string;
  readonly learningRate?: string;
  readonly selection?: string;
  readonly relaxation?: string;
  readonly importance?: string;
  /** The insecure seed, given knowingly (the CLI's --seed with --insecure-seed; the app's field). */
  readonly seed?: string;
  /** The relative-error pass (PREM) at this margin ζ; blank: no pass. */
  readonly certify?: string;
  /** Its share of the engine's ρ (default DEFAULT_CERTIFY_SHARE), its β and its c. */
  readonly certifyShare?: string;
  readonly certifyBeta?: string;
  readonly certifyViolations?: string;
  /**
   * The columns to release, comma-separated (the CLI's --columns); or the columns to leave out
   * (--exclude). One or the other: a column left out is never read (column-choice.ts).
   */
  readonly columns?: string | readonly string[];
  readonly exclude?: string | readonly string[];
}

export type SettingName = keyof RunSettingsText;

/** How every message names each setting (CLI and app alike). */
export const SETTING_LABELS: Readonly<Record<SettingName, string>> = {
  epsilon: 'ε',
  delta: 'δ',
  rows: "n' (synthetic rows)",
  rounds: 'T (rounds)',
  perRound: 'K (per round)',
  oversample: 'oversampling',
  mode: 'mode',
  backend: 'backend',
  threads: 'threads',
  maxSteps: 'max steps',
  tolerance: 'tolerance',
  learningRate: 'learning rate',
  selection: 'selection',
  relaxation: 'relaxation',
  importance: 'importance',
  seed: 'the insecure seed',
  certify: 'ζ (the relative margin)',
  certifyShare: "the relative-error pass's share",
  certifyBeta: "the certificate's β",
  certifyViolations: "the pass's violations c",
  columns: 'the columns to release',
  exclude: 'the columns to leave out',
};

/** Settings that are not plain text under the same name in both front ends. */
// columns / exclude: a list in the app (one role per column on the Schema step), text on the CLI.
const SPECIAL_SETTINGS = [
  'epsilon',
  'mode',
  'selection',
  'relaxation',
  'importance',
  'seed',
  'columns',
  'exclude',
] as const;

/**
 * The settings typed as free text under the same name by the CLI (its flag) and the app (its
 * field), passed through unchanged: every setting but the special ones above. The app's API type,
 * its argument check and its settings text follow this list, so a new run option is added here
 * (RunSettingsText, SETTING_LABELS, parseRunSettings), at the CLI's flag, at the app's field and
 * in the engine, and nowhere else.
 */
export type TextSettingName = Exclude<SettingName, (typeof SPECIAL_SETTINGS)[number]>;
export const TEXT_SETTINGS = (Object.keys(SETTING_LABELS) as SettingName[]).filter(
  (name): name is TextSettingName => !(SPECIAL_SETTINGS as readonly string[]).includes(name),
);

/**
 * Upper bounds checked before anything is reserved. Threads: each kernel thread holds a copy of
 * its shard's scratch, so memory grows with the count (10⁵ threads grew a run to 6.6 GB before
 * it failed, after the reservation); beyond the cores more threads only wait. Steps: Adam steps
 * per round; the defaults are 150 (table) and 500 (query) and the early stop ends most rounds
 * sooner, so 10⁶ is far past any useful value (the tests' never-ending run uses it) while a
 * typo (10¹², 1e300) is refused rather than reserved.
 */
export const MAX_THREADS = 256;
export const MAX_STEPS = 1_000_000;

export interface FieldProblem {
  readonly field: SettingName;
  readonly message: string;
}

/** The settings, parsed: what the release spec needs of them. */
export interface RunSettings {
  readonly epsilon: number;
  /** Undefined: 1/n², fixed when n is counted. */
  readonly delta: number | undefined;
  readonly overrides: EngineOverrides;
  readonly noise: NoiseSpec;
  readonly importance: ImportanceName;
  /** The columns to release or leave out; absent: every column. */
  readonly columns?: ColumnChoice;
}

const blank = (s: string | undefined): s is undefined => s === undefined || s.trim() === '';

/** Each setting checked on its own, so a screen can show every problem at once. */
export function parseRunSettings(text: RunSettingsText): {
  readonly settings?: RunSettings;
  readonly problems: readonly FieldProblem[];
} {
  const problems: FieldProblem[] = [];
  const field = <T>(name: SettingName, fn: (label: string, value: string) => T): T | undefined => {
    const value = text[name];
    if (typeof value !== 'string' || blank(value)) return undefined;
    try {
      return fn(SETTING_LABELS[name], value);
    } catch (err) {
      problems.push({ field: name, message: (err as Error).message });
      return undefined;
    }
  };
  const epsilon = field('epsilon', parseEpsilon);
  if (blank(text.epsilon)) {
    problems.push({
      field: 'epsilon',
      message: 'Enter ε (a number > 0): the privacy budget this run spends',
    });
  }
  const delta = field('delta', parseDelta);
  const rows = field('rows', parseCount);
  const rounds = field('rounds', parseCount);
  const perRound = field('perRound', parseCount);
  const oversample = field('oversample', parseCount);
  const mode = field('mode', (l, v) => parseChoice(l, v, ENGINE_MODES));
  const backend = field('backend', (l, v) => (v === 'auto' ? undefined : parseChoice(l, v, BACKENDS)));
  const threads = field('threads', (l, v) => atMost(l, v, MAX_THREADS, 'more threads than cores only wait'));
  const maxSteps = field('maxSteps', (l, v) =>
    atMost(l, v, MAX_STEPS, 'the early stop ends most rounds sooner'),
  );
  const tolerance = field('tolerance', parseNonNegative);
  const learningRate = field('learningRate', (l, v) => {
    const x = parseNonNegative(l, v);
    if (x === 0) throw new InputError(`${l} must be a finite number > 0, got "${v}"`);
    return x;
  });
  const selection = field('selection', (l, v) => ENGINE_SELECTION[parseChoice(l, v, SELECTIONS)]);
  const relaxation = field('relaxation', (l, v) => parseChoice(l, v, RELAXATIONS));
  const importance = field('importance', (l, v) => parseChoice(l, v, IMPORTANCE)) ?? 'none';
  const seed = field('seed', parseSeed);
  // The relative-error pass: ζ turns it on; its share, β and c need it.
  const zeta = field('certify', unitInterval);
  const certifyShare = field('certifyShare', unitInterval);
  const certifyBeta = field('certifyBeta', unitInterval);
  const certifyViolations = field('certifyViolations', parseCount);
  // The column lists: text (the CLI) or a list of names (the app); an empty list is no choice.
  const list = (name: 'columns' | 'exclude'): string[] | undefined => {
    const value = text[name];
    if (value === undefined || (typeof value === 'string' ? blank(value) : value.length === 0))
      return undefined;
    try {
      return parseColumnList(SETTING_LABELS[name], value);
    } catch (err) {
      problems.push({ field: name, message: (err as Error).message });
      return undefined;
    }
  };
  const only = list('columns');
  const exclude = list('exclude');
  if (only !== undefined && exclude !== undefined) {
    problems.push({
      field: 'exclude',
      message: `give ${SETTING_LABELS.columns} or ${SETTING_LABELS.exclude}, not both`,
    });
  }
  const columns: ColumnChoice | undefined =
    only !== undefined ? { only } : exclude !== undefined ? { exclude } : undefined;
  for (const name of ['certifyShare', 'certifyBeta', 'certifyViolations'] as const) {
    if (blank(text.certify) && !blank(text[name]))
      problems.push({
        field: name,
        message: `${SETTING_LABELS[name]} goes with ζ: give ζ too, or leave it out`,
      });
  }
  // Query mode's selection rule has no meaning in table mode: refused, never dropped.
  if (selection !== undefined && (mode ?? DEFAULT_MODE) !== 'query') {
    problems.push({
      field: 'selection',
      message: `selection ${text.selection} chooses how query mode selects queries: choose mode query (table mode, the default, selects whole tables), or leave selection out`,
    });
  }
  if (problems.length > 0 || epsilon === undefined) return { problems };
  const overrides: EngineOverrides = {
    ...(rows !== undefined && { rows }),
    ...(rounds !== undefined && { rounds }),
    ...(perRound !== undefined && { perRound }),
    ...(oversample !== undefined && { oversample }),
    ...(mode !== undefined && { mode }),
    ...(backend !== undefined && { backend }),
    ...(threads !== undefined && { threads }),
    ...(maxSteps !== undefined && { maxSteps }),
    ...(tolerance !== undefined && { tolerance }),
    ...(learningRate !== undefined && { learningRate }),
    ...(selection !== undefined && { selection }),
    ...(relaxation !== undefined && { relaxation }),
    ...(zeta !== undefined && {
      certify: {
        zeta,
        share: certifyShare ?? DEFAULT_CERTIFY_SHARE,
        ...(certifyBeta !== undefined && { beta: certifyBeta }),
        ...(certifyViolations !== undefined && { maxViolations: certifyViolations }),
      },
    }),
  };
  const noise: NoiseSpec = seed === undefined ? { mode: 'secure' } : { mode: 'insecure-seed', seed };
  return {
    settings: { epsilon, delta, overrides, noise, importance, ...(columns && { columns }) },
    problems,
  };
}

/**
 * The column choice alone, by the same rules and messages (the CLI's `workload random|default
 * --data`, which draw a workload over the columns a release would keep); the first problem throws.
 */
export function parseColumnChoice(
  text: Pick<RunSettingsText, 'columns' | 'exclude'>,
): ColumnChoice | undefined {
  const { settings, problems } = parseRunSettings({
    columns: text.columns,
    exclude: text.exclude,
    epsilon: '1',
  });
  if (problems.length > 0) throw new InputError(problems[0].message, { field: problems[0].field });
  return settings?.columns;
}

function unitInterval(label: string, text: string): number {
  const x = Number(text);
  if (text.trim() === '' || !(x > 0 && x < 1))
    throw new InputError(`${label} must be a number with 0 < x < 1, got "${text}"`);
  return x;
}

function atMost(label: string, text: string, max: number, why: string): number {
  const x = integerAtLeast(text, 1);
  if (x === undefined || x > max) {
    throw new InputError(`${label} must be an integer from 1 to ${max} (${why}), got "${text}"`);
  }
  return x;
}

/**
 * What a release does with the table's columns the schema does not declare: discover them
 * privately after the reservation ('discover', the default; with none undeclared the release
 * is the declared one), or use the schema as it is ('as-read': a benchmark domain, a schema the
 * curator declared whole, or — only with the override — columns read off the data, not DP).
 */
export type UndeclaredColumns = 'discover' | 'as-read';

export function dataSource(p: {
  readonly path: string;
  readonly schema: Schema;
  readonly header?: boolean;
  readonly undeclared: UndeclaredColumns;
  /** Discovery's share of ρ (default 0.2). */
  readonly share?: number;
  /** Columns marked hierarchical (parseHierarchies), beside those the schema file marks. */
  readonly hierarchies?: Readonly<Record<string, Hierarchy>>;
}): DataSource {
  const header = p.header === undefined ? {} : { header: p.header };
  const marked = { ...p.schema.hierarchies, ...p.hierarchies };
  if (Object.keys(marked).length > 0) return withHierarchies({ ...p, hierarchies: undefined }, marked);
  if (p.undeclared === 'as-read') {
    if (p.share !== undefined) {
      throw new InputError(
        'a discovery share needs columns to discover privately: choose discovery, or leave the share out',
      );
    }
    return { path: p.path, schema: p.schema, ...header };
  }
  // A column read off the data (an inferred schema, or one edited in the app) is discovered
  // privately like the table's other columns; the declared ones are used exactly and are free.
  const schema: Schema = {
    ...p.schema,
    origin: 'declared',
    confirmedFromInferred: undefined,
    columns: declaredColumns(p.schema),
  };
  const declared = new Set(schema.columns.map((c) => c.name));
  // The editor's stated date formats only: a number format on a column read off the data is not stated.
  const formats = statedFormats(
    p.schema.columns.filter((c) => !declared.has(c.name)).map(({ name, temporal }) => ({ name, temporal })),
  );
  return {
    path: p.path,
    schema,
    ...header,
    discover: {
      ...(p.share !== undefined && { share: p.share }),
      ...(Object.keys(formats).length > 0 && { formats }),
    },
  };
}

/**
 * The date or time formats stated on columns to be discovered — in the app's column editor on a
 * column read off the data ("date or time", e.g. `date, MM/DD/YYYY`), or by a Table Schema's
 * date/time field (`format` other than `any`): public, so discovery reads each such column in its
 * format on the calendar grid without the private format test; the domain is still discovered.
 */
export function statedFormats(
  fields: readonly {
    readonly name: string;
    readonly temporal?: { readonly kind: TemporalKind; readonly format?: string };
    /** A Table Schema number field's decimalChar / groupChar / bareNumber (table-schema.ts). */
    readonly numberFormat?: NumberFormat;
  }[],
): Record<string, ColumnFormat> {
  const out: Record<string, ColumnFormat> = {};
  for (const { name, temporal, numberFormat } of fields) {
    if (numberFormat && !temporal) out[name] = { numberFormat };
    if (temporal?.format === undefined) continue;
    out[name] = { temporal: { kind: temporal.kind, format: toStrftime(temporal.format) } };
  }
  return out;
}

/**
 * `--hierarchy col=TEXT` entries (repeatable; TEXT: a preset — icd10, postcode, naics — or prefix
 * lengths, hierarchy.ts) as hierarchies by column name; one message per bad entry, naming it.
 */
export function parseHierarchies(entries: readonly string[]): Record<string, Hierarchy> {
  const out: Record<string, Hierarchy> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const column = eq < 0 ? '' : entry.slice(0, eq).trim();
    if (column === '') {
      throw new InputError(
        `hierarchy "${entry}": write COLUMN=LEVELS, e.g. diagnosis=icd10, zip=postcode or code=1,3,full`,
        { field: 'hierarchy' },
      );
    }
    if (Object.hasOwn(out, column)) {
      throw new InputError(`hierarchy: column "${column}" is marked twice; give it once`, {
        field: 'hierarchy',
      });
    }
    try {
      out[column] = parseHierarchy(entry.slice(eq + 1));
    } catch (err) {
      throw new InputError(`hierarchy of "${column}": ${(err as Error).message}`, {
        field: 'hierarchy',
        column,
      });
    }
  }
  return out;
}

/**
 * A source with hierarchical columns: a declared categorical column takes its hierarchy (its
 * codes are then held by their finest declared key, exact and free); any other column is
 * discovered level by level (release.ts refuses that without discovery or at the person level).
 */
function withHierarchies(
  p: Parameters<typeof dataSource>[0],
  marked: Readonly<Record<string, Hierarchy>>,
): DataSource {
  // Columns to discover are those not declared (a schema read off the data, as the app's is, lists
  // every column; only its declared ones are used as given).
  const given = p.undeclared === 'discover' ? declaredColumns(p.schema) : p.schema.columns;
  const declared = new Map(given.map((c) => [c.name, c]));
  const toDiscover: Record<string, Hierarchy> = {};
  for (const [name, h] of Object.entries(marked)) {
    const c = declared.get(name);
    if (!c) toDiscover[name] = h;
    else if (c.kind !== 'categorical') {
      throw new InputError(
        `hierarchy of "${name}": the schema declares it numeric; a hierarchy needs codes`,
        {
          field: 'hierarchy',
          column: name,
        },
      );
    }
  }
  const columns = p.schema.columns.map((c) =>
    c.kind === 'categorical' && marked[c.name] ? { ...c, hierarchy: marked[c.name] } : c,
  );
  const { hierarchies: _, ...schema } = p.schema;
  const source = dataSource({ ...p, schema: { ...schema, columns } });
  return Object.keys(toDiscover).length > 0 ? { ...source, hierarchies: toDiscover } : source;
}

/**
 * Everything a release needs besides the settings: all public. The dataset's name and the
 * evaluation workloads pass into the ReleaseSpec unchanged, so they are ReleaseSpec's own fields
 * (one declaration, one meaning); the source and workload are taken before the column choice.
 */
export interface SpecInputs
  extends Pick<ReleaseSpec, 'datasetName' | 'datasetChosen' | 'evalWorkload' | 'evalWorkloads'> {
  /** The file and its schema before the column choice (releaseSpec applies settings.columns). */
  readonly source: DataSource;
  /** Over the released columns (workloadOverKept drops those the choice leaves out). */
  readonly workload: Workload;
  /** The historical workload for importance 'history' (default the workload itself). */
  readonly history?: Workload;
  /** The number of columns the workload's features index (for importance 'history'). */
  readonly columns: number;
  readonly budgetCap?: ReleaseSpec['budgetCap'];
  readonly allowNonPrivateDomain?: boolean;
  /** One person, several rows: the identifier column and k (release/person.ts); absent: per row. */
  readonly unit?: ReleaseSpec['unit'];
}

/**
 * The source with the curator's column choice: the choice goes with it (every read applies it)
 * and the schema keeps only the declared columns it releases. Refused: leaving out the person
 * level's unit column (it must be read to bound persons; it is never released anyway), and,
 * without discovery, releasing a column the schema does not declare.
 */
export function withColumnChoice(
  source: DataSource,
  choice: ColumnChoice | undefined,
  unit?: ReleaseSpec['unit'],
): DataSource {
  if (!choice) return source;
  if (unit && choice.exclude?.includes(unit.column)) {
    throw new InputError(
      `${SETTING_LABELS.exclude} name the unit column "${unit.column}": it identifies persons and is read to ` +
        'bound them (it is never released); leave it out of the list.',
      { field: 'exclude', column: unit.column },
    );
  }
  if (source.discover === undefined && choice.only) {
    const declared = new Set(source.schema.columns.map((c) => c.name));
    const undeclared = choice.only.find((n) => !declared.has(n) && n !== unit?.column);
    if (undeclared !== undefined) {
      throw new InputError(
        `${SETTING_LABELS.columns} name "${undeclared}", which the schema does not declare: declare it, ` +
          'or discover the undeclared columns privately (--discover-undeclared; in the app, "discover privately").',
        { field: 'columns', column: undeclared },
      );
    }
  }
  const dropped = Object.keys(source.hierarchies ?? {}).find((n) => !keepsColumn(choice, n));
  if (dropped !== undefined) {
    throw new InputError(
      `the hierarchy marks "${dropped}", which the column choice leaves out: release the column, or leave its hierarchy out`,
      { field: 'hierarchy', column: dropped },
    );
  }
  const columns = source.schema.columns.filter((c) => keepsColumn(choice, c.name));
  return { ...source, schema: { ...source.schema, columns }, columns: choice };
}

/**
 * A workload read against the table's columns (`names`, in order) as one over the columns the
 * choice keeps (`kept`, in the same order): refused, naming the column, when a threshold names a
 * column the choice leaves out — before anything is reserved.
 */
export function workloadOverKept(
  workload: Workload,
  names: readonly string[],
  kept: readonly string[],
  file = 'the workload',
): Workload {
  const index = new Map(kept.map((n, j) => [n, j]));
  return {
    ...workload,
    thresholds: workload.thresholds.map((t, i) => ({
      ...t,
      features: t.features.map((f) => {
        const j = index.get(names[f]);
        if (j === undefined) {
          throw new InputError(
            `${file}, thresholds[${i}]: names the column "${names[f]}", which the column choice leaves out ` +
              '(--columns / --exclude; in the app, "leave out"): remove it from the workload, or release the column.',
            { file, column: names[f], field: 'workload' },
          );
        }
        return j;
      }),
    })),
  };
}

/** The release the settings and inputs describe. */
export function releaseSpec(settings: RunSettings, inputs: SpecInputs): ReleaseSpec {
  const { workload, history } = inputs;
  if (history !== undefined && settings.importance !== 'history') {
    throw new InputError(
      'a historical workload gives the weights of importance "history": choose importance history, or leave it out',
    );
  }
  // The certificate's monitor has sensitivity 1/n with n public: not stated at the person level.
  if (inputs.unit !== undefined && settings.overrides.certify !== undefined) {
    throw new InputError(
      'the accuracy certificate is not available at the person level yet: leave certify out, or release per row',
      { field: 'certify' },
    );
  }
  // Importance from history: public inputs only, weights ≤ 1, no privacy cost (docs/privacy.md).
  const weighted =
    settings.importance === 'history'
      ? weightByHistory(workload, history ?? workload, inputs.columns)
      : workload;
  return {
    source: withColumnChoice(inputs.source, settings.columns, inputs.unit),
    ...(inputs.datasetName !== undefined && { datasetName: inputs.datasetName }),
    ...(inputs.datasetChosen === true && { datasetChosen: true }),
    workload: weighted,
    ...(inputs.evalWorkload !== undefined && { evalWorkload: inputs.evalWorkload }),
    ...(inputs.evalWorkloads !== undefined && { evalWorkloads: inputs.evalWorkloads }),
    epsilon: settings.epsilon,
    ...(settings.delta !== undefined && { delta: settings.delta }),
    overrides: settings.overrides,
    noise: settings.noise,
    ...(inputs.budgetCap !== undefined && { budgetCap: inputs.budgetCap }),
    allowNonPrivateDomain: inputs.allowNonPrivateDomain === true,
    ...(inputs.unit !== undefined && { unit: inputs.unit }),
  };
}
