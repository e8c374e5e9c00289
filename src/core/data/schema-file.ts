/**
 * The schema JSON file: how a curator declares the public domain of the table, and how an
 * inferred schema is exported for review. Versioned; validated with zod plus the semantic rules
 * zod cannot express (unique names, ascending edges, …), all reported at once with their path.
 *
 * {
 *   "format": "rap-studio-schema", "version": 1, "origin": "declared",
 *   "columns": [
 *     { "name": "workclass", "kind": "categorical", "categories": ["Private", "State-gov"], "missing": true },
 *     { "name": "age", "kind": "numeric", "lower": 17, "upper": 90, "bins": 10, "integer": true },
 *     { "name": "hours", "kind": "numeric", "edges": [0, 20, 40, 60, 99], "integer": true }
 *   ]
 * }
 *
 * A numeric column gives either explicit `edges` or `lower`, `upper` and `bins` (equal width,
 * see values.ts); export always writes `edges`. `missing` and `integer` default to false.
 *
 * Dates, times and locale numbers (formats.ts) are numeric columns with a format:
 *     { "name": "admit", "kind": "numeric", "temporal": { "kind": "date", "format": "%m/%d/%Y" },
 *       "lower": "01/01/2022", "upper": "12/31/2024", "bins": 36 }
 *     { "name": "charge", "kind": "numeric", "numberFormat": { "decimal": ".", "group": ",", "prefix": "$" },
 *       "lower": 0, "upper": 100000, "bins": 20 }
 * A temporal column's `lower` and `upper` may be written in its format; its edges are in the
 * format's internal units (days since 1970-01-01, seconds of the day, seconds since the epoch),
 * and it is always integer.
 *
 * A Frictionless Table Schema (`{ "fields": [...] }`) or Data Package (`{ "resources": [...] }`)
 * is read too, by table-schema.ts: told apart by its `fields` / `resources` (ours has `columns`).
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { readTextFile } from '../input/files.ts';
import { NUMBER_FORMAT_GROUPS, parseTemporal, temporalPatternProblem } from './formats.ts';
import {
  HIERARCHY_PRESETS,
  type Hierarchy,
  hierarchyFromLevels,
  hierarchyText,
  parseHierarchy,
} from './hierarchy.ts';
import { type Column, MAX_DOMAIN_SIZE, SCHEMA_VERSION, type Schema, TEMPORAL_KINDS } from './schema.ts';
import {
  type DeclaredTableSchema,
  isFrictionless,
  openFieldsRefusal,
  readTableSchema,
} from './table-schema.ts';
import { equalWidthEdges, integerRange, isStrictlyAscending } from './values.ts';

export const SCHEMA_FORMAT = 'rap-studio-schema';

const name = z.string().min(1, 'must be a non-empty string');
/** Checked by zod before any edge or category list is built from it. */
const domainLimit = `must be at most ${MAX_DOMAIN_SIZE.toLocaleString('en-US')} (RAP Studio's limit on the categories/bins of one column)`;

const provenanceJson = z.discriminatedUnion('source', [
  z.strictObject({ source: z.literal('declared') }),
  z.strictObject({ source: z.literal('discovered'), rho: z.number().min(0), delta: z.number().min(0) }),
  z.strictObject({ source: z.literal('not-dp') }),
]);

const temporalJson = z.strictObject({
  kind: z.enum(TEMPORAL_KINDS),
  format: z.string().min(1, 'must be a non-empty format, e.g. MM/DD/YYYY').max(100),
  /** Discovered temporal columns: the noisy weekday and hour shares decoding follows. */
  weekdays: z.array(z.number().min(0)).length(7).optional(),
  hours: z.array(z.number().min(0)).length(24).optional(),
});

const pieceJson = z.strictObject({ lo: z.number(), hi: z.number(), weight: z.number().min(0) });

/**
 * A hierarchy: its text form ("icd10", "3,5,digits", "1,3,full,full-codes"; hierarchy.ts) or an
 * object { preset } / { levels, digits, separator } with fullCodes.
 */
const hierarchyJson = z.union([
  z.string(),
  z.strictObject({ preset: z.enum(['icd10', 'postcode', 'naics']), fullCodes: z.boolean().optional() }),
  z.strictObject({
    levels: z.array(z.union([z.int().positive(), z.literal('full')])).min(1),
    digits: z.boolean().optional(),
    separator: z.string().min(1).optional(),
    fullCodes: z.boolean().optional(),
  }),
]);

const categoricalJson = z.strictObject({
  name,
  kind: z.literal('categorical'),
  temporal: temporalJson.optional(),
  missingText: z.string().max(100).optional(),
  /** Absent with a hierarchy: the column is discovered privately as hierarchical codes. */
  categories: z.array(z.string()).max(MAX_DOMAIN_SIZE, domainLimit).optional(),
  hierarchy: hierarchyJson.optional(),
  missing: z.boolean().default(false),
  provenance: provenanceJson.optional(),
  fallbackCode: z.int().min(0).optional(),
});

