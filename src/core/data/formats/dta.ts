/**
 * A Stata data file (.dta) as a labelled table (labelled.ts), read by our own parser: no
 * maintained npm reader exists (checked November 2026: none on the registry reads .dta). The
 * layout follows Stata's published description (`help dta`, "Description of .dta file format")
 * and the readers in pandas (`io/stata.py`) and ReadStat:
 *
 * - releases 117, 118 and 119 (Stata 13 to 18: tagged sections, a map of their offsets, strL
 *   long strings) and the older 114 and 115 (Stata 10 to 12: fixed header, no strL);
 * - both byte orders; text in UTF-8 (118, 119) or Windows-1252 (older releases);
 * - byte, int, long, float, double and str# columns, and strL (117+);
 * - system missing `.` and the extended missing values `.a` … `.z` are missing (the empty
 *   field): every value above the type's largest valid value, as Stata defines them;
 * - value labels: a value with a label is written as its label, and the label set becomes the
 *   column's declared categories (public metadata), as for SPSS files; labels on missing codes
 *   are dropped (a missing value stays missing);
 * - a column formatted as a date (`%td…`, `%d…`) is written as `YYYY-MM-DD`, a datetime
 *   (`%tc…`, `%tC…`) as `YYYY-MM-DDTHH:MM:SS`; other numbers as JavaScript prints them (a float
 *   by its shortest float32 text).
 */
import { Bytes, Corrupt, cString, type Decoder, date1960, datetime1960, float32Text } from './binary.ts';
import type { LabelledFormat, LabelledTable } from './labelled.ts';
import { UnsupportedVariant } from './labelled.ts';

type DtaType =
  | { readonly kind: 'str'; readonly width: number }
  | { readonly kind: 'strL' }
  | { readonly kind: 'byte' | 'int' | 'long' | 'float' | 'double' };

const WIDTH = { byte: 1, int: 2, long: 4, float: 4, double: 8 } as const;

/** The largest valid value of each integer type; anything above is a missing code. */
const MAX_VALID = { byte: 100, int: 32_740, long: 2_147_483_620 } as const;
/** System missing `.` of the float types (2^127, 2^1023); it and everything above are missing. */
const FLOAT_MISSING = 2 ** 127;
const DOUBLE_MISSING = 2 ** 1023;

function widthOf(t: DtaType): number {
  return t.kind === 'str' ? t.width : t.kind === 'strL' ? 8 : WIDTH[t.kind];
}

/** Release 117+ type codes. */
function newType(code: number): DtaType {
  if (code >= 1 && code <= 2045) return { kind: 'str', width: code };
  switch (code) {
    case 32768:
      return { kind: 'strL' };
    case 65526:
      return { kind: 'double' };
    case 65527:
      return { kind: 'float' };
    case 65528:
      return { kind: 'long' };
    case 65529:
      return { kind: 'int' };
    case 65530:
      return { kind: 'byte' };
    default:
      throw new Corrupt(`variable type ${code}`);
  }
}

/** Release 114/115 type codes. */
function oldType(code: number): DtaType {
  if (code >= 1 && code <= 244) return { kind: 'str', width: code };
  switch (code) {
    case 251:
      return { kind: 'byte' };
    case 252:
      return { kind: 'int' };
    case 253:
      return { kind: 'long' };
    case 254:
      return { kind: 'float' };
    case 255:
      return { kind: 'double' };
    default:
      throw new Corrupt(`variable type ${code}`);
  }
}

interface Layout {
  readonly b: Bytes;
  readonly release: number;
  readonly decoder: Decoder;
  readonly names: string[];
  readonly types: DtaType[];
  readonly formats: string[];
  readonly labelNames: string[];
  readonly rows: number;
  readonly dataStart: number;
  /** Label set name → value → label. */
  readonly labelSets: Map<string, Map<number, string>>;
  /** strL key (the 8 bytes of a data cell, hex) → text. */
  readonly strls: Map<string, string>;
}

/** A value-label table (the same in every release): n, text length, offsets, values, text. */
function labelTable(b: Bytes, at: number, length: number, decoder: Decoder): Map<number, string> {
  b.need(at, length, 'value labels');
  const n = b.i32(at);
  const textLength = b.i32(at + 4);
  if (n < 0 || textLength < 0 || 8 + 8 * n + textLength > length) throw new Corrupt('value label table');
  const text = b.slice(at + 8 + 8 * n, textLength);
  const out = new Map<number, string>();
  for (let i = 0; i < n; i++) {
    const off = b.i32(at + 8 + 4 * i);
    const value = b.i32(at + 8 + 4 * n + 4 * i);
    if (off < 0 || off >= textLength) throw new Corrupt('value label offset');
    if (value > MAX_VALID.long) continue; // a label on .a … .z: the value stays missing
    out.set(value, cString(text.subarray(off), decoder));
  }
  return out;
}

function fixedTexts(b: Bytes, at: number, count: number, width: number, decoder: Decoder): string[] {
  b.need(at, count * width, 'variable table');
  return Array.from({ length: count }, (_, i) => cString(b.slice(at + i * width, width), decoder));
}

