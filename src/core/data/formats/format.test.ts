import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../errors.ts';
import { Rejections } from '../rejections.ts';
import { readTable, type TableOptions } from '../table.ts';
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
    // A sheet's first row is a row like a CSV's: only the metadata formats name their columns.
    expect(hasOwnHeader(file)).toBe(format !== 'csv' && format !== 'xlsx');
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
  async function sheet(name: string, cells: (string | number | null)[][], opts: TableOptions) {
    const rows: string[][] = [];
    const t = await readTable(
      dir.file(name, xlsxBytes(cells)),
      { start: () => {}, row: (values) => rows.push([...values]) },
      new Rejections(),
      opts,
    );
    return { header: t.header, hasHeader: t.hasHeader, rows };
  }

  it('header yes: the first row the names; numbers, text and empty cells as a CSV export holds them', async () => {
    const t = await sheet(
      't.xlsx',
      [
        ['age', 'city'],
        [39, ' Paris '],
        [7.5, null],
        [null, 'Lima'],
      ],
      { header: true },
    );
    expect(t.header).toEqual(['age', 'city']);
    expect(t.hasHeader).toBe(true);
    expect(t.rows).toEqual([
      ['39', 'Paris'],
      ['7.5', ''],
      ['', 'Lima'],
    ]);
  });

  it('header no: the first row is a record and the columns are column_1…column_N (as a CSV)', async () => {
    const t = await sheet(
      'no.xlsx',
      [
        ['Ann Smith', '1961-03-04', 'Oslo', 'HIV+'],
        ['Bob Lee', '1970-01-02', 'Lima', 'none'],
      ],
      { header: false },
    );
    expect(t.header).toEqual(['column_1', 'column_2', 'column_3', 'column_4']);
    expect(t.hasHeader).toBe(false);
    expect(t.rows).toEqual([
      ['Ann Smith', '1961-03-04', 'Oslo', 'HIV+'],
      ['Bob Lee', '1970-01-02', 'Lima', 'none'],
    ]);
  });

  it('unsaid: guessed by the CSV rule (header.ts), never taken as the names because it is a sheet', async () => {
    // A number in the first row: data.
    const numbered = await sheet(
      'n.xlsx',
      [
        ['Ann', 61],
        ['Bob', 70],
      ],
      {},
    );
    expect(numbered.hasHeader).toBe(false);
    expect(numbered.rows).toHaveLength(2);
    // A number column below an all-text first row: a header.
    const named = await sheet(
      'h.xlsx',
      [
        ['name', 'born'],
        ['Ann', 61],
      ],
      {},
    );
    expect(named.hasHeader).toBe(true);
    expect(named.header).toEqual(['name', 'born']);
  });
});