const numberFormatJson = z.strictObject({
  decimal: z.enum(['.', ',']),
  group: z.enum(NUMBER_FORMAT_GROUPS),
  prefix: z.string().max(8).optional(),
  suffix: z.string().max(8).optional(),
  decimals: z.int().min(0).max(20).optional(),
  anyAffix: z.boolean().optional(),
});

const numericJson = z.strictObject({
  name,
  kind: z.literal('numeric'),
  temporal: temporalJson.optional(),
  missingText: z.string().max(100).optional(),
  edges: z
    .array(z.number())
    .min(2, 'needs at least two edges')
    .max(MAX_DOMAIN_SIZE + 1, domainLimit)
    .optional(),
  lower: z.union([z.number(), z.string()]).optional(),
  upper: z.union([z.number(), z.string()]).optional(),
  bins: z.int().positive().max(MAX_DOMAIN_SIZE, domainLimit).optional(),
  integer: z.boolean().default(false),
  missing: z.boolean().default(false),
  pieces: z.array(pieceJson).optional(),
  provenance: provenanceJson.optional(),
  fallbackCode: z.int().min(0).optional(),
  valueByValue: z.boolean().optional(),
  numberFormat: numberFormatJson.optional(),
});

const schemaJson = z.strictObject({
  format: z.literal(SCHEMA_FORMAT).optional(),
  version: z.literal(SCHEMA_VERSION),
  origin: z.enum(['declared', 'inferred', 'discovered']),
  confirmedFromInferred: z.boolean().optional(),
  columns: z
    .array(z.discriminatedUnion('kind', [categoricalJson, numericJson]))
    .min(2, 'needs at least two columns'),
});

type ColumnJson = z.infer<typeof categoricalJson> | z.infer<typeof numericJson>;

function pathText(path: readonly PropertyKey[], columns: unknown): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  const [top, index] = path;
  const col =
    top === 'columns' && typeof index === 'number' && Array.isArray(columns) ? columns[index] : undefined;
  const colName = (col as { name?: unknown } | undefined)?.name;
  if (typeof colName === 'string' && colName)
    out = out.replace(`columns[${String(index)}]`, `columns[${String(index)}] ("${colName}")`);
  return out || '(top level)';
}

function invalid(file: string, noun: string, problems: readonly string[]): InputError {
  const shown = problems.slice(0, 5).join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  return new InputError(`${file}: invalid ${noun}: ${shown}${more}.`, { file });
}