/** Releases 117, 118, 119: `<stata_dta><header>…` with a map of section offsets. */
function tagged(b0: Bytes): Layout {
  let o = b0.expect(0, '<stata_dta><header><release>');
  const release = Number(b0.latin1(o, 3));
  if (release !== 117 && release !== 118 && release !== 119) {
    throw new UnsupportedVariant(`Stata release ${b0.latin1(o, 3)}`);
  }
  o = b0.expect(o + 3, '</release><byteorder>');
  const order = b0.latin1(o, 3);
  if (order !== 'LSF' && order !== 'MSF') throw new Corrupt('byte order');
  const b = b0.withOrder(order === 'LSF');
  o = b.expect(o + 3, '</byteorder><K>');
  const k = release === 119 ? b.u32(o) : b.u16(o);
  o = b.expect(o + (release === 119 ? 4 : 2), '</K><N>');
  const n = release === 117 ? b.u32(o) : b.u64(o);
  o = b.expect(o + (release === 117 ? 4 : 8), '</N><label>');
  const labelLength = release === 117 ? b.u8(o) : b.u16(o);
  o = b.expect(o + (release === 117 ? 1 : 2) + labelLength, '</label><timestamp>');
  o = b.expect(o + 1 + b.u8(o), '</timestamp></header><map>');
  const map = Array.from({ length: 14 }, (_, i) => b.u64(o + 8 * i));
  const section = (i: number, tag: string) => b.expect(map[i], tag);
  const decoder = new TextDecoder(release === 117 ? 'windows-1252' : 'utf-8');
  const nameWidth = release === 117 ? 33 : 129;

  const typesAt = section(2, '<variable_types>');
  b.need(typesAt, 2 * k, 'variable types');
  const types = Array.from({ length: k }, (_, i) => newType(b.u16(typesAt + 2 * i)));
  const names = fixedTexts(b, section(3, '<varnames>'), k, nameWidth, decoder);
  const formats = fixedTexts(b, section(5, '<formats>'), k, release === 117 ? 49 : 57, decoder);
  const labelNames = fixedTexts(b, section(6, '<value_label_names>'), k, nameWidth, decoder);
  const dataStart = section(9, '<data>');

  const strls = new Map<string, string>();
  let s = section(10, '<strls>');
  while (!b.has(s, '</strls>')) {
    s = b.expect(s, 'GSO');
    const key = strlKey(b, s, release);
    const oWidth = release === 117 ? 4 : 8;
    const t = b.u8(s + 4 + oWidth);
    const length = b.u32(s + 5 + oWidth);
    const body = b.slice(s + 9 + oWidth, length, 'strL');
    // Type 130 is text with a terminating NUL; 129 binary (read as text all the same).
    strls.set(key, t === 130 ? cString(body, decoder) : decoder.decode(body));
    s += 9 + oWidth + length;
  }

  const labelSets = new Map<string, Map<number, string>>();
  let l = section(11, '<value_labels>');
  while (!b.has(l, '</value_labels>')) {
    l = b.expect(l, '<lbl>');
    const length = b.i32(l);
    if (length < 8) throw new Corrupt('value label length');
    const name = cString(b.slice(l + 4, nameWidth), decoder);
    const tableAt = l + 4 + nameWidth + 3;
    labelSets.set(name, labelTable(b, tableAt, length, decoder));
    l = b.expect(tableAt + length, '</lbl>');
  }
  return { b, release, decoder, names, types, formats, labelNames, rows: n, dataStart, labelSets, strls };
}

/**
 * A strL's (v, o) key as the 8 bytes a data cell holds: 117 stores v and o in 4 bytes each
 * everywhere; 118 and 119 store v in 4 and o in 8 bytes in the strL section but pack them into
 * 8 bytes in a cell (v in 2 bytes in 118, 3 in 119; pandas `_read_strls`).
 */
function strlKey(b: Bytes, at: number, release: number): string {
  if (release === 117) return b.slice(at, 8).toString('hex');
  const raw = b.slice(at, 12);
  const v = release === 118 ? 2 : 3;
  const key = b.little
    ? Buffer.concat([raw.subarray(0, v), raw.subarray(4, 12 - v)])
    : Buffer.concat([raw.subarray(4 - v, 4), raw.subarray(4 + v, 12)]);
  return key.toString('hex');
}

