/**
 * The released table as a Stata data file (.dta, release 118: Stata 14 and later, little-endian,
 * UTF-8), converted from the release's own CSV (the bytes the CSV release would hold), by our own
 * writer (no npm writer exists). The layout is Stata's published description (`help dta`) as our
 * reader (dta.ts), pandas and ReadStat (R's haven) read it: the tagged header, the map of section
 * offsets, the variable table (types, names, an empty sort list, formats, value label names, empty
 * variable labels), no characteristics, the data, the strLs, the value labels.
 *
 * Types: a column the Table Schema calls integer is byte, int or long (the smallest that holds its
 * values; Stata keeps the values above each type's largest for its missing codes), else double; a
 * column it calls number is double — either only when every value of it prints back as exactly
 * the CSV's text (released-csv.ts: the rule of the .xlsx and Parquet writers) and lies below
 * 2^1023, where Stata's missing codes start. A date column is a Stata date (`%td`), a datetime
 * column a Stata datetime (`%tc`), where every value is `YYYY-MM-DD` (`…THH:MM:SS`) and reads back
 * as its text. Any other column is a string: str# as wide as its longest value (at most 2,045
 * bytes), strL when a value is longer. A column of an SPSS or Stata input whose value labels are
 * its declared categories (the manifest's `schema.valueLabels`) is written as the input's codes
 * (byte/int/long) with those labels (a label set named as the variable); other categories as their
 * texts. A missing number (the empty field, or the column's missing text such as "?") is system
 * missing `.`, a missing string the empty string. A file is built whole in memory (the released
 * table).
 */
import { InputError } from '../../errors.ts';
import { writeFileNew } from '../atomic-write.ts';
import { date1960, datetime1960 } from './binary.ts';
import { codedValues, numericValues, readReleasedCsv } from './released-csv.ts';
import type { WrittenColumn } from './write-parquet.ts';

/** A Stata column: a number type, a str# of `width` bytes (1 … 2,045), or a strL. */
export type DtaColumnType =
  | { readonly kind: 'byte' | 'int' | 'long' | 'double' }
  | { readonly kind: 'str'; readonly width: number }
  | { readonly kind: 'strL' };

export interface DtaVariable {
  readonly name: string;
  readonly type: DtaColumnType;
  /** The display format; default by type (`%td` makes a long a date, `%tc` a double a datetime). */
  readonly format?: string;
  /** Value labels (an integer column's codes), written as a label set named as the variable. */
  readonly labels?: readonly (readonly [number, string])[];
}

/** The widest str# (bytes); a longer value goes to a strL. */
export const DTA_MAX_STR = 2045;
/** A variable name's longest (characters, Stata's rule; at most 128 bytes of UTF-8). */
export const DTA_MAX_NAME = 32;
/** A release 118 file's most variables (its K field is 2 bytes; Stata/MP's limit). */
export const DTA_MAX_COLUMNS = 32_767;

/** Each integer type's valid range (above it: Stata's missing codes), and its system missing. */
const INTEGER = {
  byte: { min: -127, max: 100, missing: 101, code: 65530, width: 1 },
  int: { min: -32_767, max: 32_740, missing: 32_741, code: 65529, width: 2 },
  long: { min: -2_147_483_647, max: 2_147_483_620, missing: 2_147_483_621, code: 65528, width: 4 },
} as const;
/** System missing `.` of a double: 2^1023; it and every value above are missing. */
const DOUBLE_MISSING = 2 ** 1023;

/** Words Stata reserves, which are no variable's name. */
const RESERVED = new Set([
  '_all',
  '_b',
  'byte',
  '_coef',
  '_cons',
  'double',
  'float',
  'if',
  'in',
  'int',
  'long',
  '_n',
  '_N',
  '_pi',
  '_pred',
  '_rc',
  '_skip',
  'strL',
  'using',
  'with',
]);

/**
 * Why `names` cannot be a Stata file's variable names (null: they can): a letter or `_` first,
 * then letters, digits and `_`, at most 32 characters, no reserved word (nor str1 … str2045), no
 * two alike.
 */
