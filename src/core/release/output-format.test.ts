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
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../data/csv.ts';
import { fingerprintFile } from '../data/fingerprint.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import {
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
  it.each(['parquet', 'xlsx'] as const)('.%s reads back to exactly the CSV release', async (format) => {
    const csv = await release('x.csv');
    const other = await release(`x.${format}`);
    expect(await records(other.file)).toEqual(await records(csv.file));
    // Nothing else beside it: the CSV it was converted from is gone, no temp file is left.
    expect(readdirSync(other.d).sort()).toEqual(['x.datapackage.json', 'x.manifest.json', `x.${format}`]);
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

  it('the format follows the name; other names are refused naming the extensions', () => {
    expect(outputFormatOf('a/b.CSV')).toBe('csv');
    expect(outputFormatOf('b.parquet')).toBe('parquet');
    expect(outputFormatOf('b.xlsx')).toBe('xlsx');
    expect(outputFormatOf('b.txt')).toBeNull();
    expect(() => requireOutputFormat('/x/out.txt')).toThrow(/out\.txt.*"\.txt".*\.csv, \.parquet, \.xlsx/);
    expect(() => requireOutputFormat('/x/out')).toThrow(/no extension/);
    expect(releaseFormatFor('p.parquet')).toBe('parquet');
    expect(releaseFormatFor('p.XLSX')).toBe('xlsx');
    for (const f of ['p.sav', 'p.dta', 'p.sas7bdat', 'p.csv', 'p.tsv'])
      expect(releaseFormatFor(f)).toBe('csv');
    expect(noWriterNote('p.sav')).toMatch(/SPSS.*release is CSV/);
    expect(noWriterNote('p.parquet')).toBeNull();
    // An Excel sheet's rows, checked before reserving (release.ts calls this after validate).
    expect(() => checkOutputRows('/x/s.xlsx', 1_048_575)).not.toThrow();
    expect(() => checkOutputRows('/x/s.xlsx', 1_048_576)).toThrow(
      /do not fit one Excel sheet.*Nothing was reserved/,
    );
    expect(() => checkOutputRows('/x/s.parquet', 10_000_000)).not.toThrow();
  });
});
