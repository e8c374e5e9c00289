/** Acceptance on the original UCI ADULT file (strings, '?' for missing, ', ' after each comma). */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from './csv.ts';
import { decodedRows } from './decode.ts';
import { type LoadResult, loadCsv } from './load.ts';
import { sharedDataset, tempDir } from './testing.ts';
import { binOf } from './values.ts';

const adult = sharedDataset('adult-raw/adult.data');
const dir = tempDir();
afterAll(() => dir.remove());

const NAMES = [
  'age',
  'workclass',
  'fnlwgt',
  'education',
  'education-num',
  'marital-status',
  'occupation',
  'relationship',
  'race',
  'sex',
  'capital-gain',
  'capital-loss',
  'hours-per-week',
  'native-country',
  'income',
];

describe.skipIf(!adult)('adult-raw/adult.data (needs ../shared/datasets/adult-raw)', () => {
  let loaded: LoadResult;
  beforeAll(async () => {
    loaded = await loadCsv(adult!);
  });

  it('loads with an inferred schema and decodes back to the original values', async () => {
    const { dataset, summary, header, fingerprint } = loaded;
    expect(summary).toMatchObject({
      rowsRead: 32561,
      rowsAccepted: 32561,
      rejected: [],
      schemaOrigin: 'inferred',
    });
    expect(header).toHaveLength(15);
    const columns = dataset.schema.columns;
    expect(columns.filter((c) => c.missing).map((c) => c.name)).toEqual([
      'workclass',
      'occupation',
      'native-country',
    ]);
    expect(columns.map((c) => c.kind).join(' ')).toBe(
      'numeric categorical numeric categorical categorical categorical categorical categorical categorical ' +
        'categorical numeric numeric numeric categorical categorical',
    );

    const original: string[][] = [];
    const read = await readCsvRecords(adult!, (fields) => original.push(fields));
    expect(read.fingerprint).toBe(fingerprint);
    original.shift(); // header
    let i = 0;
    let seed = 1;
    const random = () => ((seed = (seed * 48271) % 2147483647) - 1) / 2147483646;
    const mismatches: string[] = [];
    for (const row of decodedRows(dataset.schema, dataset.codes, dataset.n, { random })) {
      columns.forEach((c, j) => {
        const want = original[i][j];
        const same =
          c.kind === 'categorical' || want === '?'
            ? row[j] === want
            : binOf(c.edges, Number(row[j])) === binOf(c.edges, Number(want)) &&
              Number.isInteger(Number(row[j]));
        if (!same) mismatches.push(`row ${i} column ${c.name}`);
      });
      i++;
    }
    expect(i).toBe(32561);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('loads the same codes without its header row, named by `columns` or column_1…column_15', async () => {
    const lines = readFileSync(adult!, 'utf8').split('\n');
    const bare = dir.file('adult-noheader.data', lines.slice(1).join('\n'));
    const withHeader = loaded;
    const named = await loadCsv(bare, { columns: NAMES });
    expect(named.summary.hasHeader).toBe(false);
    expect(named.header).toEqual(NAMES);
    const same = (a: readonly ArrayLike<number>[], b: readonly ArrayLike<number>[]) =>
      a.length === b.length &&
      a.every((col, j) => Buffer.from(col as Uint8Array).equals(Buffer.from(b[j] as Uint8Array)));
    expect(same(named.dataset.codes, withHeader.dataset.codes)).toBe(true);
    const guessed = await loadCsv(bare, { schema: { ...withHeader.dataset.schema, origin: 'declared' } });
    expect(guessed.header[0]).toBe('column_1');
    expect(same(guessed.dataset.codes, withHeader.dataset.codes)).toBe(true);
  });
});
