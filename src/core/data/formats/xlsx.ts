/**
 * An Excel workbook (.xlsx) as records: its first sheet, row by row (the first row is the column
 * names or a record, as a CSV's first line: the header rule, data/table.ts), each row's cells as text (numbers as JavaScript prints them, 7 not 7.0; dates as ISO dates; empty
 * cells as the empty field), read in bounded memory by our own streaming reader: the archive's
 * directory (zip.ts), then the small parts whole (the workbook, its relationships, the styles
 * that mark date cells), the shared strings into memory (`SHARED_STRINGS_MAX_BYTES`), and the
 * sheet inflated and scanned a piece at a time (xml-scan.ts), its rows handed on in chunks as
 * they close. `read-excel-file` (which parses the sheet whole into one array of rows) reads a
 * cell the same way: its rules are followed here (parseCell.js, isDateFormat.js,
 * parseExcelTimestamp.js of version 9.3.17), and the tests compare the two on fixtures.
 * Rows are as wide as the first row; a corrupt file is refused with a message naming it.
 */
import { InputError } from '../../errors.ts';
import type { CsvReadOptions, RecordChunk } from '../records.ts';
import { CHUNK_RECORDS } from '../records.ts';
import { Corrupt } from './binary.ts';
import { type XmlHandler, XmlScanner } from './xml-scan.ts';
import { type ZipEntry, zipEntries, zipPart } from './zip.ts';

/** The text of a cell as a CSV export of the sheet would hold it. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return String(v);
}

/**
 * Most bytes of shared strings (xl/sharedStrings.xml, inflated) a workbook may hold. The sheet
 * refers to them by index, in any order, so they are held in memory while the sheet is read: at
 * most about this much (a string's text is shorter than its XML). Their number grows with the
 * distinct texts, not the rows; a workbook over the bound is refused before a row is read.
 */
export const SHARED_STRINGS_MAX_BYTES = 256 * 2 ** 20;
/** Most bytes of a part read whole (the workbook, its relationships, the styles). */
const SMALL_PART_MAX_BYTES = 32 * 2 ** 20;

const REL =
  /^http:\/\/(schemas\.openxmlformats\.org\/officeDocument\/2006|purl\.oclc\.org\/ooxml\/officeDocument)\/relationships\//;

/** The number formats Excel builds in that show dates (read-excel-file's BUILT_IN_DATE_FORMAT_IDS). */
const BUILT_IN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54,
  55, 56, 57, 58, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81,
]);
const DATE_TOKENS = new Set(
  's ss m mm h hh am pm a p d dd ddd dddd aaa aaaa aaaaa mmm mmmm mmmmm y yy yyyy e ee eeee'.split(' '),
);

/** Whether a custom number format shows a date (read-excel-file's isDateFormatTemplate). */
export function isDateFormatTemplate(template: string): boolean {
  const t = template.toLowerCase().replace(/;@$/, '').replace(/\\./g, ' ');
  return t.split(';').some((sub) => {
    const tokens = sub
      .replace(/"[^"]*"/g, ' ')
      .replace(/(\[?[smhd]{1,2}\]?)[.,]00?0?/g, '$1')
      .replace(/\[([smhd]{1,2})\]/g, '$1')
      .replace(/\[[^\]]*\]/g, '')
      .split(/[^a-z0#?%]+/)
      .filter((x) => x);
    return tokens.length > 0 && tokens.every((x) => DATE_TOKENS.has(x));
  });
}

/** An Excel serial date as epoch milliseconds (1900 system with its phantom 29 February, or 1904). */
function excelTimestamp(serial: number, epoch1904: boolean): number {
  const days = epoch1904 ? serial + 4 * 365 + 2 : serial;
  return Math.floor((days - (2 + 70 * 365 + 17)) * 86_400_000);
}

/** `_xHHHH_` escapes of characters XML cannot hold (ECMA-376 ST_Xstring). */
function unescapeXlsx(s: string): string {
  return s.indexOf('_x') < 0
    ? s
    : s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/** A cell address's row and column, both 1-based ("AB12" → [12, 28]). */
function cellAddress(ref: string): [number, number] {
  let column = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      const row = Number(ref.slice(i));
      if (!Number.isSafeInteger(row) || row < 1 || column < 1) break;
      return [row, column];
    }
    if (c < 65 || c > 90) break;
    column = column * 26 + (c - 64);
  }
  throw new Corrupt(`cell address ${ref}`);
}

/** What the small parts say: the sheet to read, the shared strings and styles, the date system. */
interface Workbook {
  readonly entries: ReadonlyMap<string, ZipEntry>;
  readonly sheet: ZipEntry;
  readonly sharedStrings?: ZipEntry;
  readonly styles?: ZipEntry;
  readonly epoch1904: boolean;
}

