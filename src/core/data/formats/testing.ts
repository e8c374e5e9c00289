/**
 * Test fixtures in formats the tests cannot otherwise make: a minimal .xlsx writer (a ZIP of
 * stored entries holding one sheet of inline strings and numbers) and a SAS
 * .sas7bdat writer for the layouts no writer on this machine makes (32-bit, big-endian, RLE and RDC
 * rows, mix pages). The tests' .sav files come from the production writer (write-sav.ts: `savBytes`).
 */
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A ZIP archive of `entries`, stored, or deflated with the sizes and CRC in a data descriptor
 * after each part (as write-excel-file and Excel write them; the local header's are zero).
 */
export function zipBytes(entries: readonly { name: string; data: Buffer }[], deflate = false): Buffer {
  return zip(entries, deflate);
}

function zip(entries: readonly { name: string; data: Buffer }[], deflate = false): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data);
    const data = deflate ? deflateRawSync(e.data) : e.data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    if (deflate) {
      local.writeUInt16LE(8, 6); // sizes and CRC in the data descriptor
      local.writeUInt16LE(8, 8);
    } else {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(data.length, 18);
      local.writeUInt32LE(e.data.length, 22);
    }
    local.writeUInt16LE(name.length, 26);
    const descriptor = Buffer.alloc(deflate ? 16 : 0);
    if (deflate) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(data.length, 8);
      descriptor.writeUInt32LE(e.data.length, 12);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    if (deflate) {
      central.writeUInt16LE(8, 8);
      central.writeUInt16LE(8, 10);
    }
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data, descriptor);
    centrals.push(central, name);
    offset += local.length + name.length + data.length + descriptor.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function columnName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** The parts of a one-sheet workbook beside its sheet XML (`xlsxParts`). */
export interface WorkbookParts {
  /** The `<sheetData>` element's inside. */
  readonly sheetData: string;
  /** The `<sst>` element's inside (the `<si>` items), when the workbook has shared strings. */
  readonly sharedStrings?: string;
  /** The `<styleSheet>` element's inside, when the workbook has styles. */
  readonly styles?: string;
  /** 1904 date system. */
  readonly date1904?: boolean;
  readonly deflate?: boolean;
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A one-sheet workbook from its parts' XML (the reader's fixtures: shared strings, styles, dates). */
export function xlsxParts(p: WorkbookParts): Buffer {
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="${RELS}/${type}" Target="${target}"/>`;
  const files: Record<string, string> = {
    '[Content_Types].xml': `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    '_rels/.rels': `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`,
    'xl/workbook.xml': `${XML}<workbook xmlns="${MAIN}" xmlns:r="${RELS}">${p.date1904 ? '<workbookPr date1904="1"/>' : '<workbookPr/>'}<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'worksheet', 'worksheets/sheet1.xml')}${p.sharedStrings === undefined ? '' : rel('rId2', 'sharedStrings', 'sharedStrings.xml')}${p.styles === undefined ? '' : rel('rId3', 'styles', '/xl/styles.xml')}</Relationships>`,
    'xl/worksheets/sheet1.xml': `${XML}<worksheet xmlns="${MAIN}"><dimension ref="A1"/><sheetData>${p.sheetData}</sheetData></worksheet>`,
  };
  if (p.sharedStrings !== undefined)
    files['xl/sharedStrings.xml'] = `${XML}<sst xmlns="${MAIN}">${p.sharedStrings}</sst>`;
  if (p.styles !== undefined)
    files['xl/styles.xml'] = `${XML}<styleSheet xmlns="${MAIN}">${p.styles}</styleSheet>`;
  return zip(
    Object.entries(files).map(([name, text]) => ({ name, data: Buffer.from(text, 'utf8') })),
    p.deflate,
  );
}

