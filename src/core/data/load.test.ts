import { appendFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { decodeRows } from './decode.ts';
import { OTHER_CATEGORY } from './encode.ts';
import { type LoadOptions, type LoadProgress, loadCsv } from './load.ts';
import type { EncodedDataset, Schema } from './schema.ts';
import { tempDir } from './testing.ts';

const dir = tempDir();
afterAll(() => dir.remove());

async function loadError(path: string, opts: LoadOptions = {}): Promise<InputError> {
  const err = await loadCsv(path, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

const declared: Schema = {
  version: 1,
  origin: 'declared',
  columns: [
    { name: 'color', kind: 'categorical', categories: ['red', 'green'], missing: false },
    { name: 'size', kind: 'numeric', edges: [0, 10, 20], integer: true, missing: true },
  ],
};

/** Rows back as text, numeric bins at their midpoint. */
function decoded(dataset: EncodedDataset): string[][] {
  return decodeRows(dataset.schema, dataset.codes, dataset.n, { numeric: 'midpoint' });
}

describe('loadCsv: bad input, each with the exact error', () => {
  it('an empty file', async () => {
    const path = dir.file('empty.csv', '');
    expect((await loadError(path)).message).toBe(
      `${path}: the file is empty; expected a header row and data rows.`,
    );
  });

  it('a file of blank lines is empty too', async () => {
    const path = dir.file('blank.csv', '\n\r\n  \n');
    expect((await loadError(path)).message).toBe(
      `${path}: the file is empty; expected a header row and data rows.`,
    );
  });

  it('a header only', async () => {
    const path = dir.file('header-only.csv', 'age,city\n');
    expect((await loadError(path)).message).toBe(
      `${path}, line 1: the file has a header row but no data rows (if that row is data, say the file has no header).`,
    );
  });

  it('duplicate header names', async () => {
    const path = dir.file('dup.csv', 'age,city,age\n1,a,2\n');
    const err = await loadError(path);
    expect(err.message).toBe(
      `${path}, line 1, column 3: duplicate column name "age" (also column 1); column names must be unique.`,
    );
    expect(err.where).toEqual({ column: 3 });
  });

  it('an empty header name', async () => {
    const path = dir.file('empty-name.csv', 'age,,city\n1,x,a\n');
    expect((await loadError(path)).message).toBe(
      `${path}, line 1, column 2: empty column name; give every column a name.`,
    );
  });

  it('a table with one column', async () => {
    const path = dir.file('one.csv', 'age\n1\n2\n');
    expect((await loadError(path)).message).toBe(
      `${path}, line 1: the table has only one column; RAP needs at least two. Is the delimiter one of ',', ';' or tab?`,
    );
  });

  it('non-UTF-8 bytes', async () => {
    const path = dir.file('latin1.csv', Buffer.from('city,n\nM\xfcnchen,1\n', 'latin1'));
    expect((await loadError(path)).message).toBe(
      `${path}, line 2, column 1: invalid UTF-8 byte 0xFC at byte offset 8; the file is not UTF-8 text. ` +
        'Re-save it as UTF-8 (in a spreadsheet: "CSV UTF-8").',
    );
  });

  it('ragged rows are rejected and counted by reason', async () => {
    const path = dir.file('ragged.csv', 'a,b,c\n1,2,3\n1,2\n4,5,6\n1,2,3,4\n7,8\n');
    const { summary, dataset } = await loadCsv(path);
    expect(dataset.n).toBe(2);
    expect(summary.rowsRead).toBe(5);
    expect(summary.rowsAccepted).toBe(2);
    expect(summary.rejected).toEqual([
      { reason: 'row has 2 fields, expected 3', count: 2, firstLine: 3 },
      { reason: 'row has 4 fields, expected 3', count: 1, firstLine: 5 },
    ]);
  });

  it('all rows ragged is an error', async () => {
    const path = dir.file('all-ragged.csv', 'a,b,c\n1,2\n3,4\n5\n');
    expect((await loadError(path)).message).toBe(
      `${path}: none of the 3 data rows could be loaded; most were rejected for: ` +
        'row has 2 fields, expected 3 (2 rows, first at line 2).',
    );
  });

  it('a value outside a declared domain: rejected and counted by default', async () => {
    const path = dir.file('domain.csv', 'color,size\nred,1\nblue,2\ngreen,30\ngreen,?\nred,-1\n');
    const { summary, dataset } = await loadCsv(path, { schema: declared });
    expect(summary.rejected).toEqual([
      { reason: 'value outside the declared categories of column "color"', count: 1, firstLine: 3 },
      { reason: 'value outside the declared range [0, 20] of column "size"', count: 2, firstLine: 4 },
    ]);
    expect(summary.rowsAccepted).toBe(2);
    expect(decoded(dataset)).toEqual([
      ['red', '4'],
      ['green', '?'],
    ]);
  });

  it("a value outside a declared domain: mapped to other with outOfDomain 'other'", async () => {
    const path = dir.file('domain-other.csv', 'color,size\nred,1\nblue,2\ngreen,30\nred,-1\n');
    const { summary, dataset } = await loadCsv(path, { schema: declared, outOfDomain: 'other' });
    expect(summary.rejected).toEqual([]);
    const color = dataset.schema.columns[0];
    expect(color.kind === 'categorical' && color.categories).toEqual(['red', 'green', OTHER_CATEGORY]);
    expect(decoded(dataset)).toEqual([
      ['red', '4'],
      [OTHER_CATEGORY, '4'],
      ['green', '15'],
      ['red', '4'],
    ]);
  });

  it('non-numeric text in a declared numeric column: rejected, the reason names the column', async () => {
    const path = dir.file('nonnum.csv', 'color,size\nred,1\nred,big\ngreen,1,5\ngreen,0x10\n');
    const { summary } = await loadCsv(path, { schema: declared });
    expect(summary.rejected).toEqual([
      { reason: 'non-numeric value in numeric column "size"', count: 2, firstLine: 3 },
      { reason: 'row has 3 fields, expected 2', count: 1, firstLine: 4 },
    ]);
  });

  it('a missing value in a column declared without a missing category', async () => {
    const path = dir.file('missing.csv', 'color,size\n?,1\nred,NA\n');
    const { summary } = await loadCsv(path, { schema: declared });
    expect(summary.rejected).toEqual([
      {
        reason: 'missing value in column "color", whose schema has no missing category',
        count: 1,
        firstLine: 2,
      },
    ]);
  });

  it('more categories than the limit in one column, when inferring', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `id-${i},${i % 2}`).join('\n');
    const path = dir.file('ids.csv', `id,flag\n${rows}\n`);
    const err = await loadError(path, { maxCategories: 25 });
    expect(err.message).toBe(
      `${path}, line 27, column "id": more than 25 distinct values. If the column is numeric, declare it numeric ` +
        '(with bounds) in a schema file; if it is an identifier, drop it; otherwise raise the category limit.',
    );
    expect(err.where).toEqual({ file: path, line: 27, column: 'id' });
  });

  it('a declared column the table lacks', async () => {
    const path = dir.file('lacks.csv', 'colour,size\nred,1\n');
    expect((await loadError(path, { schema: declared, header: true })).message).toBe(
      `${path}, line 1: the schema's column "color" is not in the table (the header has: colour, size); ` +
        'rename the column or fix the schema.',
    );
  });

  it('a declared schema that breaks the schema rules', async () => {
    const path = dir.file('fine.csv', 'color,size\nred,1\n');
    const broken: Schema = {
      ...declared,
      columns: [
        declared.columns[0],
        { name: 'size', kind: 'numeric', edges: [10, 0], integer: false, missing: false },
      ],
    };
    expect((await loadError(path, { schema: broken })).message).toBe(
      'the declared schema: invalid schema: columns[1] ("size").edges: must be strictly ascending.',
    );
  });

  it('a file that changes between the two passes', async () => {
    const path = dir.file('changing.csv', 'a,b\nx,1\ny,2\n');
    const onProgress = (p: LoadProgress) => {
      if (p.phase === 'infer' && p.bytes === p.totalBytes / 2) appendFileSync(path, 'z,3\n');
    };
    expect((await loadError(path, { onProgress })).message).toBe(
      `${path}: the file changed while it was being read (its SHA-256 differs between the two passes); ` +
        'load it again once nothing is writing to it.',
    );
  });
});

describe('loadCsv: headers', () => {
  it('detects a file without a header and names the columns column_1…column_N', async () => {
    const path = dir.file('noheader.csv', '39, State-gov, 77516\n50, Private, 83311\n');
    const { header, summary, dataset } = await loadCsv(path);
    expect(header).toEqual(['column_1', 'column_2', 'column_3']);
    expect(summary.hasHeader).toBe(false);
    expect(dataset.n).toBe(2);
  });

  it('a first line of another width (adult.test\'s "|1x3 Cross validator") is a rejected row, not a header', async () => {
    const path = dir.file('junk.csv', '|1x3 Cross validator\n25, Private, <=50K.\n38, ?, >50K.\n');
    const { header, summary } = await loadCsv(path);
    expect(header).toEqual(['column_1', 'column_2', 'column_3']);
    expect(summary.rowsAccepted).toBe(2);
    expect(summary.rejected).toEqual([{ reason: 'row has 1 fields, expected 3', count: 1, firstLine: 1 }]);
  });

  it('uses the given column names, for a file with or without a header', async () => {
    const columns = ['age', 'workclass'];
    const bare = dir.file('bare.csv', '39,State-gov\n50,Private\n');
    const named = dir.file('named.csv', 'a,b\n39,State-gov\n50,Private\n');
    for (const path of [bare, named]) {
      const { header, dataset } = await loadCsv(path, { columns });
      expect(header).toEqual(columns);
      expect(dataset.schema.columns.map((c) => c.name)).toEqual(columns);
      expect(dataset.n).toBe(2);
    }
    expect((await loadError(bare, { columns: ['x'] })).message).toBe(
      `${bare}: 1 column names were given but the table has 2 columns.`,
    );
  });

  it('maps a declared schema by name, ignoring extra columns, and positionally without a header', async () => {
    const path = dir.file('extra.csv', 'id,size,color\n1,5,red\n2,15,green\n');
    const named = await loadCsv(path, { schema: declared });
    expect(named.summary.ignoredColumns).toEqual(['id']);
    expect(decoded(named.dataset)).toEqual([
      ['red', '4'],
      ['green', '15'],
    ]);
    const bare = dir.file('positional.csv', 'red,5\ngreen,15\n');
    const positional = await loadCsv(bare, { schema: declared });
    expect(positional.summary.hasHeader).toBe(false);
    expect(positional.dataset.n).toBe(2);
  });
});

describe('loadCsv: progress and summary', () => {
  it('reports both passes of an inferred load as one 0→100% run', async () => {
    const text = `a,b\n${'x,1\n'.repeat(2000)}`;
    const path = dir.file('progress.csv', text);
    const seen: LoadProgress[] = [];
    await loadCsv(path, { onProgress: (p) => seen.push(p) });
    expect(seen[0].phase).toBe('infer');
    expect(seen.at(-1)).toEqual({
      bytes: 2 * text.length,
      totalBytes: 2 * text.length,
      rows: 2001,
      phase: 'encode',
    });
    for (let i = 1; i < seen.length; i++) expect(seen[i].bytes).toBeGreaterThanOrEqual(seen[i - 1].bytes);
  });

  it('marks the schema origin and the delimiter', async () => {
    const path = dir.file('semi.csv', 'a;b\nx;1\ny;2\n');
    const inferred = await loadCsv(path);
    expect(inferred.summary.schemaOrigin).toBe('inferred');
    expect(inferred.summary.delimiter).toBe(';');
    expect(inferred.dataset.schema.origin).toBe('inferred');
  });
});
