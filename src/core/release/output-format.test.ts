/**
 * A release written as Parquet or Excel holds the values its CSV would hold (output-format.ts):
 * stage 5 (publish.ts) converts the release's CSV, and our own readers (readCsvRecords: the
 * Parquet and .xlsx readers) read back exactly the CSV's records — quotes, commas, line breaks,
 * formula-escaped categories, missing values, numbers that are not in JavaScript's shortest form
 * (kept as text) and integers beyond a double (kept as text). The manifest and the Data Package
 * name the written file, its format, media type and SHA-256; nothing is left beside it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../data/csv.ts';
import { fingerprintFile } from '../data/fingerprint.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import {
  checkOutputColumns,
  checkOutputRows,
  noWriterNote,
  OUTPUT_MEDIA,
  outputFormatOf,
  releaseFormatFor,
  requireOutputFormat,
} from './output-format.ts';
import { PendingWrites } from './pending-writes.ts';
import { publish } from './publish.ts';
import { exportOutputs } from './targets.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-output-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pending = new PendingWrites(path.join(dir, 'pending'));

const HEADER = ['id', 'score', 'ratio', 'city', 'when', 'big', 'w'];
// What the release's CSV holds (papaparse's quoting, CRLF): every awkward case at least once.
const CSV =
  'id,score,ratio,city,when,big,w\r\n' +
  "1,3.25,7.0,'=Lima,2024-01-31,9007199254740993,0.25\r\n" +
  '2,,0.5,"Pune, North",,12,1.5\r\n' +
  '-3,-0.001,1,"say ""hi""",2024-02-29,,-2\r\n' +
  '4,1e-7,,"two\r\nlines",2023-12-01,7,3.125\r\n' +
  ',100,2.5,Oslo,2024-03-01,8,10\r\n';
const FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'score', type: 'number' },
  { name: 'ratio', type: 'number' },
  { name: 'city', type: 'string' },
  { name: 'when', type: 'date' },
  { name: 'big', type: 'integer' },
  { name: 'w', type: 'number' },
];

const ledger = {
  identity: () => ({ ledgerId: 'L', events: 1, headHash: 'H' }),
  commit: (id: string) => ({ id, status: 'committed' }) as never,
};

async function records(file: string): Promise<string[][]> {
  const out: string[][] = [];
  await readCsvRecords(file, (fields) => out.push(fields));
  return out;
}

async function release(name: string) {
  const d = mkdtempSync(path.join(dir, 'r-'));
  const file = path.join(d, name);
  const published = await publish(
    ledger,
    {
      releaseId: 'r1',
      voice: 'cli',
      fillCsv: async (temp) => {
        await writeFile(temp, CSV, { flag: 'wx' });
        return { rows: 5, header: HEADER };
      },
      manifestFields: {
        releaseId: 'r1',
        appVersion: 'test',
        mechanism: {},
        privacy: { epsilon: 1, delta: 1e-6, rho: 0.1 },
        seedMode: 'secure',
        unit: 'one row',
        schema: { columns: [], tableSchema: { fields: FIELDS } },
      },
      report: null,
    },
    exportOutputs(file),
    pending,
  );
  return { d, file, published };
}

describe('the released file in the format its name asks for', () => {
  it.each([
    'parquet',
    'xlsx',
    'sav',
    'dta',
  ] as const)('.%s reads back to exactly the CSV release', async (format) => {
    const csv = await release('x.csv');
    const other = await release(`x.${format}`);
    expect(await records(other.file)).toEqual(await records(csv.file));
    // Nothing else beside it: the CSV it was converted from is gone, no temp file is left.
    expect(readdirSync(other.d).sort()).toEqual(
      ['x.datapackage.json', 'x.manifest.json', `x.${format}`].sort(),
    );
    const sha256 = await fingerprintFile(other.file);
    expect(other.published.csv.sha256).toBe(sha256);
    const manifest = JSON.parse(readFileSync(path.join(other.d, 'x.manifest.json'), 'utf8'));
    expect(manifest.output).toMatchObject({ file: `x.${format}`, ...OUTPUT_MEDIA[format], sha256, rows: 5 });
    const pkg = JSON.parse(readFileSync(path.join(other.d, 'x.datapackage.json'), 'utf8'));
    expect(pkg.resources[0]).toMatchObject({
      path: `x.${format}`,
      ...OUTPUT_MEDIA[format],
      hash: `sha256:${sha256}`,
    });
    expect(pkg.resources[0].encoding).toBeUndefined();
    const csvPkg = JSON.parse(readFileSync(path.join(csv.d, 'x.datapackage.json'), 'utf8'));
    expect(csvPkg.resources[0]).toMatchObject({ format: 'csv', mediatype: 'text/csv', encoding: 'utf-8' });
  });

  it('Excel: number cells where every value reads back as its text, text cells otherwise', async () => {
    const { file } = await release('typed.xlsx');
    const { readSheet } = await import('read-excel-file/node');
    const rows = (await readSheet(file, 1)) as unknown[][];
    const types = HEADER.map((_, j) => [...new Set(rows.slice(1).map((r) => typeof r[j]))].sort().join('|'));
    // score ("1e-7" is printed 1e-7 by JavaScript too) and id are numbers; ratio ("7.0") and big
    // (beyond a double) stay text; missing cells are empty (null).
    expect(types).toEqual([
      'number|object',
      'number|object',
      'object|string',
      'string',
      'object|string',
      'object|string',
      'number',
    ]);
  });

  it('Parquet: integer and number columns typed where every value reads back as its text; missing values are NULL', async () => {
    const { file } = await release('typed.parquet');
    const described = await withDuckDb(async (c) => {
      const r = await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
      return Object.fromEntries(r.getRows().map((row) => [String(row[0]), String(row[1])]));
    });
    // ratio holds "7.0" and score "1e-7" (DuckDB would print 7 and 1e-07): both stay text, as the
    // CSV holds them; big (beyond a double, within BIGINT) is exact as BIGINT.
    expect(described).toEqual({
      id: 'BIGINT',
      score: 'VARCHAR',
      ratio: 'VARCHAR',
      city: 'VARCHAR',
      when: 'VARCHAR',
      big: 'BIGINT',
      w: 'DOUBLE',
    });
    const nulls = await withDuckDb(async (c) => {
      const r = await c.runAndReadAll(
        `SELECT COUNT(*) - COUNT(id), COUNT(*) - COUNT(score), COUNT(*) - COUNT("when") FROM read_parquet('${file}')`,
      );
      return r.getRows()[0].map(Number);
    });
    expect(nulls).toEqual([1, 1, 1]);
  });

  it('SPSS: numeric variables where every value reads back as its text, strings otherwise (sav-reader: the dictionary)', async () => {
    const { file } = await release('typed.sav');
    const { SavBufferReader } = createRequire(import.meta.url)('sav-reader');
    const sav = new SavBufferReader(readFileSync(file));
    await sav.open();
    const vars = sav.meta.sysvars as { name: string; type: number }[];
    // type 0 numeric, 1 string; ratio ("7.0") and big (beyond a double) stay strings, as in Excel.
    expect(vars.map((v) => [v.name, v.type])).toEqual([
      ['id', 0],
      ['score', 0],
      ['ratio', 1],
      ['city', 1],
      ['when', 1],
      ['big', 1],
      ['w', 0],
    ]);
    const rows: Record<string, unknown>[] = [];
    for (let r = await sav.readNextRow(); r; r = await sav.readNextRow()) rows.push(r);
    // Missing numbers are system-missing (sav-reader: null), missing strings blank.
    expect(rows.map((r) => r.id ?? null)).toEqual([1, 2, -3, 4, null]);
    expect(rows.map((r) => r.score ?? null)).toEqual([3.25, null, -0.001, 1e-7, 100]);
    expect(String(rows[1].when).trim()).toBe('');
  });

  it('Stata: byte/int/long where an integer column fits, double for numbers, dates as %td, str# otherwise', async () => {
    const { file } = await release('typed.dta');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('<variable_types>') + '<variable_types>'.length;
    const codes = HEADER.map((_, j) => bytes.readUInt16LE(at + 2 * j));
    // 65530 byte, 65526 double, 65528 long (the dates: %td); a str# code is its width in bytes.
    expect(codes).toEqual([65530, 65526, 3, 11, 65528, 16, 65526]);
    expect(bytes.includes(Buffer.from('%td\0'))).toBe(true);
    expect(bytes.subarray(0, 60).toString('latin1')).toContain('<release>118</release><byteorder>LSF');
  });

  it('the format follows the name; other names are refused naming the extensions', () => {
    expect(outputFormatOf('a/b.CSV')).toBe('csv');
    expect(outputFormatOf('b.parquet')).toBe('parquet');
    expect(outputFormatOf('b.xlsx')).toBe('xlsx');
    expect(outputFormatOf('b.txt')).toBeNull();
    expect(outputFormatOf('b.SAV')).toBe('sav');
    expect(outputFormatOf('b.dta')).toBe('dta');
    expect(() => requireOutputFormat('/x/out.txt')).toThrow(
      /out\.txt.*"\.txt".*\.csv, \.parquet, \.xlsx, \.sav, \.dta/,
    );
    expect(() => requireOutputFormat('/x/out')).toThrow(/no extension/);
    expect(releaseFormatFor('p.parquet')).toBe('parquet');
    expect(releaseFormatFor('p.XLSX')).toBe('xlsx');
    expect(releaseFormatFor('p.sav')).toBe('sav');
    expect(releaseFormatFor('p.Dta')).toBe('dta');
    for (const f of ['p.sas7bdat', 'p.csv', 'p.tsv']) expect(releaseFormatFor(f)).toBe('csv');
    expect(noWriterNote('p.sas7bdat')).toBe(
      'the input is SAS (.sas7bdat), a file format SAS does not document: RAP Studio reads it but does not write it, so the release is CSV',
    );
    for (const f of ['p.parquet', 'p.sav', 'p.dta']) expect(noWriterNote(f)).toBeNull();
    // An Excel sheet's rows, checked before reserving (release.ts calls this after validate).
    expect(() => checkOutputRows('/x/s.xlsx', 1_048_575)).not.toThrow();
    expect(() => checkOutputRows('/x/s.xlsx', 1_048_576)).toThrow(
      /do not fit one Excel sheet.*Nothing was reserved/,
    );
    expect(() => checkOutputRows('/x/s.parquet', 10_000_000)).not.toThrow();
    expect(() => checkOutputRows('/x/s.sav', 10_000_000)).not.toThrow();
    expect(() => checkOutputRows('/x/s.sav', 2 ** 31)).toThrow(
      /do not fit one SPSS file.*Nothing was reserved/,
    );
  });

  it('SPSS and Stata variable names: a name neither can hold is refused before reserving, naming it and the rule', () => {
    const ok = ['age', 'income_2024', 'Région'];
    for (const file of ['/x/s.sav', '/x/s.dta', '/x/s.csv', '/x/s.parquet', '/x/s.xlsx'])
      expect(() => checkOutputColumns(file, ok)).not.toThrow();
    const refused: [string, string[], RegExp][] = [
      ['/x/s.sav', ['age group'], /"age group" is not an SPSS variable name/],
      ['/x/s.sav', ['1st'], /"1st" is not an SPSS variable name/],
      ['/x/s.sav', ['_x'], /"_x" is not an SPSS variable name/],
      ['/x/s.sav', ['total.'], /"total\." is not an SPSS/],
      ['/x/s.sav', ['by'], /"by" is a reserved word in SPSS/],
      ['/x/s.sav', ['Age', 'age'], /"Age" and "age" are one name to SPSS/],
      ['/x/s.sav', ['x'.repeat(65)], /longer than SPSS's 64 bytes/],
      ['/x/s.dta', ['age group'], /"age group" is not a Stata variable name/],
      ['/x/s.dta', ['a.b'], /"a\.b" is not a Stata variable name/],
      ['/x/s.dta', ['x'.repeat(33)], /longer than Stata's 32 characters/],
      ['/x/s.dta', ['int'], /"int" is a reserved word in Stata/],
      ['/x/s.dta', ['str12'], /"str12" is a reserved word in Stata/],
      [
        '/x/s.dta',
        Array.from({ length: 32_768 }, (_, i) => `v${i}`),
        /32768 columns do not fit a Stata file \(at most 32,767\)/,
      ],
    ];
    for (const [file, names, message] of refused) {
      expect(() => checkOutputColumns(file, names)).toThrow(message);
      expect(() => checkOutputColumns(file, names)).toThrow(
        /\.csv, \.parquet or \.xlsx.*Nothing was reserved/,
      );
    }
    // Stata tells names by case; names SPSS takes but Stata does not, and the other way round.
    expect(() => checkOutputColumns('/x/s.dta', ['Age', 'age', '_x'])).not.toThrow();
    expect(() =>
      checkOutputColumns(
        '/x/s.dta',
        Array.from({ length: 32_767 }, (_, i) => `v${i}`),
      ),
    ).not.toThrow();
    expect(() => checkOutputColumns('/x/s.sav', ['@id', 'a.b'])).not.toThrow();
  });
});
