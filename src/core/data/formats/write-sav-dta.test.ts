/**
 * The SPSS and Stata writers (write-sav.ts, write-dta.ts) on what a released CSV can hold beyond
 * the release tests' table: strings over 255 bytes (SPSS's very long strings) and over 2,045 bytes
 * (Stata's strL), UTF-8 text across the segments' and cells' edges, integers of each Stata width
 * and beyond, negative and fractional numbers, missing values, many rows. Each file reads back
 * through our own readers (sav.ts, dta.ts) as exactly the CSV's records; sav-reader (the library
 * the SPSS reader takes its dictionary from) reads the same values whole.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../csv.ts';
import { tempDir } from '../testing.ts';
import { DTA } from './dta.ts';
import { labelledValueLabels } from './labelled.ts';
import { savValueLabels } from './sav.ts';
import { writeDtaFromCsv } from './write-dta.ts';
import { writeSavFromCsv } from './write-sav.ts';

const dir = tempDir('rap-write-sav-dta-');
afterAll(() => dir.remove());

const HEADER = ['n', 'small', 'mid', 'wide', 'huge', 'x', 'label', 'note'];
const TYPES = ['integer', 'integer', 'integer', 'integer', 'integer', 'number', 'string', 'string'];
const COLUMNS = HEADER.map((name, j) => ({ name, type: TYPES[j] }));

/** Row i of the table: every column missing now and then. */
function row(i: number): string[] {
  const gap = (k: number, v: string) => (i % k === 0 ? '' : v);
  const long = `${'é'.repeat(120 + (i % 7))}${'ü'.repeat(i % 5)}|${i}|${'x'.repeat(i % 300)}`; // 250 … 560 bytes
  return [
    String(i),
    gap(5, String((i % 200) - 100)), // byte's range in Stata
    gap(7, String((i % 60_000) - 30_000)), // int's
    gap(11, String(i * 1_000_003 - 1_000_000_000)), // long's
    gap(13, String(2 ** 40 + i)), // beyond long: double
    gap(3, String((i - 50) / 8)),
    gap(4, ['a', 'Zürich', '=Lima', 'two words'][i % 4]),
    gap(9, i === 7 ? `${'€'.repeat(1000)}` : long), // 3,000 bytes once: a Stata strL
  ];
}

async function records(file: string): Promise<string[][]> {
  const out: string[][] = [];
  await readCsvRecords(file, (fields) => out.push(fields));
  return out;
}