/** A one-sheet workbook: strings as inline strings, numbers as numbers, null as no cell. */
export function xlsxBytes(rows: readonly (readonly (string | number | null)[])[]): Buffer {
  const sheetRows = rows
    .map((row, r) => {
      const cells = row
        .map((v, c) => {
          const ref = `${columnName(c)}${r + 1}`;
          if (v === null) return '';
          if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
          return `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${cells}</row>`;
    })
    .join('');
  const files: Record<string, string> = {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    'xl/workbook.xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    'xl/_rels/workbook.xml.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    'xl/worksheets/sheet1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`,
  };
  return zip(Object.entries(files).map(([name, text]) => ({ name, data: Buffer.from(text, 'utf8') })));
}

/** A column of a test SAS data set: numeric (stored in `width` bytes, 3 … 8) or character. */
export interface SasColumn {
  readonly name: string;
  readonly type: 'numeric' | 'char';
  readonly width: number;
  /** A SAS format name (DATE, DATETIME, …); none when absent. */
  readonly format?: string;
}

/** The layout choices a SAS data set's header states. */
export interface SasLayout {
  readonly u64: boolean;
  readonly little: boolean;
  /** Rows RLE-compressed ("SASYZCRL"), each in its own subheader on meta pages. */
  readonly rle: boolean;
  /** Rows RDC-compressed ("SASYZCR2") instead (with `rle` true). */
  readonly rdc?: boolean;
  /** The first page a mix page: the rows that fit after its subheader pointers, the rest on data pages. */
  readonly mix?: boolean;
}

/**
 * RLE-encodes one row with the commands the reader decodes (sas7bdat.ts `rleDecompress`): runs of
 * 3+ blanks, zeros or another byte as inserts, the rest as copies of at most 64 bytes.
 */
export function rleCompress(row: Buffer): Buffer {
  const out: number[] = [];
  let literal: number[] = [];
  const flush = () => {
    for (let i = 0; i < literal.length; i += 64) {
      const chunk = literal.slice(i, i + 64);
      const n = chunk.length;
      const [base, command] = n <= 16 ? [1, 0x80] : n <= 32 ? [17, 0x90] : n <= 48 ? [33, 0xa0] : [49, 0xb0];
      out.push(command | (n - base), ...chunk);
    }
    literal = [];
  };
  for (let i = 0; i < row.length; ) {
    let run = 1;
    while (i + run < row.length && row[i + run] === row[i] && run < 4000) run++;
    if (run < 3) {
      literal.push(row[i]);
      i++;
      continue;
    }
    flush();
    const v = row[i];
    if ((v === 0x20 || v === 0x00) && run >= 17) {
      const n = run - 17;
      out.push((v === 0x20 ? 0x60 : 0x70) | (n >> 8), n & 0xff);
    } else if ((v === 0x20 || v === 0x00) && run <= 17) {
      out.push((v === 0x20 ? 0xe0 : 0xf0) | (run - 2));
    } else if (run <= 18) {
      out.push(0xc0 | (run - 3), v);
    } else {
      const n = run - 18;
      out.push(0x40 | (n >> 8), n & 0xff, v);
    }
    i += run;
  }
  flush();
  return Buffer.from(out);
}

/**
 * RDC-encodes one row with every command the reader decodes (sas7bdat.ts `rdcDecompress`): runs
 * of 3+ bytes (short and long), copies of 3 … 15 bytes (short pattern) and of 16 … 271 bytes
 * (long pattern) from up to 4,098 bytes back, the rest literal bytes; 16 items to a control word.
 */
export function rdcCompress(row: Buffer): Buffer {
  const out: number[] = [];
  let controlAt = -1;
  let items = 16;
  const item = (command: boolean, bytes: number[]) => {
    if (items === 16) {
      controlAt = out.length;
      out.push(0, 0);
      items = 0;
    }
    if (command) {
      const bit = 0x8000 >>> items;
      out[controlAt] |= bit >>> 8;
      out[controlAt + 1] |= bit & 0xff;
    }
    items++;
    out.push(...bytes);
  };
  for (let i = 0; i < row.length; ) {
    let run = 1;
    while (i + run < row.length && row[i + run] === row[i] && run < 4114) run++;
    // The longest earlier match (3 … 271 bytes, 3 … 4,098 back).
    let best = 0;
    let bestOffset = 0;
    for (let offset = 3; offset <= Math.min(i, 4098); offset++) {
      let n = 0;
      while (n < 271 && i + n < row.length && row[i - offset + n] === row[i + n]) n++;
      if (n > best) {
        best = n;
        bestOffset = offset;
      }
    }
    if (run >= 3 && run >= best) {
      if (run <= 18) item(true, [0x00 | (run - 3), row[i]]);
      else {
        const n = run - 19;
        item(true, [0x10 | (n & 0x0f), n >> 4, row[i]]);
      }
      i += run;
    } else if (best >= 16) {
      const o = bestOffset - 3;
      item(true, [0x20 | (o & 0x0f), o >> 4, best - 16]);
      i += best;
    } else if (best >= 3) {
      const o = bestOffset - 3;
      item(true, [(best << 4) | (o & 0x0f), o >> 4]);
      i += best;
    } else {
      item(false, [row[i]]);
      i++;
    }
  }
  return Buffer.from(out);
}

const SAS_MAGIC = Buffer.from('000000000000000000000000c2ea8160b31411cfbd92080009c7318c181f1011', 'hex');

/**
 * A minimal SAS data set in the layout the `sas7bdat` vignette, ReadStat and pandas describe:
 * a header, one meta page (row size, column size, column text, names, attributes, formats; the
 * compressed rows when `rle`), then data pages. Numeric null is SAS missing (a NaN); text is UTF-8.
 */
export function sasBytes(
  layout: SasLayout,
  columns: readonly SasColumn[],
  rows: readonly (readonly (number | string | null)[])[],
): Buffer {
  const { u64, little, rle } = layout;
  const il = u64 ? 8 : 4;
  const a1 = u64 ? 4 : 0;
  const bitOffset = u64 ? 32 : 16;
  const pointerLength = u64 ? 24 : 12;
  const headerLength = 1024;
  const pageLength = 16384;
  const int = (b: Buffer, o: number, v: number, width = il) => {
    if (width === 8) little ? b.writeBigUInt64LE(BigInt(v), o) : b.writeBigUInt64BE(BigInt(v), o);
    else if (width === 4) little ? b.writeUInt32LE(v >>> 0, o) : b.writeUInt32BE(v >>> 0, o);
    else if (width === 2) little ? b.writeUInt16LE(v, o) : b.writeUInt16BE(v, o);
    else b[o] = v;
  };
  const signature = (b: Buffer, value: number) => {
    // A 4-byte signature; 64-bit files extend it to 8: with 0xFF bytes where it reads as a small
    // negative number (0xFFFFFFFD), with zeros otherwise (0xF7F7F7F7), as pandas lists them.
    if (u64) int(b, 0, 0, 8);
    if (u64 && value >>> 24 === 0xff) b.fill(0xff, little ? 4 : 0, little ? 8 : 4);
    int(b, u64 && !little ? 4 : 0, value, 4);
  };

  // Row layout and the rows.
  const offsets: number[] = [];
  let rowLength = 0;
  for (const c of columns) {
    offsets.push(rowLength);
    rowLength += c.width;
  }
  const rowBytes = rows.map((row) => {
    const b = Buffer.alloc(rowLength, 0x20);
    columns.forEach((c, j) => {
      const v = row[j];
      if (c.type === 'numeric') {
        const d = Buffer.alloc(8);
        little
          ? d.writeDoubleLE(v === null ? Number.NaN : Number(v))
          : d.writeDoubleBE(v === null ? Number.NaN : Number(v));
        (little ? d.subarray(8 - c.width) : d.subarray(0, c.width)).copy(b, offsets[j]);
      } else {
        b.fill(0x20, offsets[j], offsets[j] + c.width);
        Buffer.from(v === null ? '' : String(v), 'utf8').copy(b, offsets[j], 0, c.width);
      }
    });
    return b;
  });

  // Column text: a 2-byte size, the compression literal at 12, then names and formats.
  const texts: string[] = [];
  const textAt = (s: string) => {
    let at = 28;
    for (const t of texts) at += Math.ceil(t.length / 4) * 4;
    texts.push(s);
    return at;
  };
  const nameRefs = columns.map((c) => [textAt(c.name), Buffer.byteLength(c.name)]);
  const formatRefs = columns.map((c) => (c.format ? [textAt(c.format), c.format.length] : [0, 0]));
  const blockLength = 28 + texts.reduce((n, t) => n + Math.ceil(t.length / 4) * 4, 0) + 4 + il;
  const block = Buffer.alloc(blockLength, 0);
  (rle ? (layout.rdc ? 'SASYZCR2' : 'SASYZCRL') : '        ').split('').forEach((ch, i) => {
    block[12 + i] = ch.charCodeAt(0);
  });
  let at = 28;
  for (const t of texts) {
    Buffer.from(t, 'utf8').copy(block, at);
    at += Math.ceil(t.length / 4) * 4;
  }

  const subheaders: { bytes: Buffer; flag: number; kind: number }[] = [];
  const meta = (length: number, sig: number, fill: (b: Buffer) => void) => {
    const b = Buffer.alloc(length);
    signature(b, sig);
    fill(b);
    subheaders.push({ bytes: b, flag: 0, kind: 0 });
  };
  meta(u64 ? 808 : 480, 0xf7f7f7f7, (b) => {
    int(b, 5 * il, rowLength);
    int(b, 6 * il, rows.length);
    int(b, 9 * il, columns.length);
    int(b, 10 * il, 0);
    int(b, 15 * il, 0);
  });
  meta(3 * il, 0xf6f6f6f6, (b) => int(b, il, columns.length));
  {
    const b = Buffer.alloc(il + blockLength);
    signature(b, 0xfffffffd);
    block.copy(b, il);
    int(b, il, b.length - 4 - 2 * il, 2);
    subheaders.push({ bytes: b, flag: 0, kind: 0 });
  }
  meta(2 * il + 12 + 8 * columns.length, 0xffffffff, (b) => {
    nameRefs.forEach(([offset, length], i) => {
      const p = il + 8 * (i + 1);
      int(b, p, 0, 2);
      int(b, p + 2, offset, 2);
      int(b, p + 4, length, 2);
    });
  });
  meta(2 * il + 12 + (il + 8) * columns.length, 0xfffffffc, (b) => {
    columns.forEach((c, i) => {
      const p = il + 8 + i * (il + 8);
      int(b, p, offsets[i]);
      int(b, p + il, c.width, 4);
      b[p + il + 6] = c.type === 'numeric' ? 1 : 2;
    });
  });
  for (const [offset, length] of formatRefs) {
    meta(3 * il + 40, 0xfffffbfe, (b) => {
      int(b, 22 + 3 * il, 0, 2);
      int(b, 24 + 3 * il, offset, 2);
      int(b, 26 + 3 * il, length, 2);
    });
  }
  if (rle) {
    for (const row of rowBytes) {
      const packed = layout.rdc ? rdcCompress(row) : rleCompress(row);
      if (packed.length < rowLength) subheaders.push({ bytes: packed, flag: 4, kind: 1 });
      else subheaders.push({ bytes: row, flag: 0, kind: 1 });
    }
  }

  // A mix page: as many rows as fit between the pointers (8-byte aligned) and the subheaders.
  let mixRows = 0;
  if (layout.mix && !rle) {
    const start = Math.ceil((bitOffset + 8 + subheaders.length * pointerLength) / 8) * 8;
    const end = pageLength - subheaders.reduce((n, sh) => n + sh.bytes.length, 0);
    mixRows = Math.max(0, Math.min(rowBytes.length, Math.floor((end - start) / rowLength)));
    int(subheaders[0].bytes, 15 * il, mixRows);
  }

  // Meta pages: pointers from the front, subheaders after them.
  const pages: Buffer[] = [];
  for (let s = 0; s < subheaders.length || pages.length === 0; ) {
    const page = Buffer.alloc(pageLength);
    int(page, bitOffset, 0, 2);
    let count = 0;
    let body = pageLength;
    while (s + count < subheaders.length) {
      const next = subheaders[s + count].bytes.length;
      const pointersEnd = bitOffset + 8 + (count + 1) * pointerLength;
      if (body - next < pointersEnd + 8) break;
      body -= next;
      count++;
    }
    let offset = pageLength;
    for (let i = 0; i < count; i++) {
      const sh = subheaders[s + i];
      offset -= sh.bytes.length;
      sh.bytes.copy(page, offset);
      const p = bitOffset + 8 + i * pointerLength;
      int(page, p, offset);
      int(page, p + il, sh.bytes.length);
      page[p + 2 * il] = sh.flag;
      page[p + 2 * il + 1] = sh.kind;
    }
    int(page, bitOffset + 2, count, 2);
    int(page, bitOffset + 4, count, 2);
    if (mixRows > 0 && pages.length === 0) {
      if (count !== subheaders.length) throw new Error('sasBytes: a mix page holds all the subheaders');
      const start = Math.ceil((bitOffset + 8 + count * pointerLength) / 8) * 8;
      int(page, bitOffset, 0x0200, 2);
      int(page, bitOffset + 2, count + mixRows, 2);
      rowBytes.slice(0, mixRows).forEach((row, i) => {
        row.copy(page, start + i * rowLength);
      });
    }
    pages.push(page);
    s += count;
  }
  if (!rle) {
    const perPage = Math.floor((pageLength - bitOffset - 8) / rowLength);
    for (let r = mixRows; r < rowBytes.length; r += perPage) {
      const page = Buffer.alloc(pageLength);
      const chunk = rowBytes.slice(r, r + perPage);
      int(page, bitOffset, 0x0100, 2);
      int(page, bitOffset + 2, chunk.length, 2);
      chunk.forEach((row, i) => {
        row.copy(page, bitOffset + 8 + i * rowLength);
      });
      pages.push(page);
    }
  }

  const header = Buffer.alloc(headerLength);
  SAS_MAGIC.copy(header);
  header[32] = u64 ? 0x33 : 0x22;
  header[35] = a1 ? 0x33 : 0x22;
  header[37] = little ? 0x01 : 0x00;
  header[39] = 0x31; // '1': unix
  header[70] = 20; // UTF-8
  header.write('SAS FILE', 84, 'latin1');
  header.write('DATA    ', 156 + a1, 'latin1');
  int(header, 196 + a1, headerLength, 4);
  int(header, 200 + a1, pageLength, 4);
  int(header, 204 + a1, pages.length);
  return Buffer.concat([header, ...pages]);
}