export function dtaNameProblem(names: readonly string[]): string | null {
  if (names.length > DTA_MAX_COLUMNS)
    return `${names.length} columns do not fit a Stata file (at most ${DTA_MAX_COLUMNS.toLocaleString('en-US')})`;
  const seen = new Set<string>();
  for (const name of names) {
    if (!/^[\p{L}_][\p{L}\p{N}_]*$/u.test(name))
      return `"${name}" is not a Stata variable name (a letter or _ first, then letters, digits and _)`;
    if ([...name].length > DTA_MAX_NAME || Buffer.byteLength(name, 'utf8') > 128)
      return `"${name}" is longer than Stata's ${DTA_MAX_NAME} characters for a variable name`;
    if (RESERVED.has(name) || /^str([1-9][0-9]{0,3})$/.test(name))
      return `"${name}" is a reserved word in Stata`;
    if (seen.has(name)) return `"${name}" names two columns`;
    seen.add(name);
  }
  return null;
}

function widthOf(t: DtaColumnType): number {
  return t.kind === 'str' ? t.width : t.kind === 'strL' || t.kind === 'double' ? 8 : INTEGER[t.kind].width;
}

function typeCode(t: DtaColumnType): number {
  return t.kind === 'str'
    ? t.width
    : t.kind === 'strL'
      ? 32768
      : t.kind === 'double'
        ? 65526
        : INTEGER[t.kind].code;
}

function displayFormat(t: DtaColumnType): string {
  if (t.kind === 'str') return `%${Math.min(t.width, 2045)}s`;
  if (t.kind === 'strL') return '%9s';
  return t.kind === 'double' ? '%10.0g' : t.kind === 'long' ? '%12.0g' : '%8.0g';
}

/** A release 118 .dta file of `vars` and `rows` (numbers, strings; null missing), little-endian. */
export function dtaBytes(
  vars: readonly DtaVariable[],
  rows: readonly (readonly (number | string | null)[])[],
): Buffer {
  const k = vars.length;
  const parts: Buffer[] = [];
  let size = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    size += b.length;
  };
  const tag = (s: string) => push(Buffer.from(s, 'latin1'));
  const u16 = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(n);
    return b;
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const fixed = (s: string, len: number) => {
    const b = Buffer.alloc(len);
    Buffer.from(s, 'utf8').copy(b, 0, 0, len - 1);
    return b;
  };
  if (k > DTA_MAX_COLUMNS) throw new RangeError(`${k} columns do not fit a Stata file (at most 32,767)`);
  const map: number[] = new Array(14).fill(0);
  tag('<stata_dta><header><release>118</release><byteorder>LSF</byteorder><K>');
  push(u16(k));
  tag('</K><N>');
  push(u64(rows.length));
  tag('</N><label>');
  push(u16(0));
  tag('</label><timestamp>');
  push(Buffer.from([0])); // no time stamp (Stata allows none: a length of 0)
  tag('</timestamp></header>');
  map[1] = size;
  const mapAt = parts.length + 1;
  tag('<map>');
  push(Buffer.alloc(14 * 8)); // filled in below
  tag('</map>');
  map[2] = size;
  tag('<variable_types>');
  for (const v of vars) push(u16(typeCode(v.type)));
  tag('</variable_types>');
  map[3] = size;
  tag('<varnames>');
  for (const v of vars) push(fixed(v.name, 129));
  tag('</varnames>');
  map[4] = size;
  tag('<sortlist>');
  push(Buffer.alloc(2 * (k + 1)));
  tag('</sortlist>');
  map[5] = size;
  tag('<formats>');
  for (const v of vars) push(fixed(v.format ?? displayFormat(v.type), 57));
  tag('</formats>');
  map[6] = size;
  tag('<value_label_names>');
  for (const v of vars) push(fixed(v.labels?.length ? v.name : '', 129));
  tag('</value_label_names>');
  map[7] = size;
  tag('<variable_labels>');
  push(Buffer.alloc(321 * k));
  tag('</variable_labels>');
  map[8] = size;
  tag('<characteristics></characteristics>');
  map[9] = size;
  tag('<data>');
  const rowWidth = vars.reduce((w, v) => w + widthOf(v.type), 0);
  const strls: Buffer[] = [];
  const data = Buffer.alloc(rowWidth * rows.length);
  let at = 0;
  rows.forEach((row, i) => {
    vars.forEach((v, j) => {
      const value = row[j];
      const t = v.type;
      if (t.kind === 'str') {
        if (value !== null) Buffer.from(String(value), 'utf8').copy(data, at, 0, t.width);
      } else if (t.kind === 'strL') {
        const text = value === null ? '' : String(value);
        if (text !== '') {
          // The cell's (v, o) key: v in 2 bytes, o in 6 (release 118); the GSO record holds the text.
          data.writeUInt16LE(j + 1, at);
          data.writeUIntLE(i + 1, at + 2, 6);
          const body = Buffer.from(`${text}\0`, 'utf8');
          const head = Buffer.alloc(3 + 4 + 8 + 1 + 4);
          head.write('GSO', 0, 'latin1');
          head.writeUInt32LE(j + 1, 3);
          head.writeBigUInt64LE(BigInt(i + 1), 7);
          head.writeUInt8(130, 15); // text, with its terminating NUL
          head.writeUInt32LE(body.length, 16);
          strls.push(head, body);
        }
      } else if (t.kind === 'double') {
        data.writeDoubleLE(value === null ? DOUBLE_MISSING : Number(value), at);
      } else {
        const spec = INTEGER[t.kind];
        const x = value === null ? spec.missing : Number(value);
        data.writeIntLE(x, at, spec.width);
      }
      at += widthOf(t);
    });
  });
  push(data);
  tag('</data>');
  map[10] = size;
  tag('<strls>');
  for (const b of strls) push(b);
  tag('</strls>');
  map[11] = size;
  tag('<value_labels>');
  for (const v of vars) if (v.labels?.length) push(labelSet(v.name, v.labels));
  tag('</value_labels>');
  map[12] = size;
  tag('</stata_dta>');
  map[13] = size;
  parts[mapAt] = Buffer.concat(map.map(u64));
  return Buffer.concat(parts);
}