/** Semantic rules, one message per broken rule. */
function semanticProblems(columns: readonly ColumnJson[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  columns.forEach((c, i) => {
    const at = `columns[${i}] ("${c.name}")`;
    if (seen.has(c.name)) problems.push(`${at}.name: duplicate column name`);
    seen.add(c.name);
    if (c.kind === 'categorical') {
      if (c.hierarchy !== undefined) {
        try {
          toHierarchy(c.hierarchy);
        } catch (err) {
          problems.push(`${at}.hierarchy: ${(err as Error).message}`);
        }
      }
      if (c.categories === undefined) {
        if (c.hierarchy === undefined)
          problems.push(`${at}.categories: required (or a "hierarchy", to discover the codes privately)`);
        return;
      }
      if (new Set(c.categories).size !== c.categories.length)
        problems.push(`${at}.categories: duplicate category`);
      if (c.categories.length === 0 && !c.missing)
        problems.push(`${at}.categories: empty, and no missing category`);
      if (c.fallbackCode !== undefined && c.fallbackCode >= c.categories.length + (c.missing ? 1 : 0))
        problems.push(`${at}.fallbackCode: not a code of the column`);
      return;
    }
    if (c.fallbackCode !== undefined && c.edges !== undefined && c.fallbackCode >= c.edges.length - 1)
      problems.push(`${at}.fallbackCode: not a bin of the column`);
    const formatProblems = temporalProblems(at, c);
    if (formatProblems.length > 0) {
      problems.push(...formatProblems);
      return;
    }
    const hasEdges = c.edges !== undefined;
    const hasRange = c.lower !== undefined || c.upper !== undefined || c.bins !== undefined;
    if (hasEdges === hasRange) {
      problems.push(`${at}: give either "edges" or all of "lower", "upper" and "bins"`);
      return;
    }
    if (hasRange && (c.lower === undefined || c.upper === undefined || c.bins === undefined)) {
      problems.push(`${at}: "lower", "upper" and "bins" go together`);
      return;
    }
    problems.push(...edgeProblems(at, c));
  });
  return problems;
}

/** A temporal column's pattern, and bounds written in its format; strings need a temporal column. */
function temporalProblems(at: string, c: z.infer<typeof numericJson>): string[] {
  const problems: string[] = [];
  if (c.temporal && c.numberFormat)
    problems.push(`${at}: a column is temporal or has a number format, not both`);
  if (c.temporal) {
    const p = temporalPatternProblem(c.temporal);
    if (p) return [`${at}.temporal.format: ${p}`];
  }
  for (const key of ['lower', 'upper'] as const) {
    const v = c[key];
    if (typeof v !== 'string') continue;
    if (!c.temporal) problems.push(`${at}.${key}: must be a number (text bounds need a "temporal" format)`);
    else if (parseTemporal(c.temporal, v) === undefined)
      problems.push(
        `${at}.${key}: "${v}" is not a valid ${c.temporal.kind} in the format ${c.temporal.format}`,
      );
  }
  return problems;
}

/** A bound as a number: text in the column's temporal format becomes its internal value. */
function boundValue(c: z.infer<typeof numericJson>, v: number | string | undefined): number | undefined {
  if (typeof v !== 'string') return v;
  return c.temporal ? parseTemporal(c.temporal, v) : undefined;
}

function edgeProblems(at: string, raw: z.infer<typeof numericJson>): string[] {
  const c = {
    ...raw,
    integer: raw.integer || raw.temporal !== undefined,
    lower: boundValue(raw, raw.lower),
    upper: boundValue(raw, raw.upper),
  };
  if (c.edges) {
    if (!isStrictlyAscending(c.edges)) return [`${at}.edges: must be strictly ascending`];
    if (!c.integer) return [];
    const empty = c.edges.slice(0, -1).findIndex((_, b) => {
      const r = integerRange(c.edges!, b);
      return r.low > r.high;
    });
    return empty === -1 ? [] : [`${at}.edges: bin ${empty} holds no integer, but the column is integer`];
  }
  if (!(c.lower! < c.upper!)) return [`${at}: "lower" must be less than "upper"`];
  if (c.integer && !(Number.isInteger(c.lower) && Number.isInteger(c.upper))) {
    return [`${at}: an integer column needs integer "lower" and "upper"`];
  }
  return [];
}

type HierarchyJson = z.infer<typeof hierarchyJson>;

function toHierarchy(h: HierarchyJson): Hierarchy {
  if (typeof h === 'string') return parseHierarchy(h);
  if ('preset' in h) {
    const preset = HIERARCHY_PRESETS[h.preset];
    return h.fullCodes ? { ...preset, fullCodes: true } : preset;
  }
  return hierarchyFromLevels(h.levels, {
    ...(h.digits !== undefined && { digits: h.digits }),
    separator: h.separator,
    ...(h.fullCodes !== undefined && { fullCodes: h.fullCodes }),
  });
}

function toColumn(c: ColumnJson & { categories: readonly string[] }): Column {
  if (c.kind === 'categorical') {
    const { provenance, hierarchy, ...rest } = c;
    return {
      ...rest,
      ...(hierarchy !== undefined ? { hierarchy: toHierarchy(hierarchy) } : {}),
      ...(provenance ? { provenance } : {}),
    };
  }
  const integer = c.integer || c.temporal !== undefined;
  const edges =
    c.edges ?? equalWidthEdges(boundValue(c, c.lower)!, boundValue(c, c.upper)!, c.bins!, integer);
  return {
    name: c.name,
    kind: 'numeric',
    edges,
    integer,
    missing: c.missing,
    ...(c.pieces ? { pieces: c.pieces } : {}),
    ...(c.provenance ? { provenance: c.provenance } : {}),
    ...(c.fallbackCode !== undefined ? { fallbackCode: c.fallbackCode } : {}),
    ...(c.valueByValue ? { valueByValue: true } : {}),
    ...(c.temporal ? { temporal: c.temporal } : {}),
    ...(c.numberFormat ? { numberFormat: c.numberFormat } : {}),
    ...(c.missingText !== undefined ? { missingText: c.missingText } : {}),
  };
}

/**
 * Parses and validates a schema file's text — a rap-studio schema, or a Frictionless Table Schema
 * / Data Package (table-schema.ts) whose every field states its domain; `file` names it in errors.
 */
export function parseSchemaJson(text: string, file: string): Schema {
  const declared = parseDeclaredSchema(text, file);
  if (declared.open.length > 0) throw openFieldsRefusal(file, declared.open);
  return declared.schema;
}

/**
 * A declared schema in either format: the rap-studio schema (every column declared), or a
 * Frictionless descriptor, whose fields without a stated domain come back `open` for a release
 * to discover privately.
 */
export function parseDeclaredSchema(text: string, file: string): Omit<DeclaredTableSchema, 'fields'> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file}: not valid JSON (${(err as Error).message}).`, { file });
  }
  if (isFrictionless(raw)) return readTableSchema(raw, file);
  return { schema: schemaFromJsonValue(raw, file, 'schema file'), open: [] };
}

export async function readDeclaredSchema(file: string): Promise<Omit<DeclaredTableSchema, 'fields'>> {
  return parseDeclaredSchema(await readTextFile(file, 'schema file'), file);
}

function schemaFromJsonValue(raw: unknown, file: string, noun: string): Schema {
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > SCHEMA_VERSION) {
    throw new InputError(
      `${file}: schema version ${version} is newer than this RAP Studio reads (${SCHEMA_VERSION}); update RAP Studio.`,
      { file },
    );
  }
  const parsed = schemaJson.safeParse(raw);
  if (!parsed.success) {
    const columns = (raw as { columns?: unknown } | null)?.columns;
    const problems = parsed.error.issues.map((i) => `${pathText(i.path, columns)}: ${i.message}`);
    throw invalid(file, noun, problems);
  }
  const problems = semanticProblems(parsed.data.columns);
  if (problems.length > 0) throw invalid(file, noun, problems);
  // A categorical column with a hierarchy and no categories is not declared: discovery finds it.
  const toDiscover = parsed.data.columns.filter(
    (c): c is Extract<ColumnJson, { kind: 'categorical' }> =>
      c.kind === 'categorical' && c.categories === undefined,
  );
  const declared = parsed.data.columns.filter(
    (c): c is ColumnJson & { categories: string[] } =>
      !(c.kind === 'categorical' && c.categories === undefined),
  );
  const schema: Schema = {
    version: SCHEMA_VERSION,
    origin: parsed.data.origin,
    columns: declared.map(toColumn),
    ...(toDiscover.length > 0 && {
      hierarchies: Object.fromEntries(toDiscover.map((c) => [c.name, toHierarchy(c.hierarchy!)])),
    }),
  };
  return parsed.data.confirmedFromInferred ? { ...schema, confirmedFromInferred: true } : schema;
}

export async function readSchemaFile(file: string): Promise<Schema> {
  return parseSchemaJson(await readTextFile(file, 'schema file'), file);
}

/** The schema as a schema file (edges always explicit; one column per line), ending with a newline. */
export function schemaToJson(schema: Schema): string {
  const columns = schema.columns.map((c) => {
    const extra = {
      ...(c.kind === 'numeric' && c.pieces ? { pieces: c.pieces } : {}),
      ...(c.kind === 'numeric' && c.valueByValue ? { valueByValue: true } : {}),
      ...(c.kind === 'numeric' && c.numberFormat ? { numberFormat: c.numberFormat } : {}),
      ...(c.provenance ? { provenance: c.provenance } : {}),
      ...(c.fallbackCode !== undefined ? { fallbackCode: c.fallbackCode } : {}),
      ...(c.kind === 'categorical' && c.hierarchy ? { hierarchy: hierarchyText(c.hierarchy) } : {}),
      ...(c.temporal ? { temporal: c.temporal } : {}),
      ...(c.missingText !== undefined ? { missingText: c.missingText } : {}),
    };
    return c.kind === 'categorical'
      ? { name: c.name, kind: c.kind, categories: c.categories, missing: c.missing, ...extra }
      : { name: c.name, kind: c.kind, edges: c.edges, integer: c.integer, missing: c.missing, ...extra };
  });
  const toDiscover = Object.entries(schema.hierarchies ?? {}).map(([name, h]) => ({
    name,
    kind: 'categorical',
    hierarchy: hierarchyText(h),
  }));
  columns.push(...(toDiscover as typeof columns));
  const head = {
    format: SCHEMA_FORMAT,
    version: schema.version,
    origin: schema.origin,
    ...(schema.confirmedFromInferred ? { confirmedFromInferred: true } : {}),
  };
  const fields = Object.entries(head).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`);
  const cols = columns.map((c) => `    ${JSON.stringify(c)}`).join(',\n');
  return `{\n${fields.join('')}  "columns": [\n${cols}\n  ]\n}\n`;
}

/**
 * Checks a schema built in code (not read from a file) by the same rules as a schema file;
 * `label` names it in the error.
 */
export function assertValidSchema(schema: Schema, label: string): void {
  schemaFromJsonValue(JSON.parse(schemaToJson(schema)), label, 'schema');
}

/**
 * The curator accepts a schema as the public domain: origin becomes 'declared'. Confirming an
 * inferred schema without editing it does not undo the leak (its categories and ranges came
 * from the private data), so `confirmedFromInferred` stays set for reports to mention.
 */
export function confirmSchema(schema: Schema): Schema {
  const fromInferred = schema.origin === 'inferred' || schema.confirmedFromInferred === true;
  return { ...schema, origin: 'declared', ...(fromInferred ? { confirmedFromInferred: true } : {}) };
}
