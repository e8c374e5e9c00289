/**
 * The released table as an SPSS system file (.sav), converted from the release's own CSV (the
 * bytes the CSV release would hold), by our own writer (no maintained npm writer exists). The
 * layout is the one the PSPP documentation describes ("System File Format") and our reader
 * (sav.ts, through sav-reader and sav-cases.ts) and ReadStat (R's haven) read:
 *
 * - a header, one variable record per 8-byte cell of a case (a string's continuation cells as
 *   continuation records), value labels, the machine integer and float records, the long variable
 *   names record (the short names are `V1`, `V2`, …; the CSV's names are the long names), the very
 *   long string record, the character encoding record ("UTF-8"), then the cases;
 * - cases bytecode-compressed (bias 100), as SPSS writes by default;
 * - a string of up to 255 bytes is one variable; a longer one ("very long string", up to 32,767
 *   bytes) is segments of 255 bytes each (the last shorter), laid out as ReadStat writes them and
 *   our reader, sav-reader and haven read them back.
 *
 * Types: a column the Table Schema calls integer or number is numeric (a double; format F w.d)
 * when every value of it prints back as exactly the CSV's text (released-csv.ts: the rule of the
 * .xlsx and Parquet writers); any other column is a string as wide as its longest value, in UTF-8.
 * A column of an SPSS or Stata input whose value labels are its declared categories (the manifest's
 * `schema.valueLabels`: output-format.ts `writtenColumns`) is written as the input's codes with
 * those value labels; other categories as their texts. A missing numeric value (the empty field,
 * or the column's missing text such as "?") is system-missing, a missing string the empty string. A file is built whole in
 * memory (the released table, not the private one).
 */
import { InputError } from '../../errors.ts';
import { writeFileNew } from '../atomic-write.ts';
import { codedValues, numericValues, readReleasedCsv } from './released-csv.ts';
import type { WrittenColumn } from './write-parquet.ts';

/** A variable: numeric (with value labels) or a string of `width` bytes (default 8; at most 32,767). */
export interface SavVariable {
  readonly name: string;
  readonly type: 'numeric' | 'string';
  readonly labels?: readonly (readonly [number, string])[];
  readonly width?: number;
  /** A numeric variable's display format F w.d (default F8.0). */
  readonly format?: { readonly width: number; readonly decimals: number };
}

/** SPSS's system-missing value: the most negative double. */
const SYSMIS = -Number.MAX_VALUE;
/** A string variable's widest (bytes), and a name's longest (bytes, UTF-8). */
export const SAV_MAX_STRING = 32_767;
export const SAV_MAX_NAME_BYTES = 64;
/** The cases a file can hold (the header's case count is a 32-bit integer). */
export const SAV_MAX_ROWS = 2 ** 31 - 1;

/** SPSS's reserved words, which are no variable's name (any case). */
const RESERVED = new Set(['ALL', 'AND', 'BY', 'EQ', 'GE', 'GT', 'LE', 'LT', 'NE', 'NOT', 'OR', 'TO', 'WITH']);

/**
 * Why `names` cannot be an SPSS file's variable names (null: they can): a name starts with a
 * letter or @, goes on with letters, digits, `.`, `_`, `$`, `#`, `@`, does not end with `.`, is at
 * most 64 bytes and no reserved word; no two names equal but for case.
 */
