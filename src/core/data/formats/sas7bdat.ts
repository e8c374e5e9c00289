/**
 * A SAS data set (.sas7bdat) as a table (labelled.ts; SAS keeps value labels in a separate
 * format catalog, so no column declares categories), read by our own parser: the one npm reader
 * (`sas7bdat` 0.1.7, unmaintained since 2016) needs the native `fs-ext`, which does not install
 * offline. SAS does not publish the format; this follows the reverse-engineered description in
 * the `sas7bdat` R package's vignette (Shotwell) and the readers in ReadStat and pandas
 * (`io/sas/sas7bdat.py`, `_sas.pyx`):
 *
 * - 32- and 64-bit files (SAS on Windows/Unix, 4- or 8-byte offsets), either byte order;
 * - a header, then pages: meta pages of subheaders (row size, column size, column text, names,
 *   attributes, formats), data pages of rows, mix pages holding both;
 * - rows stored as-is or compressed, one compressed row per subheader: RLE ("SASYZCRL",
 *   `COMPRESS=CHAR`) or RDC ("SASYZCR2", `COMPRESS=BINARY`);
 * - numeric columns are doubles stored in 3 to 8 bytes (the low bytes dropped); every NaN (SAS
 *   missing `.`, `.A` … `.Z`, `._`) is missing (the empty field); character columns are text
 *   (UTF-8 when the header says so, Windows-1252 otherwise) without trailing blanks, blank as
 *   missing;
 * - a column with a date format (DATE, MMDDYY, YYMMDD, E8601DA, …) is written as `YYYY-MM-DD`,
 *   one with a datetime format (DATETIME, E8601DT, …) as `YYYY-MM-DDTHH:MM:SS`; other numbers
 *   as JavaScript prints them.
 */
import { Bytes, Corrupt, date1960, datetime1960 } from './binary.ts';
import type { LabelledFormat, LabelledTable } from './labelled.ts';

const MAGIC = Buffer.from('000000000000000000000000c2ea8160b31411cfbd92080009c7318c181f1011', 'hex');

/** Subheader signatures, read as a 32-bit integer in the file's byte order. */
const SIGNATURE = {
  rowSize: 0xf7f7f7f7,
  columnSize: 0xf6f6f6f6,
  counts: 0xfffffc00,
  columnText: 0xfffffffd,
  columnName: 0xffffffff,
  columnAttributes: 0xfffffffc,
  format: 0xfffffbfe,
  columnList: 0xfffffffe,
} as const;
const KNOWN = new Set<number>(Object.values(SIGNATURE));

/** Page types (the high byte; the low bits carry flags): pandas `sas_constants`. */
const PAGE_DATA = 0x0100;
const PAGE_MIX = 0x0200;
const PAGE_TYPE_MASK = 0x0f00;
const PAGE_COMP = 0x9000;

/** A row longer than this (16 MiB) is taken for a damaged header rather than allocated. */
const MAX_ROW_BYTES = 1 << 24;

/** Subheader pointer flags: a truncated subheader (skipped); a compressed row. */
const TRUNCATED = 1;
const COMPRESSED = 4;

/** Formats whose value counts days (dates) or seconds (datetimes) since 1960-01-01 (pandas). */
const DATE_FORMATS = new Set(
  (
    'DATE DAY DDMMYY DOWNAME JULDAY JULIAN MMDDYY MMYY MMYYC MMYYD MMYYP MMYYS MMYYN MONNAME MONTH ' +
    'MONYY QTR QTRR NENGO WEEKDATE WEEKDATX WEEKDAY WEEKV WORDDATE WORDDATX YEAR YYMM YYMMC YYMMD ' +
    'YYMMP YYMMS YYMMN YYMON YYMMDD YYQ YYQC YYQD YYQP YYQS YYQN YYQR YYQRC YYQRD YYQRP YYQRS YYQRN ' +
    'YYMMDDP YYMMDDC E8601DA YYMMDDN MMDDYYC MMDDYYS MMDDYYD YYMMDDS B8601DA DDMMYYN YYMMDDD ' +
    'DDMMYYB DDMMYYP MMDDYYP YYMMDDB MMDDYYN DDMMYYC DDMMYYD DDMMYYS MINGUO'
  ).split(' '),
);
const DATETIME_FORMATS = new Set(
  (
    'DATETIME DTWKDATX B8601DN B8601DT B8601DX B8601DZ B8601LX E8601DN E8601DT E8601DX E8601DZ ' +
    'E8601LX DATEAMPM DTDATE DTMONYY DTYEAR TOD MDYAMPM'
  ).split(' '),
);

interface Column {
  name: string;
  offset: number;
  width: number;
  numeric: boolean;
  format: string;
}

