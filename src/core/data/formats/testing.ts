/**
 * Test fixtures in formats the tests cannot otherwise make: a minimal .xlsx writer (a ZIP of
 * stored entries holding one sheet of inline strings and numbers).
 */
import { crc32 } from 'node:zlib';

function zip(entries: readonly { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
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

/** A variable of a test .sav file: numeric (with value labels) or a string of at most 8 bytes. */
export interface SavVariable {
  readonly name: string;
  readonly type: 'numeric' | 'string';
  readonly labels?: readonly (readonly [number, string])[];
}

/**
 * A minimal uncompressed SPSS system file (the layout PSPP documents: header, variable records,
 * value labels, dictionary end, then 8-byte cells). Numeric null is SYSMIS.
 */
export function savBytes(
  vars: readonly SavVariable[],
  rows: readonly (readonly (number | string | null)[])[],
): Buffer {
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
  const text = (s: string, len: number) => Buffer.from(s.padEnd(len, ' ').slice(0, len), 'latin1');
  parts.push(
    Buffer.from('$FL2', 'latin1'),
    text('@(#) SPSS DATA FILE rap-studio test fixture', 60),
    i32(2),
    i32(vars.length),
    i32(0),
    i32(0),
    i32(rows.length),
    f64(100),
    text('01 Jan 26', 9),
    text('00:00:00', 8),
    text('', 64),
    Buffer.alloc(3),
  );
  for (const v of vars) {
    const format = v.type === 'numeric' ? (5 << 16) | (8 << 8) | 0 : (1 << 16) | (8 << 8);
    parts.push(
      i32(2),
      i32(v.type === 'numeric' ? 0 : 8),
      i32(0),
      i32(0),
      i32(format),
      i32(format),
      text(v.name, 8),
    );
  }
  vars.forEach((v, index) => {
    if (!v.labels?.length) return;
    parts.push(i32(3), i32(v.labels.length));
    for (const [value, label] of v.labels) {
      const bytes = Buffer.from(label, 'latin1');
      const padded = Math.ceil((bytes.length + 1) / 8) * 8;
      const cell = Buffer.alloc(padded, 0x20);
      cell[0] = bytes.length;
      bytes.copy(cell, 1);
      parts.push(f64(value), cell);
    }
    parts.push(i32(4), i32(1), i32(index + 1));
  });
  parts.push(i32(999), i32(0));
  for (const row of rows) {
    row.forEach((value, j) => {
      if (vars[j].type === 'numeric') parts.push(f64(value === null ? -Number.MAX_VALUE : Number(value)));
      else parts.push(text(value === null ? '' : String(value), 8));
    });
  }
  return Buffer.concat(parts);
}