export function savNameProblem(names: readonly string[]): string | null {
  const seen = new Map<string, string>();
  for (const name of names) {
    if (!/^[\p{L}@][\p{L}\p{N}._$#@]*$/u.test(name) || name.endsWith('.'))
      return `"${name}" is not an SPSS variable name (a letter first, then letters, digits, . _ $ # @; not ending with .)`;
    if (Buffer.byteLength(name, 'utf8') > SAV_MAX_NAME_BYTES)
      return `"${name}" is longer than SPSS's ${SAV_MAX_NAME_BYTES} bytes for a variable name`;
    const upper = name.toUpperCase();
    if (RESERVED.has(upper)) return `"${name}" is a reserved word in SPSS`;
    const other = seen.get(upper);
    if (other !== undefined) return `"${other}" and "${name}" are one name to SPSS (it ignores case)`;
    seen.set(upper, name);
  }
  return null;
}

/** A very long string's segments (PSPP, ReadStat): one up to 255 bytes, else one per 252 bytes. */
function segmentWidths(width: number): number[] {
  if (width <= 255) return [width];
  const n = Math.floor((width + 251) / 252);
  return Array.from({ length: n }, (_, k) => (k < n - 1 ? 255 : width - 252 * (n - 1)));
}

const cellsOfWidth = (width: number) => Math.ceil(width / 8);

/**
 * An SPSS system file of `vars` and `rows` (numbers, strings; null missing), uncompressed or
 * bytecode-compressed (bias 100; `endCode`: ended by a 252 code and zero padding, as PSPP writes).
 */
export function savBytes(
  vars: readonly SavVariable[],
  rows: readonly (readonly (number | string | null)[])[],
  opts: { readonly compressed?: boolean; readonly endCode?: boolean; readonly created?: Date } = {},
): Buffer {
  const segments = vars.map((v) => (v.type === 'numeric' ? [0] : segmentWidths(v.width ?? 8)));
  const cellsOf = (j: number) =>
    vars[j].type === 'numeric' ? 1 : segments[j].reduce((n, w) => n + cellsOfWidth(w), 0);
  const parts: Buffer[] = [];
  const i32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    return b;
  };
  const f64 = (x: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    return b;
  };
  const text = (s: string, len: number) => {
    const b = Buffer.alloc(len, 0x20);
    Buffer.from(s, 'utf8').copy(b, 0, 0, len);
    return b;
  };
  const created = opts.created ?? new Date();
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  const totalCells = vars.reduce((n, _, j) => n + cellsOf(j), 0);
  parts.push(
    Buffer.from('$FL2', 'latin1'),
    text('@(#) SPSS DATA FILE rap-studio', 60),
    i32(2),
    i32(totalCells),
    i32(opts.compressed ? 1 : 0),
    i32(0),
    i32(rows.length),
    f64(100),
    text(
      `${two(created.getUTCDate())} ${month[created.getUTCMonth()]} ${two(created.getUTCFullYear() % 100)}`,
      9,
    ),
    text(`${two(created.getUTCHours())}:${two(created.getUTCMinutes())}:${two(created.getUTCSeconds())}`, 8),
    text('', 64),
    Buffer.alloc(3),
  );
  // Short names V1, V2, … (one per dictionary variable, segments included); the long names record
  // maps each variable's first to its name.
  let shortCount = 0;
  const shortNames: string[] = [];
  const veryLong: string[] = [];
  const indexOf: number[] = []; // each variable's 1-based dictionary index (for value labels)
  let index = 1;
  vars.forEach((v, j) => {
    indexOf.push(index);
    index += cellsOf(j);
    segments[j].forEach((w, k) => {
      const short = `V${++shortCount}`;
      if (k === 0) shortNames.push(short);
      const format =
        v.type === 'numeric'
          ? (5 << 16) | ((v.format?.width ?? 8) << 8) | (v.format?.decimals ?? 0)
          : (1 << 16) | (w << 8); // A w: each segment's own width (the field holds 8 bits)
      parts.push(
        i32(2),
        i32(v.type === 'numeric' ? 0 : w),
        i32(0),
        i32(0),
        i32(format),
        i32(format),
        text(short, 8),
      );
      for (let c = 1; c < (v.type === 'numeric' ? 1 : cellsOfWidth(w)); c++)
        parts.push(i32(2), i32(-1), i32(0), i32(0), i32(0), i32(0), text('', 8));
    });
    if (segments[j].length > 1) veryLong.push(`${shortNames[j]}=${String(v.width).padStart(5, '0')}\0\t`);
  });
  vars.forEach((v, j) => {
    if (!v.labels?.length) return;
    parts.push(i32(3), i32(v.labels.length));
    for (const [value, label] of v.labels) {
      const bytes = Buffer.from(label, 'utf8').subarray(0, 120);
      const padded = Math.ceil((bytes.length + 1) / 8) * 8;
      const cell = Buffer.alloc(padded, 0x20);
      cell[0] = bytes.length;
      bytes.copy(cell, 1);
      parts.push(f64(value), cell);
    }
    parts.push(i32(4), i32(1), i32(indexOf[j]));
  });
  const extension = (subtype: number, size: number, data: Buffer) =>
    parts.push(i32(7), i32(subtype), i32(size), i32(data.length / size), data);
  // Machine integer info: release 20.0.0, machine -1, IEEE 754, compression, little-endian, UTF-8.
  extension(3, 4, Buffer.concat([20, 0, 0, -1, 1, opts.compressed ? 1 : 0, 2, 65001].map(i32)));
  // Machine float info: system-missing, highest, lowest (the second-lowest double, as PSPP and
  // foreign::read.spss expect it).
  const lowest = Buffer.from('feffffffffffefff', 'hex');
  extension(4, 8, Buffer.concat([f64(SYSMIS), f64(Number.MAX_VALUE), lowest]));
  extension(13, 1, Buffer.from(vars.map((v, j) => `${shortNames[j]}=${v.name}`).join('\t'), 'utf8'));
  if (veryLong.length > 0) extension(14, 1, Buffer.from(veryLong.join(''), 'utf8'));
  extension(20, 1, Buffer.from('UTF-8', 'latin1'));
  parts.push(i32(999), i32(0));

  // Each case's cells: a number, or a string's segments, each padded with blanks to its cells;
  // written into 1 MiB chunks (no object per cell: a release may have millions of cells).
  const sink = new Chunks(parts);
  const cells = opts.compressed ? new Compressed(sink) : sink;
  const cell = Buffer.alloc(8);
  for (const row of rows) {
    for (let j = 0; j < vars.length; j++) {
      const value = row[j];
      if (vars[j].type === 'numeric') {
        cells.number(value === null ? SYSMIS : Number(value));
        continue;
      }
      const all = Buffer.from(value === null ? '' : String(value), 'utf8');
      let at = 0;
      for (const w of segments[j]) {
        // Each segment holds up to 255 bytes of the string (ReadStat's layout, which our reader,
        // sav-reader and haven read back); its cells are padded with blanks.
        const end = Math.min(at + 255, at + w, all.length);
        for (let k = 0; k < cellsOfWidth(w); k++) {
          const from = at + 8 * k;
          cell.fill(0x20);
          if (from < end) all.copy(cell, 0, from, Math.min(from + 8, end));
          cells.string(cell);
        }
        at = end;
      }
    }
  }
  if (opts.compressed && cells instanceof Compressed) cells.end(opts.endCode === true);
  sink.close();
  return Buffer.concat(parts);
}

/** Bytes appended to 1 MiB chunks, each pushed to `parts` when full (and at `close`). */
class Chunks {
  private buf = Buffer.allocUnsafe(1 << 20);
  private pos = 0;
  constructor(private readonly parts: Buffer[]) {}
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.close();
    this.buf = Buffer.allocUnsafe(Math.max(1 << 20, n));
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  number(x: number): void {
    this.room(8);
    this.buf.writeDoubleLE(x, this.pos);
    this.pos += 8;
  }
  string(cell: Buffer): void {
    this.bytes(cell);
  }
  close(): void {
    if (this.pos > 0) this.parts.push(Buffer.from(this.buf.subarray(0, this.pos)));
    this.pos = 0;
  }
}

/**
 * Bytecode compression (bias 100): blocks of 8 command codes, each followed by the cells its 253
 * codes announce; 1–251 a number `code − 100`, 254 a blank string cell, 255 system-missing.
 */
class Compressed {
  private readonly codes = Buffer.alloc(8);
  private readonly raw = Buffer.alloc(64);
  private n = 0;
  private rawBytes = 0;
  constructor(private readonly sink: Chunks) {}
  private code(c: number): void {
    this.codes[this.n++] = c;
    if (this.n === 8) this.flush();
  }
  private flush(): void {
    this.codes.fill(0, this.n);
    this.sink.bytes(this.codes);
    this.sink.bytes(this.raw.subarray(0, this.rawBytes));
    this.n = 0;
    this.rawBytes = 0;
  }
  number(x: number): void {
    if (x === SYSMIS) this.code(255);
    else if (Number.isInteger(x) && x >= -99 && x <= 151 && !Object.is(x, -0)) this.code(x + 100);
    else {
      this.raw.writeDoubleLE(x, this.rawBytes);
      this.rawBytes += 8;
      this.code(253);
    }
  }
  string(cell: Buffer): void {
    if (cell.every((b) => b === 0x20)) this.code(254);
    else {
      cell.copy(this.raw, this.rawBytes);
      this.rawBytes += 8;
      this.code(253);
    }
  }
  /** The last block (after a 252 code, when `endCode`), padded with zero codes. */
  end(endCode: boolean): void {
    if (endCode) this.code(252);
    if (this.n > 0) this.flush();
  }
}

/** F w.d wide enough for a column's texts (at most F40.16; display only: the values are exact). */
function numberFormat(texts: readonly string[]): { width: number; decimals: number } {
  let decimals = 0;
  let width = 8;
  for (const t of texts) {
    if (t === '') continue;
    const dot = t.indexOf('.');
    if (dot >= 0 && !/e/i.test(t)) decimals = Math.max(decimals, t.length - dot - 1);
    else if (/e/i.test(t)) decimals = 16;
    width = Math.max(width, t.length);
  }
  decimals = Math.min(decimals, 16);
  return { width: Math.min(40, Math.max(width, decimals + 3)), decimals };
}

/** `csv` (the release's CSV, header first) written as a new .sav file at `dest`, flushed. */
export async function writeSavFromCsv(
  csv: string,
  dest: string,
  columns: readonly WrittenColumn[],
): Promise<void> {
  const { header, rows } = await readReleasedCsv(csv);
  const problem = savNameProblem(header);
  if (problem) throw new InputError(`${dest}: ${problem}; release to .csv, .parquet or .xlsx instead`);
  if (rows.length > SAV_MAX_ROWS) throw new RangeError(`${rows.length} rows do not fit an SPSS file`);
  // System-missing is a double: a value equal to it would read back as missing.
  const numbers = numericValues(columns, rows, (x) => x !== SYSMIS);
  const values: (number | string | null)[][] = rows.map((r, i) =>
    r.map((v, j) => (numbers[j] ? numbers[j][i] : v)),
  );
  const vars: SavVariable[] = header.map((name, j) => {
    // An SPSS/Stata input's labelled column: its codes, with their value labels.
    const column = columns[j];
    // (SPSS holds a value label of at most 120 bytes: a longer one keeps the column as text.)
    const fits = column?.codes?.every((c) => Buffer.byteLength(c.label, 'utf8') <= 120) === true;
    const coded = fits
      ? codedValues(
          column,
          rows.map((r) => r[j]),
        )
      : undefined;
    if (coded && column.codes) {
      coded.forEach((x, i) => {
        values[i][j] = x;
      });
      const labels = column.codes.map((c) => [c.value, c.label] as const);
      return {
        name,
        type: 'numeric',
        labels,
        format: numberFormat(column.codes.map((c) => String(c.value))),
      };
    }
    if (numbers[j])
      return {
        name,
        type: 'numeric',
        format: numberFormat(numbers[j].map((x) => (x === null ? '' : String(x)))),
      };
    let width = 1;
    for (const r of rows) width = Math.max(width, Buffer.byteLength(r[j], 'utf8'));
    if (width > SAV_MAX_STRING)
      throw new RangeError(
        `column "${name}" holds a value of ${width} bytes; SPSS strings hold at most ${SAV_MAX_STRING}`,
      );
    return { name, type: 'string', width };
  });
  await writeFileNew(dest, savBytes(vars, values, { compressed: true }));
}