/** Where a row's bytes are: a slice of the file, compressed when shorter than a row. */
interface RowSource {
  readonly at: number;
  readonly length: number;
}

/**
 * RDC (Ross Data Compression) decompression of one row, as pandas' `rdc_decompress` and ReadStat
 * read it: a 16-bit control word says, item by item, whether the next item is a literal byte or a
 * command (a run of one byte, or a copy of bytes already written). Throws on output that
 * overruns or falls short of the row and on a copy from before its start.
 */
export function rdcDecompress(input: Buffer, rowLength: number): Buffer {
  const out = Buffer.alloc(rowLength);
  let i = 0;
  let o = 0;
  let controlBits = 0;
  let controlMask = 0;
  const byte = () => {
    if (i >= input.length) throw new Corrupt('compressed row runs past its end');
    return input[i++];
  };
  const fill = (n: number, value: number) => {
    if (o + n > rowLength) throw new Corrupt('compressed row overruns');
    out.fill(value, o, o + n);
    o += n;
  };
  const copyBack = (offset: number, n: number) => {
    if (offset > o || o + n > rowLength) throw new Corrupt('compressed row copies outside the row');
    // Byte by byte: a copy may overlap what it writes.
    for (let k = 0; k < n; k++) out[o + k] = out[o - offset + k];
    o += n;
  };
  while (i < input.length) {
    controlMask >>>= 1;
    if (controlMask === 0) {
      controlBits = (byte() << 8) | byte();
      controlMask = 0x8000;
    }
    if ((controlBits & controlMask) === 0) {
      fill(1, byte());
      continue;
    }
    const head = byte();
    const command = head >> 4;
    const low = head & 0x0f;
    if (command === 0) {
      fill(low + 3, byte());
    } else if (command === 1) {
      const n = low + (byte() << 4) + 19;
      fill(n, byte());
    } else if (command === 2) {
      const offset = low + 3 + (byte() << 4);
      copyBack(offset, byte() + 16);
    } else {
      const offset = low + 3 + (byte() << 4);
      copyBack(offset, command);
    }
  }
  if (o !== rowLength) throw new Corrupt('compressed row is short');
  return out;
}

/**
 * RLE decompression of one row (the command set documented by ReadStat's `sas_rle.c` and pandas'
 * `rle_decompress`): each control byte's high nibble is the command, its low nibble a length.
 * Throws on a command that does not exist or output that overruns or falls short of the row.
 */
export function rleDecompress(input: Buffer, rowLength: number): Buffer {
  const out = Buffer.alloc(rowLength);
  let i = 0;
  let o = 0;
  const byte = () => {
    if (i >= input.length) throw new Corrupt('compressed row runs past its end');
    return input[i++];
  };
  const copy = (n: number) => {
    if (i + n > input.length || o + n > rowLength) throw new Corrupt('compressed row overruns');
    input.copy(out, o, i, i + n);
    i += n;
    o += n;
  };
  const fill = (n: number, value: number) => {
    if (o + n > rowLength) throw new Corrupt('compressed row overruns');
    out.fill(value, o, o + n);
    o += n;
  };
  while (i < input.length) {
    const control = input[i++];
    const command = control >> 4;
    const low = control & 0x0f;
    switch (command) {
      case 0x0:
        copy(byte() + 64 + low * 256);
        break;
      case 0x1:
        copy(byte() + 64 + low * 256 + 4096);
        break;
      case 0x2:
        copy(low + 96);
        break;
      case 0x4: {
        const n = byte() + 18 + low * 256;
        fill(n, byte());
        break;
      }
      case 0x5:
        fill(byte() + 17 + low * 256, 0x40);
        break;
      case 0x6:
        fill(byte() + 17 + low * 256, 0x20);
        break;
      case 0x7:
        fill(byte() + 17 + low * 256, 0x00);
        break;
      case 0x8:
        copy(low + 1);
        break;
      case 0x9:
        copy(low + 17);
        break;
      case 0xa:
        copy(low + 33);
        break;
      case 0xb:
        copy(low + 49);
        break;
      case 0xc:
        fill(low + 3, byte());
        break;
      case 0xd:
        fill(low + 2, 0x40);
        break;
      case 0xe:
        fill(low + 2, 0x20);
        break;
      case 0xf:
        fill(low + 2, 0x00);
        break;
      default:
        throw new Corrupt(`RLE command ${command}`);
    }
  }
  if (o !== rowLength) throw new Corrupt('compressed row is short');
  return out;
}

/**
 * Two passes over the pages through the bounded window of `Bytes` (the file is never held
 * whole): this one reads the metadata and counts the rows (a damaged file is refused before any
 * row is handed on); `rows()` walks the pages again and decodes each row as it meets it.
 */
