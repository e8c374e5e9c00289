import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../errors.ts';
import { Rejections } from '../rejections.ts';
import { readTable } from '../table.ts';
import { tempDir } from '../testing.ts';
import { hasOwnHeader, tableFormat } from './format.ts';
import { readFormatRecords } from './read.ts';
import { xlsxBytes } from './testing.ts';

const dir = tempDir('rap-formats-');
afterAll(() => dir.remove());

describe('table formats by file name', () => {
  it.each([
    ['a.csv', 'csv'],
    ['a.tsv', 'csv'],
    ['A.PARQUET', 'parquet'],
    ['a.xlsx', 'xlsx'],
    ['a.sav', 'sav'],
    ['a.dta', 'dta'],
    ['a.sas7bdat', 'sas7bdat'],
  ])('%s is %s', (file, format) => {
    expect(tableFormat(file)).toBe(format);
    expect(hasOwnHeader(file)).toBe(format !== 'csv');
  });

  it.each([
    ['survey.dta', 'not a readable Stata data file (.dta)'],
    ['survey.sas7bdat', 'not a readable SAS data set (.sas7bdat)'],
  ])('%s that is not one: refused with a message naming it and what to do', async (name, refusal) => {
    const file = dir.file(name, 'not read');
    const err = await readFormatRecords(file, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain(refusal);
    expect((err as Error).message).toContain('or export the table as CSV');
  });
});

describe('an .xlsx sheet as a table', () => {
  it('first row the names (never guessed); numbers, text and empty cells as a CSV export holds them', async () => {
    const file = dir.file(
      't.xlsx',
      xlsxBytes([
        ['age', 'city'],
        [39, ' Paris '],
        [7.5, null],
        [null, 'Lima'],
      ]),
    );
    const rows: string[][] = [];
    const t = await readTable(
      file,
      { start: () => {}, row: (values) => rows.push([...values]) },
      new Rejections(),
      { header: false },
    );
    expect(t.header).toEqual(['age', 'city']);
    expect(t.hasHeader).toBe(true);
    expect(rows).toEqual([
      ['39', 'Paris'],
      ['7.5', ''],
      ['', 'Lima'],
    ]);
  });
});
