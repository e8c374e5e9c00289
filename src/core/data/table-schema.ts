/**
 * Frictionless Table Schema (https://specs.frictionlessdata.io/table-schema/) in and out: a
 * curator's public codebook read as a declared schema, and the released CSV described as one.
 *
 * In: a `schema.json` ({ "fields": [...] }) or a `datapackage.json` whose (first tabular) resource
 * holds a `schema`. Every field whose domain the descriptor states is a DECLARED column (exact,
 * free): a `constraints.enum` (any type) → a categorical column over those strings; an `integer`,
 * `number` or `year` with `minimum` and `maximum` → a numeric column (one bin per integer when the
 * range holds at most MAX_VALUE_BY_VALUE integers, else DECLARED_BINS equal-width bins; the
 * `rap-studio.edges` property, written by our own Data Package, gives the bins exactly); a
 * `boolean` → a categorical column over its true and false values. A field that states only its
 * type — a string without `enum`, a number without both bounds, a date, time or datetime — is
 * OPEN: its domain is not public, so a release discovers it privately (a date's format, unless
 * `any`, is declared to discovery: `temporal`). A date, time or datetime field with
 * `rap-studio.edges` (our own Data Package) is a declared temporal column. `constraints.required: true` → no missing category; else
 * the column has one. `missingValues` must be markers RAP Studio reads as missing (`?`, empty,
 * `NA`). Keys and other constraints (`primaryKey`, `unique`, `pattern`, …) say nothing about the
 * domain and are ignored.
 *
 * Out: `toTableSchema` writes a released schema as a Table Schema that reads back to the same
 * domain (categories as `enum`, bins as `rap-studio.edges` inside `minimum`/`maximum`).
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { formatTemporal, NUMBER_FORMAT_GROUPS, type NumberFormat, toStrftime } from './formats.ts';
import {
  type CategoricalColumn,
  type Column,
  MAX_DOMAIN_SIZE,
  type NumericColumn,
  SCHEMA_VERSION,
  type Schema,
  type TemporalDeclaration,
} from './schema.ts';
import { DEFAULT_MISSING_MARKERS, equalWidthEdges, integerRange, isStrictlyAscending } from './values.ts';

/** Equal-width bins of a declared numeric field with bounds only (discovery's default count too). */
export const DECLARED_BINS = 16;
/** An integer field whose declared range holds at most this many integers gets one bin per integer. */
export const MAX_VALUE_BY_VALUE = 128;

/** The property our own descriptors carry (field: exact bins; package: the release's provenance). */
export const RAP_KEY = 'rap-studio';

const FIELD_TYPES = [
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'date',
  'time',
  'datetime',
  'year',
  'yearmonth',
  'duration',
  'geopoint',
  'geojson',
  'any',
  'list',
] as const;

/** The types whose values RAP Studio can release; the others are refused with the field's name. */
const SUPPORTED = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'date',
  'time',
  'datetime',
  'year',
  'any',
]);

const scalar = z.union([z.string(), z.number(), z.boolean()]);

const constraintsJson = z.looseObject({
  required: z.boolean().optional(),
  unique: z.boolean().optional(),
  enum: z.array(scalar).max(MAX_DOMAIN_SIZE, `must list at most ${MAX_DOMAIN_SIZE} values`).optional(),
  minimum: scalar.optional(),
  maximum: scalar.optional(),
});