/**
 * One `<lbl>` record: the set's length, its name (129 bytes), 3 bytes of padding, then n, the text's
 * length, each label's offset into the text, the values, and the NUL-terminated labels.
 */
function labelSet(name: string, labels: readonly (readonly [number, string])[]): Buffer {
  const texts = labels.map(([, label]) => Buffer.from(`${label}\0`, 'utf8'));
  const textLength = texts.reduce((n, t) => n + t.length, 0);
  const n = labels.length;
  const table = Buffer.alloc(8 + 8 * n + textLength);
  table.writeInt32LE(n, 0);
  table.writeInt32LE(textLength, 4);
  let off = 0;
  labels.forEach(([value], i) => {
    table.writeInt32LE(off, 8 + 4 * i);
    table.writeInt32LE(value, 8 + 4 * n + 4 * i);
    texts[i].copy(table, 8 + 8 * n + off);
    off += texts[i].length;
  });
  const head = Buffer.alloc(4 + 129 + 3);
  head.writeInt32LE(table.length, 0);
  Buffer.from(name, 'utf8').copy(head, 4, 0, 128);
  return Buffer.concat([Buffer.from('<lbl>', 'latin1'), head, table, Buffer.from('</lbl>', 'latin1')]);
}

/** A column's Stata type: the smallest integer type holding every value, else a double; or a string. */
function columnType(numeric: boolean, integer: boolean, texts: readonly string[]): DtaColumnType {
  if (numeric) {
    if (!integer) return { kind: 'double' };
    let min = 0;
    let max = 0;
    for (const t of texts) {
      if (t === '') continue;
      const x = Number(t);
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
    for (const kind of ['byte', 'int', 'long'] as const)
      if (min >= INTEGER[kind].min && max <= INTEGER[kind].max) return { kind };
    return { kind: 'double' };
  }
  let width = 1;
  for (const t of texts) width = Math.max(width, Buffer.byteLength(t, 'utf8'));
  return width > DTA_MAX_STR ? { kind: 'strL' } : { kind: 'str', width };
}

const MS_PER_DAY = 86_400_000;
/** 1960-01-01, Stata's epoch, in milliseconds since 1970-01-01. */
const EPOCH_1960_MS = Date.UTC(1960, 0, 1);

/**
 * A Table Schema date or datetime column as Stata's: days since 1960 (`%td`, a long) or
 * milliseconds (`%tc`, a double) — only when every value is `YYYY-MM-DD` (`…THH:MM:SS`) and reads
 * back through our reader (dta.ts: date1960, datetime1960) as exactly its text; else undefined.
 */
function temporal(
  type: string,
  texts: readonly string[],
): { values: (number | null)[]; variable: Omit<DtaVariable, 'name'> } | undefined {
  const date = type === 'date';
  if (!date && type !== 'datetime') return undefined;
  const shape = date ? /^\d{4}-\d{2}-\d{2}$/ : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
  const values: (number | null)[] = [];
  for (const t of texts) {
    if (t === '') {
      values.push(null);
      continue;
    }
    if (!shape.test(t)) return undefined;
    const ms = Date.parse(`${t}${date ? 'T00:00:00' : ''}Z`) - EPOCH_1960_MS;
    if (!Number.isFinite(ms)) return undefined;
    const x = date ? ms / MS_PER_DAY : ms;
    if ((date ? date1960(x) : datetime1960(x / 1000)) !== t) return undefined;
    if (date && (x < INTEGER.long.min || x > INTEGER.long.max)) return undefined;
    values.push(x);
  }
  return date
    ? { values, variable: { type: { kind: 'long' }, format: '%td' } }
    : { values, variable: { type: { kind: 'double' }, format: '%tc' } };
}

/** `csv` (the release's CSV, header first) written as a new .dta file at `dest`, flushed. */
export async function writeDtaFromCsv(
  csv: string,
  dest: string,
  columns: readonly WrittenColumn[],
): Promise<void> {
  const { header, rows } = await readReleasedCsv(csv);
  const problem = dtaNameProblem(header);
  if (problem) throw new InputError(`${dest}: ${problem}; release to .csv, .parquet or .xlsx instead`);
  const types = columns.map((c) => c.type);
  // A double at or above 2^1023 (or that low) is one of Stata's missing codes.
  const numbers = numericValues(columns, rows, (x) => Math.abs(x) < DOUBLE_MISSING);
  const values: (number | string | null)[][] = rows.map((r, i) =>
    r.map((v, j) => (numbers[j] ? numbers[j][i] : v)),
  );
  const vars: DtaVariable[] = header.map((name, j) => {
    const texts = rows.map((r) => r[j]);
    // An SPSS/Stata input's labelled column: its codes (integers Stata's long holds), with their
    // value labels (a label set named as the variable).
    const column = columns[j];
    const coded = column?.codes?.every(
      (c) => Number.isSafeInteger(c.value) && c.value >= INTEGER.long.min && c.value <= INTEGER.long.max,
    )
      ? codedValues(column, texts)
      : undefined;
    if (coded && column.codes) {
      coded.forEach((x, i) => {
        values[i][j] = x;
      });
      const codes = column.codes.map((c) => String(c.value));
      return {
        name,
        type: columnType(true, true, codes),
        labels: column.codes.map((c) => [c.value, c.label] as const),
      };
    }
    const time = temporal(types[j], texts);
    if (time) {
      time.values.forEach((x, i) => {
        values[i][j] = x;
      });
      return { name, ...time.variable };
    }
    const numeric = numbers[j];
    return numeric
      ? {
          name,
          type: columnType(
            true,
            types[j] === 'integer',
            numeric.map((x) => (x === null ? '' : String(x))),
          ),
        }
      : { name, type: columnType(false, false, texts) };
  });
  await writeFileNew(dest, dtaBytes(vars, values));
}