export function parseSas7bdat(bytes: Buffer | Bytes): LabelledTable {
  const b0 = Buffer.isBuffer(bytes) ? new Bytes(bytes, true) : bytes;
  if (b0.length < 288 || !b0.slice(0, 32).equals(MAGIC)) throw new Corrupt('not a SAS data set');
  const head = Buffer.from(b0.slice(0, 288));
  const u64 = head[32] === 0x33;
  const a1 = head[35] === 0x33 ? 4 : 0;
  const b = b0.withOrder(head[37] === 0x01);
  const utf8 = head[70] === 20;
  const decoder = new TextDecoder(utf8 ? 'utf-8' : 'windows-1252');
  const il = u64 ? 8 : 4;
  const bitOffset = u64 ? 32 : 16;
  const pointerLength = u64 ? 24 : 12;

  const headerLength = b.u32(196 + a1);
  const pageLength = b.u32(200 + a1);
  const pageCount = b.uint(204 + a1, il);
  if (headerLength < 288 || pageLength < bitOffset + 8) throw new Corrupt('header');
  b.need(headerLength, pageCount * pageLength, 'pages');

  let rowLength = 0;
  let rowCount = 0;
  let mixPageRows = 0;
  let columnCount = -1;
  let compression = 'none' as 'none' | 'rle' | 'rdc';
  const texts: Buffer[] = [];
  const names: string[] = [];
  const attributes: { offset: number; width: number; numeric: boolean }[] = [];
  const formats: string[] = [];
  const text = (index: number, offset: number, length: number): string => {
    const block = texts[index];
    if (!block || offset + length > block.length) throw new Corrupt('a column text reference');
    return decoder.decode(block.subarray(offset, offset + length)).replace(/[\0 ]+$/, '');
  };

  const subheader = (at: number, length: number, signature: number): void => {
    b.need(at, length, 'subheader');
    switch (signature) {
      case SIGNATURE.rowSize:
        rowLength = b.uint(at + 5 * il, il);
        rowCount = b.uint(at + 6 * il, il);
        mixPageRows = b.uint(at + 15 * il, il);
        break;
      case SIGNATURE.columnSize:
        columnCount = b.uint(at + il, il);
        break;
      case SIGNATURE.columnText: {
        // The block is the whole subheader after its signature (ReadStat); the 2-byte size that
        // opens it counts less than that, so names may sit past it. Copied: the window moves on.
        const block = Buffer.from(b.slice(at + il, length - il, 'column text'));
        texts.push(block);
        if (texts.length === 1) {
          const literal = block.toString('latin1');
          if (literal.includes('SASYZCRL')) compression = 'rle';
          else if (literal.includes('SASYZCR2')) compression = 'rdc';
        }
        break;
      }
      case SIGNATURE.columnName: {
        const count = Math.floor((length - 2 * il - 12) / 8);
        for (let i = 0; i < count; i++) {
          const p = at + il + 8 * (i + 1);
          names.push(text(b.u16(p), b.u16(p + 2), b.u16(p + 4)));
        }
        break;
      }
      case SIGNATURE.columnAttributes: {
        const count = Math.floor((length - 2 * il - 12) / (il + 8));
        for (let i = 0; i < count; i++) {
          const p = at + il + 8 + i * (il + 8);
          attributes.push({ offset: b.uint(p, il), width: b.u32(p + il), numeric: b.u8(p + il + 6) === 1 });
        }
        break;
      }
      case SIGNATURE.format:
        formats.push(text(b.u16(at + 22 + 3 * il), b.u16(at + 24 + 3 * il), b.u16(at + 26 + 3 * il)));
        break;
      default:
        break; // counts, column list: nothing a reader needs
    }
  };

  const signatureAt = (at: number): number => {
    const first = b.u32(at);
    if (!u64) return first;
    // 64-bit files pad the 4-byte signature to 8: first in little-endian files, last in big-endian.
    const second = b.u32(at + 4);
    if (!b.little && KNOWN.has(second)) return second;
    return KNOWN.has(first) ? first : second;
  };

  /**
   * One page: its metadata subheaders read (the first pass only: `meta`), and each row it holds
   * handed to `row` (its bytes' place), `found` rows having been met on the pages before.
   */
  const page = (index: number, meta: boolean, found: number, row: (at: number, length: number) => void) => {
    const base = headerLength + index * pageLength;
    const type = b.u16(base + bitOffset);
    const blockCount = b.u16(base + bitOffset + 2);
    const subheaders = b.u16(base + bitOffset + 4);
    const pageEnd = base + pageLength;
    if ((type & PAGE_TYPE_MASK) === PAGE_DATA) {
      for (let r = 0; r < blockCount && found < rowCount; r++, found++) {
        const at = base + bitOffset + 8 + r * rowLength;
        if (at + rowLength > pageEnd) throw new Corrupt('rows overrun a page');
        row(at, rowLength);
      }
      return;
    }
    if ((type & PAGE_COMP) === PAGE_COMP) return;
    const pointers = base + bitOffset + 8;
    if (pointers + subheaders * pointerLength > pageEnd)
      throw new Corrupt('subheader pointers overrun a page');
    for (let i = 0; i < subheaders; i++) {
      const p = pointers + i * pointerLength;
      const offset = b.uint(p, il);
      const length = b.uint(p + il, il);
      const flag = b.u8(p + 2 * il);
      const kind = b.u8(p + 2 * il + 1);
      if (length === 0 || flag === TRUNCATED) continue;
      if (offset + length > pageLength) throw new Corrupt('a subheader overruns its page');
      const at = base + offset;
      if (compression !== 'none' && flag === COMPRESSED && kind === 1) {
        row(at, length);
        found++;
        continue;
      }
      const signature = signatureAt(at);
      if (KNOWN.has(signature)) {
        if (meta) subheader(at, length, signature);
      } else if (compression !== 'none' && flag === 0 && kind === 1) {
        row(at, length);
        found++;
      }
    }
    if ((type & PAGE_TYPE_MASK) === PAGE_MIX) {
      const start = base + Math.ceil((bitOffset + 8 + subheaders * pointerLength) / 8) * 8;
      const fit = rowLength > 0 ? Math.floor((pageEnd - start) / rowLength) : 0;
      const count = Math.min(mixPageRows, fit, rowCount - found);
      for (let r = 0; r < count; r++) row(start + r * rowLength, rowLength);
    }
  };

  let counted = 0;
  for (let p = 0; p < pageCount; p++) {
    page(p, true, counted, () => {
      counted++;
    });
  }
  const rowsFound = counted;

  if (columnCount < 0 || rowLength <= 0) throw new Corrupt('no row or column description');
  if (rowLength > MAX_ROW_BYTES) throw new Corrupt('row length');
  if (names.length !== columnCount || attributes.length !== columnCount)
    throw new Corrupt('column descriptions');
  if (rowsFound !== rowCount) throw new Corrupt(`${rowsFound} of ${rowCount} rows found`);
  const columns: Column[] = attributes.map((a, j) => {
    if (a.offset + a.width > rowLength || (a.numeric && (a.width < 1 || a.width > 8))) {
      throw new Corrupt('column layout');
    }
    return { name: names[j], ...a, format: (formats[j] ?? '').toUpperCase() };
  });

  const scratch = Buffer.alloc(8);
  const numberText = (c: Column, row: Buffer): string => {
    scratch.fill(0);
    // A narrow numeric keeps the double's high-order bytes.
    row.copy(scratch, b.little ? 8 - c.width : 0, c.offset, c.offset + c.width);
    const x = b.little ? scratch.readDoubleLE(0) : scratch.readDoubleBE(0);
    if (Number.isNaN(x)) return '';
    if (DATE_FORMATS.has(c.format)) return date1960(x) ?? String(x);
    if (DATETIME_FORMATS.has(c.format)) return datetime1960(x) ?? String(x);
    return String(x);
  };
  const charText = (c: Column, row: Buffer): string => {
    let end = c.offset + c.width;
    while (end > c.offset && (row[end - 1] === 0x20 || row[end - 1] === 0)) end--;
    return decoder.decode(row.subarray(c.offset, end));
  };

  return {
    names: columns.map((c) => c.name),
    labels: columns.map(() => undefined),
    *rows() {
      let found = 0;
      const batch: RowSource[] = [];
      for (let p = 0; p < pageCount; p++) {
        page(p, false, found, (at, length) => batch.push({ at, length }));
        for (const r of batch) {
          let row = b.slice(r.at, r.length, 'row');
          if (r.length < rowLength) {
            if (compression === 'none') throw new Corrupt('a short row');
            row = compression === 'rle' ? rleDecompress(row, rowLength) : rdcDecompress(row, rowLength);
          }
          yield columns.map((c) => (c.numeric ? numberText(c, row) : charText(c, row)));
        }
        found += batch.length;
        batch.length = 0;
      }
      if (found !== rowCount) throw new Corrupt(`${found} of ${rowCount} rows found`);
    },
  };
}

export const SAS7BDAT: LabelledFormat = {
  title: 'SAS data set (.sas7bdat)',
  advice: 'Save it again from SAS, or export the table as CSV (PROC EXPORT).',
  parse: parseSas7bdat,
};