/** Releases 114 and 115: a fixed header, then the descriptors, expansion fields, data, labels. */
function fixed(b0: Bytes): Layout {
  const release = b0.u8(0);
  if (release !== 114 && release !== 115) {
    throw release >= 102 && release <= 113
      ? new UnsupportedVariant(`Stata release ${release}, older than Stata 10`)
      : new Corrupt('not a Stata file');
  }
  const order = b0.u8(1);
  if (order !== 1 && order !== 2) throw new Corrupt('byte order');
  const b = b0.withOrder(order === 2);
  const k = b.u16(4);
  const n = b.u32(6);
  const decoder = new TextDecoder('windows-1252');
  let o = 4 + 2 + 4 + 81 + 18;
  b.need(o, k, 'variable types');
  const types = Array.from({ length: k }, (_, i) => oldType(b.u8(o + i)));
  o += k;
  const names = fixedTexts(b, o, k, 33, decoder);
  o += 33 * k + 2 * (k + 1);
  const formats = fixedTexts(b, o, k, 49, decoder);
  o += 49 * k;
  const labelNames = fixedTexts(b, o, k, 33, decoder);
  o += 33 * k + 81 * k;
  // Expansion fields: (type byte, 4-byte length, contents) until a zero type and length.
  for (;;) {
    const type = b.u8(o);
    const length = b.i32(o + 1);
    if (length < 0) throw new Corrupt('expansion field');
    o += 5;
    if (type === 0 && length === 0) break;
    b.need(o, length, 'expansion field');
    o += length;
  }
  const dataStart = o;
  const rowWidth = types.reduce((w, t) => w + widthOf(t), 0);
  b.need(dataStart, rowWidth * n, 'data');
  const labelSets = new Map<string, Map<number, string>>();
  for (let l = dataStart + rowWidth * n; l < b.length; ) {
    const length = b.i32(l);
    if (length < 8) throw new Corrupt('value label length');
    const name = cString(b.slice(l + 4, 33), decoder);
    labelSets.set(name, labelTable(b, l + 40, length, decoder));
    l += 40 + length;
  }
  return {
    b,
    release,
    decoder,
    names,
    types,
    formats,
    labelNames,
    rows: n,
    dataStart,
    labelSets,
    strls: new Map(),
  };
}

/** How a numeric column's values become text: by its display format. */
function numberText(format: string): (x: number) => string {
  const f = format.replace(/^%-?/, '');
  if (/^t?d/.test(f)) return (x) => date1960(x) ?? String(x);
  if (/^t[cC]/.test(f)) return (x) => datetime1960(x / 1000) ?? String(x);
  return String;
}

/**
 * The header, labels and strLs are read when called; the rows as `rows()` walks them, through the
 * bounded window of `Bytes` (a file is never held whole; strL texts, when the file has any, are).
 */
export function parseDta(bytes: Buffer | Bytes): LabelledTable {
  const first = Buffer.isBuffer(bytes) ? new Bytes(bytes, true) : bytes.withOrder(true);
  const layout = first.has(0, '<stata_dta>') ? tagged(first) : fixed(first);
  const { b, types, rows, dataStart, decoder, strls } = layout;
  const widths = types.map(widthOf);
  const rowWidth = widths.reduce((a, w) => a + w, 0);
  const dataAt = dataStart;
  if (rowWidth === 0 && rows > 0) throw new Corrupt('rows without columns');
  b.need(dataAt, rowWidth * rows, 'data');
  if (layout.release >= 117) b.expect(dataAt + rowWidth * rows, '</data>');
  const offsets: number[] = [];
  widths.reduce((at, w) => {
    offsets.push(at);
    return at + w;
  }, 0);
  const texts = layout.formats.map(numberText);
  const labels = layout.labelNames.map((name, j) => {
    const set = name ? layout.labelSets.get(name) : undefined;
    if (!set || types[j].kind === 'str' || types[j].kind === 'strL') return undefined;
    const text = texts[j];
    return new Map([...set].sort(([a], [c]) => a - c).map(([v, label]) => [text(v), label]));
  });

  function cell(at: number, j: number): string {
    const t = types[j];
    switch (t.kind) {
      case 'str':
        return cString(b.slice(at, t.width), decoder);
      case 'strL': {
        const key = b.slice(at, 8).toString('hex');
        if (/^0+$/.test(key)) return '';
        const s = strls.get(key);
        if (s === undefined) throw new Corrupt('a strL without its text');
        return s;
      }
      case 'byte': {
        const x = b.i8(at);
        return x > MAX_VALID.byte ? '' : texts[j](x);
      }
      case 'int': {
        const x = b.i16(at);
        return x > MAX_VALID.int ? '' : texts[j](x);
      }
      case 'long': {
        const x = b.i32(at);
        return x > MAX_VALID.long ? '' : texts[j](x);
      }
      case 'float': {
        const x = b.f32(at);
        return Number.isNaN(x) || x >= FLOAT_MISSING
          ? ''
          : texts[j] === String
            ? float32Text(x)
            : texts[j](x);
      }
      case 'double': {
        const x = b.f64(at);
        return Number.isNaN(x) || x >= DOUBLE_MISSING ? '' : texts[j](x);
      }
    }
  }

  return {
    names: layout.names,
    labels,
    *rows() {
      for (let i = 0; i < rows; i++) {
        const at = dataAt + i * rowWidth;
        yield types.map((_, j) => cell(at + offsets[j], j));
      }
    },
  };
}

export const DTA: LabelledFormat = {
  title: 'Stata data file (.dta)',
  advice: 'Save it again from Stata (`save`, or `saveold` for an older release), or export the table as CSV.',
  parse: parseDta,
};