describe('SPSS and Stata files written from a released CSV', () => {
  const rows = Array.from({ length: 600 }, (_, i) => row(i));
  const csv = dir.file('table.csv', `${Papa.unparse([HEADER, ...rows], { newline: '\r\n' })}\r\n`);

  it.each([
    ['sav', writeSavFromCsv],
    ['dta', writeDtaFromCsv],
  ] as const)('.%s reads back through our reader as exactly the CSV', async (ext, write) => {
    const file = `${dir.path}/table.${ext}`;
    await write(csv, file, COLUMNS);
    expect(await records(file)).toEqual(await records(csv));
  });

  it('sav-reader reads the same values whole (numbers as numbers, strings over 255 bytes whole)', async () => {
    const file = `${dir.path}/whole.sav`;
    await writeSavFromCsv(csv, file, COLUMNS);
    const { SavBufferReader } = createRequire(import.meta.url)('sav-reader');
    const sav = new SavBufferReader(readFileSync(file));
    await sav.open();
    expect(sav.meta.sysvars.map((v: { name: string; type: number }) => [v.name, v.type])).toEqual(
      HEADER.map((h, j) => [h, j < 6 ? 0 : 1]),
    );
    const back: string[][] = [];
    for (let r = await sav.readNextRow(); r; r = await sav.readNextRow())
      back.push(HEADER.map((h) => (r[h] === null || r[h] === undefined ? '' : String(r[h]).trimEnd())));
    // sav-reader decodes each 8-byte cell alone: compare the ASCII columns whole, the text by length.
    expect(back.map((r) => r.slice(0, 6))).toEqual(rows.map((r) => r.slice(0, 6)));
    expect(back.map((r) => r[7] === '')).toEqual(rows.map((r) => r[7] === ''));
  });

  it('Stata: the smallest integer type for each integer column, double beyond, strL for a value over 2,045 bytes', async () => {
    const file = `${dir.path}/types.dta`;
    await writeDtaFromCsv(csv, file, COLUMNS);
    const bytes = readFileSync(file);
    const at = bytes.indexOf('<variable_types>') + '<variable_types>'.length;
    const codes = HEADER.map((_, j) => bytes.readUInt16LE(at + 2 * j));
    // n (0 … 599) int; small byte; mid int; wide long; huge and x double; label str9 ("two words"); note strL.
    expect(codes).toEqual([65529, 65530, 65529, 65528, 65526, 65526, 9, 32768]);
  });

  it('Stata: dates as %td and datetimes as %tc where every value reads back as its text; others stay strings', async () => {
    const table = [
      ['day', 'at', 'loose'],
      ['2024-01-31', '2024-01-31T08:30:00', '2024-1-5'],
      ['', '', ''],
      ['1959-12-31', '1960-01-01T00:00:00', '2024-02-30'],
      ['2024-02-29', '2100-12-31T23:59:59', '2024-01-01'],
    ];
    const file = dir.file('dates.csv', `${Papa.unparse(table, { newline: '\r\n' })}\r\n`);
    const out = `${dir.path}/dates.dta`;
    await writeDtaFromCsv(file, out, [
      { name: 'day', type: 'date' },
      { name: 'at', type: 'datetime' },
      { name: 'loose', type: 'date' },
    ]);
    expect(await records(out)).toEqual(await records(file));
    const bytes = readFileSync(out);
    const at = bytes.indexOf('<variable_types>') + '<variable_types>'.length;
    expect([0, 1, 2].map((j) => bytes.readUInt16LE(at + 2 * j))).toEqual([65528, 65526, 10]);
    for (const f of ['%td', '%tc']) expect(bytes.includes(Buffer.from(`${f}\0`))).toBe(true);
  });

  it.each([
    ['sav', writeSavFromCsv],
    ['dta', writeDtaFromCsv],
  ] as const)('.%s: a labelled column as its codes with their labels, missing texts ("?") as missing numbers', async (ext, write) => {
    const table = [
      ['smoker', 'age', 'note'],
      ['never', '31', 'a'],
      ['?', '?', '?'],
      ['daily', '', 'b'],
      ['former', '40', ''],
    ];
    const file = dir.file(`coded-${ext}.csv`, `${Papa.unparse(table, { newline: '\r\n' })}\r\n`);
    const out = `${dir.path}/coded.${ext}`;
    const codes = [
      { value: 0, label: 'daily', text: 'daily' },
      { value: 1, label: 'never', text: 'never' },
      { value: 2, label: 'former', text: 'former' },
    ];
    await write(file, out, [
      { name: 'smoker', type: 'string', codes, missing: ['?'] },
      { name: 'age', type: 'integer', missing: ['?'] },
      { name: 'note', type: 'string', missing: ['?'] },
    ]);
    // Read back: the labels; "?" in a coded or numeric column is missing (empty), in a text column kept.
    expect(await records(out)).toEqual([
      ['smoker', 'age', 'note'],
      ['never', '31', 'a'],
      ['', '', '?'],
      ['daily', '', 'b'],
      ['former', '40', ''],
    ]);
    const sets = ext === 'sav' ? await savValueLabels(out) : await labelledValueLabels(out, DTA);
    expect(sets).toEqual([{ column: 'smoker', labels: codes.map(({ value, label }) => ({ value, label })) }]);
  });

  it('a category outside the codes keeps the column as text; a one-column release keeps its empty lines as missing values', async () => {
    // One column, a missing value as an empty line (as our CSV writer writes it).
    const file = dir.file('uncoded.csv', 'smoker\r\nnever\r\n\r\n(other)\r\n');
    const out = `${dir.path}/uncoded.sav`;
    await writeSavFromCsv(file, out, [
      {
        name: 'smoker',
        type: 'string',
        codes: [{ value: 1, label: 'never', text: 'never' }],
        missing: ['?'],
      },
    ]);
    expect(await records(out)).toEqual([['smoker'], ['never'], [''], ['(other)']]);
    expect(await savValueLabels(out)).toEqual([]);
  });
});
