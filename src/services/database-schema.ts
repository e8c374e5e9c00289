/**
 * A database source's schema as the app edits it. The app holds no row of a database source, so
 * nothing is read off the data: a column is either DECLARED by the curator (its whole domain from
 * public knowledge, typed in the Data step's "Declare…" — the Schema step's editor — used exactly
 * and free) or discovered privately at release. The catalogue's type (public metadata, like a
 * CSV's header) only says which form the editor offers: numeric bins for a number type, categories
 * otherwise; it never fills in a domain. A date or time type also says how discovery will read
 * the column's text (temporalRead).
 *
 * The declared columns go through the Schema step's provenance rule and the schema file's checks
 * (core/discovery/schema-edit.ts editedSchema): one rule for what "declared" means in the app.
 */
import type { ColumnDescription } from '../core/counting/postgres.ts';
import { SCHEMA_VERSION, type Schema } from '../core/data/schema.ts';
import { editedSchema } from '../core/discovery/schema-edit.ts';
import { InputError } from '../core/errors.ts';
import type { DatabaseColumnView, DatabaseTemporalRead, SchemaInput } from '../shared/api.ts';

/** PostgreSQL's integer types (format_type's names). */
const INTEGER_TYPES = /^(smallint|integer|bigint)$/;
/** Its other number types: numeric(p,s), real, double precision. */
const NUMBER_TYPES = /^(numeric|decimal|real|double precision)(\(.*\))?$/;

/** Its date and time types (format_type's names; a query's result has no precision). */
const DATE_TYPE = /^date$/;
const TIME_TYPES = /^(timestamp|time)(?:\((\d)\))? (with|without) time zone$/;

/**
 * How discovery reads a date or time column (DatabaseTemporalRead), from its type alone. The
 * connection writes dates as ISO text (counting/postgres.ts connect: DateStyle ISO), which the
 * format test's public candidates read (core/data/formats.ts TEMPORAL_FORMATS: `%Y-%m-%d`,
 * `%Y-%m-%d %H:%M:%S`, `%H:%M:%S`), so no format need be stated; measured through the app's
 * release (test/unit/services/database-dates.test.ts). A fraction of a second (`…:05.25`) and a
 * zone offset (`+00`, `+05:30` by the session's time zone) are in no candidate format: such a
 * value is released as missing, and a column of them is not read as dates or times at all.
 */
export function temporalRead(type: string, name: string): DatabaseTemporalRead | undefined {
  if (DATE_TYPE.test(type)) return { kind: 'date', note: 'read as dates (YYYY-MM-DD): no format to state' };
  const m = TIME_TYPES.exec(type);
  if (!m) return undefined;
  const [, base, precision, zone] = m;
  const datetime = base === 'timestamp';
  const cast = datetime ? `(${name} AT TIME ZONE 'UTC')::timestamp(0)` : `${name}::time(0)`;
  if (zone === 'with') {
    return {
      kind: null,
      note:
        `not read as ${datetime ? 'datetimes' : 'times'}: its text ends in a zone offset (+00), which no ` +
        `format reads; release it from a query that converts it (SELECT ${cast} AS ${name} …)`,
    };
  }
  const format = datetime ? 'YYYY-MM-DD HH:MM:SS' : 'HH:MM:SS';
  const read = `read as ${datetime ? 'datetimes' : 'times'} (${format}): no format to state`;
  if (precision === '0') return { kind: datetime ? 'datetime' : 'time', note: read };
  return {
    kind: datetime ? 'datetime' : 'time',
    note:
      `${read}; a value with a fraction of a second is not read (released as missing): to keep it, ` +
      `release from a query that rounds it (SELECT ${name}::${base}(0) AS ${name} …)`,
  };
}

/** A column as the Data step shows it: the editor's form follows its type. */
export function databaseColumnView(c: ColumnDescription): DatabaseColumnView {
  const integer = INTEGER_TYPES.test(c.type);
  const numeric = integer || NUMBER_TYPES.test(c.type);
  const temporal = temporalRead(c.type, c.name);
  return {
    name: c.name,
    type: c.type,
    kind: numeric ? 'numeric' : 'categorical',
    integer,
    ...(temporal && { temporal }),
  };
}

const NO_COLUMNS: Schema = { version: SCHEMA_VERSION, origin: 'declared', columns: [] };

/**
 * The declared schema of a database source: every column the curator sent, declared whole (the
 * schema file's checks: categories, ascending edges…), each one a column of the source. Refused,
 * naming the column and the source's columns, otherwise. No input: no column declared.
 */
export function declaredDatabaseSchema(
  location: string,
  names: readonly string[],
  input: SchemaInput | undefined,
): Schema {
  if (!input || input.columns.length === 0) return NO_COLUMNS;
  for (const c of input.columns) {
    if (!names.includes(c.name)) {
      throw new InputError(
        `${location}: the declared column "${c.name}" is not a column of the source (its columns: ${names.join(', ')}). ` +
          'Show the columns again and declare one of them.',
        { field: 'schema', column: c.name },
      );
    }
  }
  // The schema file's checks want two columns or more (a release's rule, not a column's): one
  // declared column is checked beside a placeholder that is then dropped.
  let placeholder = 'placeholder';
  while (names.includes(placeholder)) placeholder = `_${placeholder}`;
  const edited: SchemaInput['columns'][number][] = [
    ...input.columns.map((c) => ({ ...c, declare: true })),
    { name: placeholder, kind: 'categorical', categories: ['-'], missing: false },
  ];
  const checked = editedSchema(edited, NO_COLUMNS);
  return { ...checked, columns: checked.columns.filter((c) => c.name !== placeholder) };
}
