/**
 * The streaming .xlsx reader against read-excel-file's whole read of the same workbook (the
 * reader it replaced, whose cell rules it follows): shared strings (rich text, phonetic runs,
 * escapes), inline strings, empty cells, gaps, blank rows, dates by built-in and custom formats
 * in both date systems, booleans, error cells; a workbook written by write-excel-file (deflated
 * parts, data descriptors); a chunk boundary inside the data; damaged workbooks refused with a
 * message naming the file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../errors.ts';
import { CHUNK_RECORDS, type RecordChunk } from '../records.ts';
import { tempDir } from '../testing.ts';
import { readFormatRecords } from './read.ts';
import { type WorkbookParts, xlsxBytes, xlsxParts, zipBytes } from './testing.ts';
import { cellText, isDateFormatTemplate, SHARED_STRINGS_MAX_BYTES, xlsxChunks } from './xlsx.ts';

const dir = tempDir('rap-xlsx-');
afterAll(() => dir.remove());

interface Read {
  records: string[][];
  lines: number[];
  blank: number;
}

/** read-excel-file's whole read, made records as the reader before this one made them. */
async function wholeRead(file: string): Promise<Read> {
  const { readSheet } = await import('read-excel-file/node');
  const rows = (await readSheet(file, 1)) as unknown[][];
  const out: Read = { records: [], lines: [], blank: 0 };
  rows.forEach((row, i) => {
    const fields = row.map((v) => cellText(v).trim());
    if (fields.every((f) => f === '')) out.blank++;
    else {
      out.records.push(fields);
      out.lines.push(i + 1);
    }
  });
  return out;
}

async function streamRead(file: string): Promise<Read & { chunks: number }> {
  const out = { records: [] as string[][], lines: [] as number[], blank: 0, chunks: 0 };
  for await (const chunk of xlsxChunks(file) as AsyncIterable<RecordChunk>) {
    out.chunks++;
    out.records.push(...chunk.records.map((r) => [...r]));
    out.lines.push(...(chunk.lines ?? []));
    out.blank += chunk.blank ?? 0;
  }
  return out;
}

async function same(name: string, bytes: Buffer): Promise<Read> {
  const file = dir.file(name, bytes);
  const whole = await wholeRead(file);
  const { chunks: _, ...streamed } = await streamRead(file);
  expect(streamed).toEqual(whole);
  return whole;
}

const STYLES =
  '<numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd;@"/><numFmt numFmtId="165" formatCode="0.00&quot;kg&quot;"/></numFmts>' +
  '<cellStyleXfs count="2"><xf numFmtId="0"/><xf numFmtId="22"/></cellStyleXfs>' +
  '<cellXfs count="5"><xf numFmtId="0" xfId="0"/><xf numFmtId="14" xfId="0"/><xf numFmtId="164" xfId="0"/><xf numFmtId="165" xfId="0"/><xf xfId="1"/></cellXfs>';

const RICH: WorkbookParts = {
  sharedStrings:
    '<si><t>name</t></si><si><t xml:space="preserve"> born </t></si><si><t>weight</t></si><si><t>flag</t></si>' +
    '<si><r><rPr><b/></rPr><t>Ana</t></r><r><t xml:space="preserve"> María</t></r></si>' +
    '<si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></si>' +
    '<si><t>a &amp; b &lt;c&gt; &#233;&#x41;</t></si><si><t>line_x000D_break</t></si><si><t>   </t></si>',
  styles: STYLES,
  sheetData:
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c><c r="E1" t="inlineStr"><is><t>note</t></is></c></row>' +
    '<row r="2"><c r="A2" t="s"><v>4</v></c><c r="B2" s="1"><v>45292</v></c><c r="C2" s="3"><v>71.25</v></c><c r="D2" t="b"><v>1</v></c><c r="E2" t="str"><v>x_x0041_</v></c></row>' +
    '<row r="3"><c r="A3" t="s"><v>5</v></c><c r="B3" s="2"><v>36526.5</v></c><c r="C3"><v>1E-3</v></c><c r="D3" t="b"><v>0</v></c><c r="E3" t="e"><v>#DIV/0!</v></c></row>' +
    '<row r="5" spans="1:5"><c r="A5" t="s"><v>6</v></c><c r="B5" s="4"><v>45292.75</v></c><c r="D5" t="d"><v>2024-02-29T00:00:00Z</v></c></row>' +
    '<row r="6"><c r="A6" s="1"/><c r="C6" t="s"><v>8</v></c></row>' +
    '<row r="7"><c r="A7" t="s"><v>7</v></c><c r="C7"><v>-0.5</v></c><c r="E7" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c></row>' +
    '<row r="8"><c r="B8" s="0"><v>7</v></c></row>' +
    '<row r="9"/><row r="12"><c r="A12" t="str"><v></v></c></row>',
};