async function partText(file: string, entry: ZipEntry, max: number, what: () => Error): Promise<string> {
  if (entry.size > max) throw what();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  let bytes = 0;
  for await (const chunk of zipPart(file, entry)) {
    bytes += chunk.length;
    if (bytes > max) throw what();
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** Scans a part as it is inflated (never whole): UTF-8 decoded across the pieces' seams. */
async function scanPart(file: string, entry: ZipEntry, handler: XmlHandler): Promise<void> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const scanner = new XmlScanner(handler);
  for await (const chunk of zipPart(file, entry)) scanner.write(decoder.decode(chunk, { stream: true }));
  scanner.write(decoder.decode());
  scanner.end();
}

function scanText(text: string, handler: XmlHandler): void {
  const scanner = new XmlScanner(handler);
  scanner.write(text);
  scanner.end();
}

function part(entries: ReadonlyMap<string, ZipEntry>, name: string): ZipEntry {
  const entry = entries.get(name);
  if (!entry) throw new Corrupt(`no ${name}`);
  return entry;
}

async function openWorkbook(file: string): Promise<Workbook> {
  const entries = zipEntries(file);
  const small = (name: string) =>
    partText(file, part(entries, name), SMALL_PART_MAX_BYTES, () => new Corrupt(`${name} is too large`));
  const rels = new Map<string, { type: string; path: string }>();
  scanText(await small('xl/_rels/workbook.xml.rels'), {
    open(name, a) {
      if (name !== 'Relationship' || !a.Id || !a.Type || !a.Target) return;
      // A target is relative to xl/, or absolute from the archive's root.
      rels.set(a.Id, {
        type: a.Type.replace(REL, ''),
        path: a.Target.startsWith('/') ? a.Target.slice(1) : `xl/${a.Target}`,
      });
    },
    close() {},
    text() {},
  });
  let epoch1904: boolean | undefined;
  let firstSheet: string | undefined;
  scanText(await small('xl/workbook.xml'), {
    open(name, a) {
      if (name === 'workbookPr' && epoch1904 === undefined) epoch1904 = a.date1904 === '1';
      else if (name === 'sheet' && a.name && firstSheet === undefined) firstSheet = a.id;
    },
    close() {},
    text() {},
  });
  const sheetRel = firstSheet === undefined ? undefined : rels.get(firstSheet);
  if (sheetRel?.type !== 'worksheet') throw new Corrupt('no first worksheet');
  const byType = (type: string) => {
    for (const r of rels.values()) if (r.type === type) return part(entries, r.path);
    return undefined;
  };
  return {
    entries,
    sheet: part(entries, sheetRel.path),
    sharedStrings: byType('sharedStrings'),
    styles: byType('styles'),
    epoch1904: epoch1904 ?? false,
  };
}

/** Per cell style (`<c s>`), whether it shows a date; undefined: the workbook has no styles part. */
async function dateStyles(file: string, book: Workbook): Promise<boolean[] | undefined> {
  if (!book.styles) return undefined;
  const text = await partText(file, book.styles, SMALL_PART_MAX_BYTES, () => new Corrupt('styles too large'));
  const custom = new Map<number, string | undefined>();
  const base: (number | undefined)[] = [];
  const cells: { numFmt?: number; xfId?: number }[] = [];
  let where: 'base' | 'cells' | undefined;
  scanText(text, {
    open(name, a) {
      if (name === 'numFmt') {
        const id = Number(a.numFmtId);
        // read-excel-file takes a template only from id 100 up (Excel's own ids are fixed below).
        custom.set(id, id >= 100 ? a.formatCode : undefined);
      } else if (name === 'cellStyleXfs') where = 'base';
      else if (name === 'cellXfs') where = 'cells';
      else if (name === 'xf' && where) {
        const numFmt = a.numFmtId ? Number(a.numFmtId) : undefined;
        if (where === 'base') base.push(numFmt);
        else cells.push({ numFmt, xfId: a.xfId ? Number(a.xfId) : undefined });
      }
    },
    close(name) {
      if (name === 'cellStyleXfs' || name === 'cellXfs') where = undefined;
    },
    text() {},
  });
  return cells.map(({ numFmt, xfId }) => {
    // A cell style's own number format wins over the base style's it extends.
    const id = numFmt ?? (xfId ? base[xfId] : undefined);
    if (id === undefined) return false;
    if (BUILT_IN_DATE_FORMATS.has(id)) return true;
    const template = custom.get(id);
    return template !== undefined && isDateFormatTemplate(template);
  });
}

function tooManyStrings(file: string): InputError {
  return new InputError(
    `${file}: the workbook's shared strings exceed ${SHARED_STRINGS_MAX_BYTES / 2 ** 20} MiB, more than RAP Studio ` +
      'holds in memory while it reads the sheet. Export the sheet as CSV (or Parquet) and use that file.',
    { file },
  );
}

/** The shared strings, in order: each `<si>`'s `<t>` text, rich-text runs joined, phonetic runs left out. */
async function sharedStrings(file: string, book: Workbook): Promise<string[]> {
  const entry = book.sharedStrings;
  if (!entry) return [];
  if (entry.size > SHARED_STRINGS_MAX_BYTES) throw tooManyStrings(file);
  const strings: string[] = [];
  let si = false;
  let t = false;
  let r = false;
  let rPh = false;
  let s = '';
  await scanPart(file, entry, {
    open(name) {
      if (name === 'si') {
        si = true;
        s = '';
      } else if (!si) return;
      else if (name === 't') t = true;
      else if (name === 'r') r = true;
      else if (name === 'rPh') rPh = true;
    },
    close(name) {
      if (name === 'si') {
        strings.push(unescapeXlsx(s));
        si = false;
      } else if (name === 't') t = false;
      else if (name === 'r') r = false;
      else if (name === 'rPh') rPh = false;
    },
    text(x) {
      if (si && t && !rPh) s = r ? s + x : x;
    },
  });
  return strings;
}

/** A sheet row as it closes: its 1-based number and its cells' text (null: no value). */
interface SheetRow {
  readonly number: number;
  readonly cells: (string | null)[];
}

/**
 * The sheet's rows from its XML, in order, each cell's value by read-excel-file's rules (with its
 * default of trimmed text, an empty text an empty cell); a cell those rules call invalid (a
 * shared string index out of range, a number that is not one, an unknown type or style) and a
 * row or cell out of order are faults, as that library refuses them.
 */
class SheetRows implements XmlHandler {
  readonly done: SheetRow[] = [];
  /** Whether `</sheetData>` has passed (a sheet without it was cut short). */
  ended = false;
  private inData = false;
  private rowNumber: number | undefined;
  private row: (string | null)[] | undefined;
  private lastRow = 0;
  private lastColumn = 0;
  // the open cell
  private cell: Readonly<Record<string, string>> | undefined;
  private v: string | undefined;
  private inline: string | undefined;
  private inV = false;
  private inIs = false;
  private inT = false;
  private inR = false;
  private inRPh = false;

  constructor(
    private readonly strings: readonly string[],
    private readonly dates: readonly boolean[] | undefined,
    private readonly epoch1904: boolean,
  ) {}

  open(name: string, a: Readonly<Record<string, string>>): void {
    if (name === 'sheetData') {
      this.inData = true;
      return;
    }
    if (!this.inData) return;
    if (name === 'row') {
      this.rowNumber = a.r ? Number(a.r) : undefined;
      if (this.rowNumber !== undefined && !(Number.isSafeInteger(this.rowNumber) && this.rowNumber > 0)) {
        throw new Corrupt(`row number ${a.r}`);
      }
      this.row = [];
    } else if (name === 'c') {
      this.cell = a;
      this.v = undefined;
      this.inline = undefined;
    } else if (this.cell) {
      if (name === 'v') {
        this.inV = true;
        this.v ??= '';
      } else if (name === 'is') {
        this.inIs = true;
        this.inline = '';
      } else if (name === 't') this.inT = true;
      else if (name === 'r') this.inR = true;
      else if (name === 'rPh') this.inRPh = true;
    }
  }

  close(name: string): void {
    if (name === 'sheetData') {
      this.inData = false;
      this.ended = true;
      return;
    }
    if (!this.inData) return;
    if (name === 'row') this.closeRow();
    else if (name === 'c') this.closeCell();
    else if (name === 'v') this.inV = false;
    else if (name === 'is') this.inIs = false;
    else if (name === 't') this.inT = false;
    else if (name === 'r') this.inR = false;
    else if (name === 'rPh') this.inRPh = false;
  }

  text(x: string): void {
    if (!this.cell) return;
    if (this.inV) this.v += x;
    else if (this.inIs && this.inT && !this.inRPh) this.inline = this.inR ? this.inline + x : x;
  }

  private closeRow(): void {
    const number = this.rowNumber ?? this.lastRow + 1;
    if (number <= this.lastRow) throw new Corrupt(`row ${number} after row ${this.lastRow}`);
    this.done.push({ number, cells: this.row ?? [] });
    this.lastRow = number;
    this.lastColumn = 0;
    this.row = undefined;
    this.rowNumber = undefined;
  }

  private closeCell(): void {
    const a = this.cell!;
    this.cell = undefined;
    const [rowNumber, column] = a.r
      ? cellAddress(a.r)
      : [this.rowNumber ?? this.lastRow + 1, this.lastColumn + 1];
    this.rowNumber ??= rowNumber;
    if (rowNumber !== this.rowNumber || column <= this.lastColumn) {
      throw new Corrupt(`cell ${a.r ?? column} out of place`);
    }
    this.lastColumn = column;
    const value = this.value(a.t, a.s);
    if (value === null) return;
    const row = this.row!;
    while (row.length < column - 1) row.push(null);
    row.push(value);
  }

  /** A cell's text, or null for an empty cell (read-excel-file's parseCell, then trim). */
  private value(t: string | undefined, s: string | undefined): string | null {
    const v = this.v;
    const text = (x: string) => {
      const trimmed = x.trim();
      return trimmed === '' ? null : trimmed;
    };
    switch (t ?? 'n') {
      case 'str':
        return v ? text(unescapeXlsx(v)) : null;
      case 'inlineStr':
        return this.inline === undefined ? null : text(unescapeXlsx(this.inline));
      case 's': {
        if (!v) return null;
        const i = Number(v);
        const str = this.strings[i];
        if (str === undefined) throw new Corrupt(`shared string ${v}`);
        return text(str);
      }
      case 'b':
        if (!v) return null;
        if (v === '1') return 'true';
        if (v === '0') return 'false';
        throw new Corrupt(`boolean ${v}`);
      case 'e':
        return null;
      case 'd': {
        if (!v) return null;
        const d = new Date(v);
        if (Number.isNaN(d.getTime())) throw new Corrupt(`date ${v}`);
        return cellText(d);
      }
      case 'n': {
        if (!v) return null;
        if (s && this.dates) {
          const style = Number(s);
          const isDate = this.dates[style];
          if (isDate === undefined) throw new Corrupt(`cell style ${s}`);
          if (isDate) {
            const serial = Number(v);
            if (Number.isNaN(serial)) throw new Corrupt(`date ${v}`);
            return cellText(new Date(excelTimestamp(serial, this.epoch1904)));
          }
        }
        const n = Number(v);
        if (Number.isNaN(n)) throw new Corrupt(`number ${v}`);
        return String(n);
      }
      default:
        throw new Corrupt(`cell type ${t}`);
    }
  }
}

function damaged(file: string): InputError {
  return new InputError(
    `${file}: not a readable Excel workbook (.xlsx); the file is damaged or of another kind. Open and save it ` +
      'again in Excel, or export the sheet as CSV.',
    { file },
  );
}

/**
 * The sheet's non-blank rows (a blank row is skipped, as a blank CSV line; blank rows below the
 * last are not counted), `line` its sheet row, each as wide as the header row (the first
 * non-blank one): a data row's empty cells past the last are empty fields, and a value past
 * the header's last column makes a ragged row (a longer record, rejected as a CSV's is).
 */
export async function* xlsxChunks(file: string, _opts?: CsvReadOptions): AsyncGenerator<RecordChunk> {
  let rows: SheetRows;
  let book: Workbook;
  try {
    book = await openWorkbook(file);
    rows = new SheetRows(await sharedStrings(file, book), await dateStyles(file, book), book.epoch1904);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw damaged(file);
  }
  let width: number | undefined;
  let lastLine = 0;
  /** Blank rows not yet counted: only those above a non-blank row are. */
  let pending = 0;
  let blank = 0;
  let records: string[][] = [];
  let lines: number[] = [];
  const take = () => {
    for (const row of rows.done) {
      pending += row.number - lastLine - 1; // rows the sheet leaves out are blank
      lastLine = row.number;
      if (row.cells.length === 0) {
        pending++;
        continue;
      }
      blank += pending;
      pending = 0;
      width ??= row.cells.length;
      const fields = row.cells.map((c) => c ?? ''); // cell text is trimmed already (read-excel-file's default)
      while (fields.length < width) fields.push('');
      records.push(fields);
      lines.push(row.number);
    }
    rows.done.length = 0;
  };
  // The sheet inflated and scanned a piece at a time; each chunk leaves as it fills.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const scanner = new XmlScanner(rows);
  try {
    for await (const piece of zipPart(file, book.sheet)) {
      scanner.write(decoder.decode(piece, { stream: true }));
      take();
      while (records.length >= CHUNK_RECORDS) {
        yield { records: records.slice(0, CHUNK_RECORDS), lines: lines.slice(0, CHUNK_RECORDS), blank };
        records = records.slice(CHUNK_RECORDS);
        lines = lines.slice(CHUNK_RECORDS);
        blank = 0;
      }
    }
    scanner.write(decoder.decode());
    scanner.end();
    if (!rows.ended) throw new Corrupt('the sheet ends before its data does');
    take();
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw damaged(file);
  }
  if (records.length > 0 || blank > 0) yield { records, lines, blank };
}