const fieldJson = z.looseObject({
  name: z.string().min(1, 'must be a non-empty string'),
  title: z.string().optional(),
  description: z.string().optional(),
  type: z.enum(FIELD_TYPES).default('string'),
  format: z.string().default('default'),
  constraints: constraintsJson.optional(),
  /** Table Schema v2: a field's own missing values (override the schema's). */
  missingValues: z.array(z.string()).optional(),
  trueValues: z.array(z.string()).optional(),
  falseValues: z.array(z.string()).optional(),
  /** number (and integer, Table Schema v2): the decimal mark, the thousands separator, and whether the cells are bare numbers. */
  decimalChar: z.string().optional(),
  groupChar: z.string().optional(),
  bareNumber: z.boolean().optional(),
  [RAP_KEY]: z
    .looseObject({
      edges: z
        .array(z.number())
        .min(2)
        .max(MAX_DOMAIN_SIZE + 1)
        .optional(),
      /** Our own Data Package: the exact number format the cells are written in (affixes, decimals). */
      numberFormat: z
        .strictObject({
          decimal: z.enum(['.', ',']),
          group: z.enum(NUMBER_FORMAT_GROUPS),
          prefix: z.string().max(8).optional(),
          suffix: z.string().max(8).optional(),
          decimals: z.int().min(0).max(20).optional(),
          anyAffix: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
});

export const tableSchemaJson = z.looseObject({
  fields: z.array(fieldJson).min(1, 'needs at least one field'),
  missingValues: z.array(z.string()).default(['']),
  primaryKey: z.union([z.string(), z.array(z.string())]).optional(),
  foreignKeys: z.array(z.unknown()).optional(),
});

const resourceJson = z.looseObject({
  name: z.string().optional(),
  path: z.union([z.string(), z.array(z.string())]).optional(),
  data: z.unknown().optional(),
  profile: z.string().optional(),
  schema: z.union([z.string(), z.unknown()]).optional(),
});

export const dataPackageJson = z.looseObject({
  name: z.string().optional(),
  profile: z.string().optional(),
  resources: z.array(resourceJson).min(1, 'needs at least one resource'),
});

export type TableSchemaJson = z.infer<typeof tableSchemaJson>;
type FieldJson = z.infer<typeof fieldJson>;

/** A date, time or datetime field's type and format, in the issue's token syntax (e.g. `MM/DD/YYYY`). */
export interface TemporalHint {
  readonly kind: TemporalDeclaration['kind'];
  /** Undefined: the format is `any` (discovered among the public list of formats). */
  readonly format: string | undefined;
}

/** A field whose domain the descriptor does not state: discovered privately by a release. */
export interface OpenField {
  readonly name: string;
  readonly type: (typeof FIELD_TYPES)[number];
  readonly missing: boolean;
  readonly temporal?: TemporalHint;
  /** A number field's decimalChar / groupChar / bareNumber: the format its cells are read in. */
  readonly numberFormat?: NumberFormat;
}

/** A Table Schema as RAP Studio reads it. */
export interface DeclaredTableSchema {
  /** The declared columns (origin 'declared'; each column's provenance 'declared'). */
  readonly schema: Schema;
  /** Fields without a stated domain, in the descriptor's order. */
  readonly open: readonly OpenField[];
  /** Every field's name, in the descriptor's order (the table's columns). */
  readonly fields: readonly string[];
}

/** Whether parsed JSON is a Frictionless descriptor (a Table Schema or a Data Package), not a rap-studio schema. */
export function isFrictionless(raw: unknown): boolean {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return false;
  const o = raw as Record<string, unknown>;
  return !('columns' in o) && (Array.isArray(o.fields) || Array.isArray(o.resources));
}

function zodProblems(error: z.ZodError, fields?: unknown): string[] {
  return error.issues.map((i) => {
    let at = '';
    for (const key of i.path) at += typeof key === 'number' ? `[${key}]` : `${at ? '.' : ''}${String(key)}`;
    const [top, index] = i.path;
    const name =
      top === 'fields' && typeof index === 'number' && Array.isArray(fields)
        ? (fields[index] as { name?: unknown } | undefined)?.name
        : undefined;
    if (typeof name === 'string' && name)
      at = at.replace(`fields[${String(index)}]`, `fields[${String(index)}] ("${name}")`);
    return `${at || '(top level)'}: ${i.message}`;
  });
}

function invalid(file: string, noun: string, problems: readonly string[]): InputError {
  const shown = problems.slice(0, 5).join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  return new InputError(`${file}: invalid ${noun}: ${shown}${more}.`, { file });
}

/**
 * The Table Schema inside a parsed descriptor: itself, or the schema of a Data Package's resource
 * (the only one, or the first with a schema). A schema given by reference (a path or URL) is
 * refused with the fix: point --schema at that file.
 */
export function tableSchemaOf(raw: unknown, file: string): TableSchemaJson {
  const o = raw as Record<string, unknown>;
  if (Array.isArray(o.fields)) return parseTableSchema(raw, file);
  const pkg = dataPackageJson.safeParse(raw);
  if (!pkg.success) throw invalid(file, 'Data Package', zodProblems(pkg.error));
  const withSchema = pkg.data.resources.filter((r) => r.schema !== undefined);
  if (withSchema.length === 0) {
    throw new InputError(`${file}: no resource of this Data Package has a "schema": give a Table Schema.`, {
      file,
    });
  }
  if (withSchema.length > 1) {
    throw new InputError(
      `${file}: ${withSchema.length} resources of this Data Package have a schema; RAP Studio reads one table: ` +
        "give that resource's Table Schema as its own file.",
      { file },
    );
  }
  const { schema, name } = withSchema[0];
  if (typeof schema === 'string') {
    throw new InputError(
      `${file}: resource ${name ? `"${name}"` : '1'}'s schema is a reference ("${schema}"): give that file itself.`,
      { file },
    );
  }
  return parseTableSchema(schema, file);
}

function parseTableSchema(raw: unknown, file: string): TableSchemaJson {
  const parsed = tableSchemaJson.safeParse(raw);
  if (!parsed.success) {
    throw invalid(file, 'Table Schema', zodProblems(parsed.error, (raw as { fields?: unknown })?.fields));
  }
  return parsed.data;
}

/** strptime directives of Frictionless date/time formats → the issue's tokens (`%d/%m/%Y` → `DD/MM/YYYY`). */
const DIRECTIVES: Readonly<Record<string, string>> = {
  Y: 'YYYY',
  y: 'YY',
  m: 'MM',
  d: 'DD',
  H: 'HH',
  M: 'MM',
  S: 'SS',
  z: 'Z',
};

const DEFAULT_FORMAT: Readonly<Record<TemporalHint['kind'], string>> = {
  date: 'YYYY-MM-DD',
  time: 'HH:MM:SS',
  datetime: 'YYYY-MM-DDTHH:MM:SSZ',
};

function temporalHint(f: FieldJson, at: string): TemporalHint {
  const kind = f.type as TemporalHint['kind'];
  if (f.format === 'any') return { kind, format: undefined };
  if (f.format === 'default') return { kind, format: DEFAULT_FORMAT[kind] };
  const format = f.format.replace(/%(.)/g, (whole, d: string) => {
    const token = DIRECTIVES[d];
    if (token === undefined)
      throw new Error(`${at}.format: the directive ${whole} is not supported (use %Y %y %m %d %H %M %S %z)`);
    return token;
  });
  return { kind, format };
}

function numericBound(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

type FieldResult = { readonly column: Column } | { readonly open: OpenField } | { readonly problem: string };

/**
 * A number or integer field's format: our own Data Package's exact one (`rap-studio.numberFormat`),
 * else Table Schema's `decimalChar` (default ".", or "," when `groupChar` is "."), `groupChar`
 * (default none) and `bareNumber` (false: a currency or percent sign around the number is
 * dropped, anyAffix); undefined when the field states none of them (plain numbers). Throws a
 * message naming the property RAP Studio cannot read.
 */
function numberFormatOf(f: FieldJson, at: string): NumberFormat | undefined {
  const own = f[RAP_KEY]?.numberFormat;
  if (own) return own;
  if (f.decimalChar === undefined && f.groupChar === undefined && f.bareNumber !== false) return undefined;
  const decimal = f.decimalChar ?? (f.groupChar === '.' ? ',' : '.');
  const group = f.groupChar ?? '';
  if (decimal !== '.' && decimal !== ',')
    throw new Error(`${at}.decimalChar: "${decimal}" is not supported (use "." or ",")`);
  if (!(NUMBER_FORMAT_GROUPS as readonly string[]).includes(group) || group === decimal) {
    throw new Error(
      `${at}.groupChar: "${group}" is not supported with decimalChar "${decimal}" (use ${NUMBER_FORMAT_GROUPS.filter(
        (g) => g !== '' && g !== decimal,
      )
        .map((g) => JSON.stringify(g))
        .join(', ')})`,
    );
  }
  return {
    decimal,
    group: group as NumberFormat['group'],
    ...(f.bareNumber === false ? { anyAffix: true } : {}),
  };
}

function readField(f: FieldJson, at: string, missingValues: readonly string[]): FieldResult {
  if (!SUPPORTED.has(f.type)) {
    return {
      problem: `${at}.type: "${f.type}" values cannot be released; declare the field as "string" or leave the column out`,
    };
  }
  const markers = f.missingValues ?? missingValues;
  const unread = markers.filter((m) => !DEFAULT_MISSING_MARKERS.includes(m));
  if (unread.length > 0) {
    return {
      problem:
        `${at}: missing value ${unread.map((m) => JSON.stringify(m)).join(', ')} is not one RAP Studio reads as missing ` +
        `(${DEFAULT_MISSING_MARKERS.map((m) => JSON.stringify(m)).join(', ')}); rewrite those cells or list them in "enum"`,
    };
  }
  const c = f.constraints ?? {};
  const missing = c.required !== true;
  // The source's form of a missing cell (the field's first missing value): the release writes it so.
  const base = {
    name: f.name,
    missing,
    ...(missing && markers.length > 0 ? { missingText: markers[0] } : {}),
    provenance: { source: 'declared' as const },
  };
  if (c.enum !== undefined) {
    const categories = c.enum.map(String);
    if (new Set(categories).size !== categories.length)
      return { problem: `${at}.constraints.enum: duplicate value` };
    if (categories.length === 0 && !missing)
      return { problem: `${at}.constraints.enum: empty, and the field is required` };
    return { column: { ...base, kind: 'categorical', categories } satisfies CategoricalColumn };
  }
  if (f.type === 'boolean') {
    const categories = [
      ...(f.trueValues ?? ['true', 'True', 'TRUE', '1']),
      ...(f.falseValues ?? ['false', 'False', 'FALSE', '0']),
    ];
    return { column: { ...base, kind: 'categorical', categories } };
  }
  if (f.type === 'date' || f.type === 'time' || f.type === 'datetime') {
    const own = f[RAP_KEY];
    // Our own Data Package: the released bins (internal units: days, seconds) in the field's format.
    if (own?.edges !== undefined) {
      if (f.format === 'any' || !isStrictlyAscending(own.edges)) {
        return {
          problem: `${at}.${RAP_KEY}.edges: must be strictly ascending, with a format other than "any"`,
        };
      }
      const format = f.format === 'default' ? toStrftime(DEFAULT_FORMAT[f.type]) : toStrftime(f.format);
      return {
        column: {
          ...base,
          kind: 'numeric',
          edges: own.edges,
          integer: own.integer !== false,
          temporal: { kind: f.type, format },
        } satisfies NumericColumn,
      };
    }
    try {
      return { open: { name: f.name, type: f.type, missing, temporal: temporalHint(f, at) } };
    } catch (err) {
      return { problem: (err as Error).message };
    }
  }
  const numeric = f.type === 'integer' || f.type === 'number' || f.type === 'year';
  let numberFormat: NumberFormat | undefined;
  if (f.type === 'integer' || f.type === 'number') {
    try {
      numberFormat = numberFormatOf(f, at);
    } catch (err) {
      return { problem: (err as Error).message };
    }
  }
  const formatted = numberFormat ? { numberFormat } : {};
  const lo = numericBound(c.minimum);
  const hi = numericBound(c.maximum);
  if (!numeric || lo === undefined || hi === undefined)
    return { open: { name: f.name, type: f.type, missing, ...formatted } };
  const integer = f.type !== 'number';
  const given = f[RAP_KEY]?.edges;
  if (!(lo < hi || (given !== undefined && lo === hi))) {
    return { problem: `${at}.constraints: "minimum" must be less than "maximum"` };
  }
  if (integer && !(Number.isInteger(lo) && Number.isInteger(hi))) {
    return { problem: `${at}.constraints: an ${f.type} field needs integer "minimum" and "maximum"` };
  }
  const edges = given ?? declaredEdges(lo, hi, integer);
  if (given !== undefined && !edgesFit(given, lo, hi, integer)) {
    return {
      problem:
        `${at}.${RAP_KEY}.edges: must be strictly ascending, span "minimum" to "maximum"` +
        (integer ? ', and hold an integer in every bin' : ''),
    };
  }
  return { column: { ...base, kind: 'numeric', edges, integer, ...formatted } satisfies NumericColumn };
}

/**
 * Exact bins given with a field: ascending; a number field's span its bounds exactly; an integer
 * field's hold the integers from minimum to maximum and one in every bin (as toTableSchema writes).
 */
function edgesFit(edges: readonly number[], lo: number, hi: number, integer: boolean): boolean {
  if (!isStrictlyAscending(edges)) return false;
  const first = edges[0];
  const last = edges[edges.length - 1];
  if (!integer) return first === lo && last === hi;
  if (Math.ceil(first) !== lo || Math.floor(last) !== hi) return false;
  for (let b = 0; b + 1 < edges.length; b++) {
    const r = integerRange(edges, b);
    if (r.low > r.high) return false;
  }
  return true;
}

/**
 * Bins of a declared numeric field: one per integer (edges at the half-integers, so each bin holds
 * exactly one) when the range is small, else equal width.
 */
function declaredEdges(lo: number, hi: number, integer: boolean): number[] {
  if (integer && hi - lo + 1 <= MAX_VALUE_BY_VALUE) {
    return Array.from({ length: hi - lo + 2 }, (_, i) => lo - 0.5 + i);
  }
  return equalWidthEdges(lo, hi, DECLARED_BINS, integer);
}

/** A parsed descriptor (Table Schema or Data Package) as RAP Studio's declared schema; `file` names it in errors. */
export function readTableSchema(raw: unknown, file: string): DeclaredTableSchema {
  const ts = tableSchemaOf(raw, file);
  const problems: string[] = [];
  const columns: Column[] = [];
  const open: OpenField[] = [];
  const seen = new Set<string>();
  ts.fields.forEach((f, i) => {
    const at = `fields[${i}] ("${f.name}")`;
    if (seen.has(f.name)) problems.push(`${at}.name: duplicate field name`);
    seen.add(f.name);
    const r = readField(f, at, ts.missingValues);
    if ('problem' in r) problems.push(r.problem);
    else if ('column' in r) columns.push(r.column);
    else open.push(r.open);
  });
  if (problems.length > 0) throw invalid(file, 'Table Schema', problems);
  return {
    schema: { version: SCHEMA_VERSION, origin: 'declared', columns },
    open,
    fields: ts.fields.map((f) => f.name),
  };
}

/** Parses a descriptor's text; for callers that need every column declared, refuses open fields naming them. */
export function parseTableSchemaText(text: string, file: string): DeclaredTableSchema {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file}: not valid JSON (${(err as Error).message}).`, { file });
  }
  return readTableSchema(raw, file);
}

/** The refusal for a command that needs every column's domain (all but a release, which discovers them). */
export function openFieldsRefusal(file: string, open: readonly OpenField[]): InputError {
  const names = open.map((f) => `"${f.name}"`).join(', ');
  return new InputError(
    `${file}: ${open.length === 1 ? 'field' : 'fields'} ${names} state no domain (no "enum", no "minimum" and ` +
      '"maximum"): a release (rap-studio synth, or the app) discovers them privately; here give them constraints, ' +
      'leave those columns out of the schema, or (in the app) open the file without it and import it on the Schema step.',
    { file },
  );
}

/**
 * A locale-formatted column's cells described by Table Schema's number properties: `decimalChar`,
 * `groupChar` (when it groups thousands) and `bareNumber: false` when a currency or percent sign
 * is written around the number (the exact affixes, which Table Schema cannot say, are under
 * `rap-studio.numberFormat`).
 */
function numberProperties(f: NumberFormat | undefined): Partial<FieldJson> {
  if (!f) return {};
  const affixed = (f.prefix ?? '') !== '' || (f.suffix ?? '') !== '';
  return {
    decimalChar: f.decimal,
    ...(f.group !== '' ? { groupChar: f.group } : {}),
    bareNumber: !affixed,
  };
}

/**
 * The released schema as a Table Schema that reads back to the same domain: categorical → string
 * with `enum`; numeric → integer/number with `minimum`/`maximum` and the exact bins under
 * `rap-studio.edges`; a column with a missing category is not required, and its missing cells are
 * written in its own form (`missingText`, else `?`): the field's `missingValues` (Table Schema v2)
 * says which, and the schema's lists every form (for v1 readers).
 */
export function toTableSchema(schema: Schema): TableSchemaJson {
  const written = (c: Column) => c.missingText ?? DEFAULT_MISSING_MARKERS[0];
  const fields = schema.columns.map((c): FieldJson => {
    const constraints = { required: !c.missing };
    const missingValues = c.missing ? { missingValues: [written(c)] } : {};
    if (c.kind === 'categorical') {
      return {
        name: c.name,
        type: 'string',
        format: 'default',
        constraints: { ...constraints, enum: [...c.categories] },
        ...missingValues,
      };
    }
    if (c.temporal) {
      const { kind, format } = c.temporal;
      const first = c.edges[0];
      const last = c.edges[c.edges.length - 1];
      return {
        name: c.name,
        type: kind,
        // strftime, as Table Schema writes date formats.
        format,
        constraints: {
          ...constraints,
          minimum: formatTemporal(c.temporal, first),
          maximum: formatTemporal(c.temporal, last),
        },
        ...missingValues,
        [RAP_KEY]: { edges: [...c.edges], integer: c.integer },
      };
    }
    return {
      name: c.name,
      type: c.integer ? 'integer' : 'number',
      format: 'default',
      // An integer column's bounds are its extreme integers (value-by-value bins have half-integer edges).
      constraints: c.integer
        ? { ...constraints, minimum: Math.ceil(c.edges[0]), maximum: Math.floor(c.edges[c.edges.length - 1]) }
        : { ...constraints, minimum: c.edges[0], maximum: c.edges[c.edges.length - 1] },
      ...missingValues,
      ...numberProperties(c.numberFormat),
      [RAP_KEY]: { edges: [...c.edges], ...(c.numberFormat ? { numberFormat: { ...c.numberFormat } } : {}) },
    };
  });
  return { fields, missingValues: [...new Set(schema.columns.filter((c) => c.missing).map(written))] };
}