describe('an .xlsx sheet read as a stream', () => {
  it('equals the whole read: shared and inline strings, empty cells, gaps, dates, booleans, errors', async () => {
    for (const deflate of [false, true]) {
      const whole = await same(`rich-${deflate}.xlsx`, xlsxParts({ ...RICH, deflate }));
      expect(whole.records[0]).toEqual(['name', 'born', 'weight', 'flag', 'note']);
      expect(whole.records[1]).toEqual(['Ana María', '2024-01-01', '71.25', 'true', 'xA']);
      expect(whole.records[2]).toEqual(['東京', '2000-01-01T12:00:00.000Z', '0.001', 'false', '']);
      expect(whole.records[3][0]).toBe('a & b <c> éA');
      expect(whole.lines).toEqual([1, 2, 3, 5, 7, 8]);
      expect(whole.blank).toBe(2); // row 4 (absent) and row 6 (only blank text)
    }
  });

  it('the 1904 date system', async () => {
    const whole = await same(
      'd1904.xlsx',
      xlsxParts({
        date1904: true,
        styles: STYLES,
        sheetData:
          '<row r="1"><c r="A1" t="inlineStr"><is><t>d</t></is></c></row><row r="2"><c r="A2" s="1"><v>0</v></c></row>',
      }),
    );
    expect(whole.records).toEqual([['d'], ['1904-01-01']]);
  });

  it('equals the whole read of the test writer and of write-excel-file (shared strings, dates, deflate)', async () => {
    await same(
      'inline.xlsx',
      xlsxBytes([
        ['age', 'city'],
        [39, ' Paris '],
        [7.5, null],
        [null, 'Lima'],
        [null, null],
        [1, 'x'],
      ]),
    );
    const { default: writeXlsxFile } = await import('write-excel-file/node');
    const rows = [
      [{ value: 'when' }, { value: 'city' }, { value: 'n' }, { value: 'ok' }],
      ...Array.from({ length: 50 }, (_, i) => [
        { value: new Date(Date.UTC(2020, 0, 1 + i)), type: Date, format: 'yyyy-mm-dd' },
        i % 4 === 0 ? null : { value: ['Oslo', 'Lima & Co', ' Pune', 'Zürich'][i % 4] },
        { value: i / 4, type: Number },
        { value: i % 3 === 0, type: Boolean },
      ]),
    ];
    const bytes = await writeXlsxFile(rows as never).toBuffer();
    const whole = await same('written.xlsx', bytes);
    expect(whole.records[1]).toEqual(['2020-01-01', '', '0', 'true']);
  });

  it('a chunk boundary inside the data: every row once, in order, with its line', async () => {
    const n = CHUNK_RECORDS + 5;
    const rows = [
      ['i', 'label'],
      ...Array.from({ length: n }, (_, i) => [i, i % 9 === 0 ? null : `v${i % 17}`]),
    ];
    const file = dir.file('boundary.xlsx', xlsxBytes(rows));
    const streamed = await streamRead(file);
    expect(streamed.chunks).toBeGreaterThan(1);
    const { chunks: _, ...rest } = streamed;
    expect(rest).toEqual(await wholeRead(file));
    const lines: number[] = [];
    const result = await readFormatRecords(file, (_fields, line) => lines.push(line));
    expect(result.records).toBe(n + 1);
    expect(lines).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
  });

  it('custom number formats: dates by their tokens, not numbers with text', () => {
    expect(isDateFormatTemplate('yyyy\\-mm\\-dd;@')).toBe(true);
    expect(isDateFormatTemplate('[$-409]d-mmm-yy;@')).toBe(true);
    expect(isDateFormatTemplate('[h]:mm:ss')).toBe(true);
    expect(isDateFormatTemplate('0.00"kg"')).toBe(false);
    expect(isDateFormatTemplate('#,##0')).toBe(false);
  });
});

describe('a damaged .xlsx', () => {
  const good = xlsxBytes([
    ['a', 'b'],
    [1, 'x'],
    [2, 'y'],
  ]);
  const flipped = Buffer.from(good);
  flipped[good.indexOf('<sheetData>') + 20] ^= 1; // a stored sheet byte: the CRC no longer matches
  it.each([
    ['not a workbook', Buffer.from('not read')],
    ['cut short', good.subarray(0, good.length - 30)],
    ['a byte changed', flipped],
    [
      'a shared string out of range',
      xlsxParts({
        sharedStrings: '<si><t>a</t></si>',
        sheetData: '<row r="1"><c r="A1" t="s"><v>3</v></c></row>',
      }),
    ],
    [
      'a row out of order',
      xlsxParts({
        sheetData: '<row r="2"><c r="A2"><v>1</v></c></row><row r="1"><c r="A1"><v>1</v></c></row>',
      }),
    ],
    ['a number that is not one', xlsxParts({ sheetData: '<row r="1"><c r="A1"><v>x1</v></c></row>' })],
    ['an unfinished tag', xlsxParts({ sheetData: '<row r="1"><c r="A1"><v>1</v></c></row><row' })],
    ['a zip without a sheet', zipBytes([{ name: 'a.txt', data: Buffer.from('a') }])],
  ])('%s: refused with a message naming it', async (_what, bytes) => {
    const file = dir.file('damaged.xlsx', bytes);
    const err = await readFormatRecords(file, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('not a readable Excel workbook (.xlsx)');
  });

  it('shared strings beyond the bound: refused before a row is read, saying what to do', async () => {
    const bytes = xlsxParts({
      sharedStrings: '<si><t>a</t></si>',
      sheetData: '<row r="1"><c r="A1" t="s"><v>0</v></c></row>',
    });
    // The central directory states the inflated size; say it is over the bound.
    const entry = bytes.lastIndexOf('xl/sharedStrings.xml');
    const central = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), entry);
    bytes.writeUInt32LE(SHARED_STRINGS_MAX_BYTES + 1, central + 24);
    const file = dir.file('strings.xlsx', bytes);
    const err = await readFormatRecords(file, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('shared strings exceed 256 MiB');
    expect((err as Error).message).toContain('Export the sheet as CSV');
  });
});
