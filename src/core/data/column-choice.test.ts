import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ColumnChoice, excludedColumns, keptColumnIndices, parseColumnList } from './column-choice.ts';
import { Rejections } from './rejections.ts';
import { readTable } from './table.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-choice-'));
  writeFileSync(path.join(dir, 't.csv'), 'id,a,b,c\nsecret-1,x,1,NA\nsecret-2,y,2\nsecret-3,z,3,?\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(choice: ColumnChoice) {
  const rows: string[][] = [];
  let header: readonly string[] = [];
  const rejections = new Rejections();
  await readTable(
    path.join(dir, 't.csv'),
    { start: (s) => (header = s.header), row: (v) => rows.push([...v]) },
    rejections,
    { choice, raggedAsMissing: true },
  );
  return { header, rows, rejected: rejections.list() };
}

describe('the column choice, applied by the reader', () => {
  it('drops a left-out column from every record before the sink sees it', async () => {
    const t = await read({ exclude: ['id'] });
    expect(t.header).toEqual(['a', 'b', 'c']);
    expect(JSON.stringify(t.rows)).not.toContain('secret');
    expect(t.rows[0]).toEqual(['x', '1', 'NA']);
    // A row's width is still checked against the whole table (4), and kept as missing in the 3 kept.
    expect(t.rows[1]).toEqual(['?', '?', '?']);
    expect(t.rejected[0].reason).toContain('row has 3 fields, expected 4');
  });

  it('keeps only the listed columns, in the header’s order', async () => {
    const t = await read({ only: ['c', 'a'] });
    expect(t.header).toEqual(['a', 'c']);
    expect(t.rows[2]).toEqual(['z', '?']);
  });

  it('refuses an unknown name with the header, and a choice keeping fewer than two columns', async () => {
    await expect(read({ exclude: ['ID'] })).rejects.toThrow(
      /the columns to leave out \(--exclude\) name "ID", which is not a column of the table \(its header: id, a, b, c\)/,
    );
    expect(() => keptColumnIndices('f.csv', ['id', 'a'], { only: ['a'] })).toThrow(
      'leave 1 column to release; a release needs at least two',
    );
  });

  it('parses a list and names the columns left out', () => {
    expect(parseColumnList('L', ' a , b ')).toEqual(['a', 'b']);
    expect(() => parseColumnList('L', 'a,,b')).toThrow('an empty name');
    expect(() => parseColumnList('L', 'a,a')).toThrow('lists the column "a" twice');
    expect(excludedColumns(['id', 'a', 'b'], { only: ['a', 'b'] })).toEqual(['id']);
    expect(excludedColumns(['id', 'a', 'b'], undefined)).toEqual([]);
  });
});
