/**
 * An Excel workbook (its first row the names, or a record), an SPSS file, a Stata file and a SAS
 * data set, each appended to a private
 * DuckDB table from its own reader's records (counting/record-table.ts) before the reservation:
 * discovery, the schema and every exact table counted from that table equal the streaming
 * path's, and the release with the same seed writes the same CSV, byte for byte, as the
 * streaming release of the same file; the curator's report says DuckDB counted, and no private
 * DuckDB folder is left behind. Files of more than one reader chunk (8,192 records) are made by
 * the tests' writers (data/formats/testing.ts); the Stata files were written by pandas.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRecordTable } from '../../../src/core/counting/record-table.ts';
import { sasBytes, xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { savBytes } from '../../../src/core/data/formats/write-sav.ts';
import { discoverAndLoad, planRawSource } from '../../../src/core/discovery/raw-source.ts';
import { seededNoise } from '../../../src/core/privacy/noise.ts';
import { discoverAndCount } from '../../../src/core/release/counted-source.ts';
import { contingencyTable } from '../../../src/core/workload/exact.ts';
import { privateTempFolder, releaseFromFlags } from '../../support/counted-release.ts';

// DuckDB's private folders go under a temp folder of this file's own, to see what is left behind.
const { dir, left: duckdbLeft } = privateTempFolder('rap-counted-formats-');
const FIXTURES = path.join(import.meta.dirname, '..', 'formats', 'fixtures');

/** More rows than one reader chunk (8,192); numbers, texts, missing values, a rare value. */
const N = 8300;
const row = (i: number) => [
  i % 19 === 0 ? null : 18 + ((i * 37) % 70),
  i === 0 ? 'Rare' : ['Oslo', 'Bergen', 'Tromsø'][i % 3],
  (i * 7) % 4,
  i % 23 === 0 ? null : 20 + ((i * 13) % 40),
];

const FORMATS = [
  {
    name: 'an Excel workbook',
    file: 'people.xlsx',
    make: (to: string) =>
      writeFileSync(
        to,
        xlsxBytes([['age', 'city', 'band', 'hours'], ...Array.from({ length: N }, (_, i) => row(i))]),
      ),
    names: ['age', 'city', 'band', 'hours'],
    // A sheet's first row names the columns only where the curator says so (as a CSV's).
    header: true,
  },
  {
    name: 'an Excel sheet whose first row is a record (--header no)',
    file: 'records.xlsx',
    // Its first record fills every column: a sheet stores no empty cell past a row's last value,
    // and the reader makes every row as wide as the first (xlsx.ts).
    make: (to: string) => writeFileSync(to, xlsxBytes(Array.from({ length: N }, (_, i) => row(i + 1)))),
    names: ['column_1', 'column_2', 'column_3', 'column_4'],
    header: false,
  },
  {
    name: 'an SPSS file with value labels',
    file: 'people.sav',
    make: (to: string) =>
      writeFileSync(
        to,
        savBytes(
          [
            { name: 'age', type: 'numeric' },
            { name: 'city', type: 'string' },
            {
              name: 'band',
              type: 'numeric',
              labels: [
                [0, 'low'],
                [1, 'mid'],
                [2, 'high'],
                [3, 'top'],
              ],
            },
            { name: 'hours', type: 'numeric' },
          ],
          Array.from({ length: N }, (_, i) => row(i)),
        ),
      ),
    names: ['age', 'city', 'band', 'hours'],
  },
  {
    name: 'a labelled Stata file (pandas)',
    file: 'people.dta',
    make: (to: string) => copyFileSync(path.join(FIXTURES, 'people-labelled-117.dta'), to),
    names: ['age', 'city', 'income', 'smoker'],
  },
  {
    name: 'a SAS data set (RLE rows, 64-bit)',
    file: 'people.sas7bdat',
    make: (to: string) =>
      writeFileSync(
        to,
        sasBytes(
          { u64: true, little: true, rle: true },
          [
            { name: 'age', type: 'numeric', width: 8 },
            { name: 'city', type: 'char', width: 12 },
            { name: 'band', type: 'numeric', width: 8 },
            { name: 'hours', type: 'numeric', width: 8 },
          ],
          Array.from({ length: N }, (_, i) => row(i)),
        ),
      ),
    names: ['age', 'city', 'band', 'hours'],
  },
] as const;

beforeAll(() => {
  for (const f of FORMATS) f.make(path.join(dir, f.file));
});

/** Every one-way, two-way and one three-way table, one listed out of order. */
const sets = (k: number) => [
  ...Array.from({ length: k }, (_, i) => [i]),
  ...Array.from({ length: k }, (_, i) => Array.from({ length: k - i - 1 }, (_, j) => [i, i + j + 1])).flat(),
  [2, 0, 1],
];

const WORKLOAD = (names: readonly string[]) => ({
  thresholds: [
    { features: [names[0], names[1]], r: 2 },
    { features: [names[1], names[2], names[3]], r: 2 },
    { features: [names[2], names[3]], r: 1 },
  ],
});

async function release(file: string, names: readonly string[], streaming: boolean, header?: boolean) {
  const tag = `${path.basename(file)}-${streaming ? 'streamed' : 'counted'}`;
  const at = (f: string) => path.join(dir, f);
  writeFileSync(at(`w-${tag}.json`), JSON.stringify(WORKLOAD(names)));
  return releaseFromFlags(
    dir,
    tag,
    {
      data: file,
      workload: at(`w-${tag}.json`),
      out: at(`${tag}.csv`),
      epsilon: '1',
      rows: '100',
      oversample: '2',
      maxSteps: '20',
      threads: '1',
      seed: '4',
      insecureSeed: true,
      budgetEpsilon: '100',
      confirmCap: true,
      ...(header === undefined ? {} : { header: header ? 'yes' : 'no' }),
    },
    streaming ? { counting: 'streaming' as const } : {},
  );
}

describe.each(FORMATS)('$name, appended to a private DuckDB table', (f) => {
  it('discovery, the schema and the exact tables equal the streaming path', async () => {
    const file = path.join(dir, f.file);
    const said = 'header' in f ? { header: f.header } : {};
    const plan = await planRawSource(file, [], { epsilon: 1, delta: 1e-6, share: 0.2 }, said);
    expect(plan.header).toEqual(f.names);
    const streamed = await discoverAndLoad(plan, rowsOf(f.file), seededNoise(3));
    const n = streamed.loaded.dataset.n;
    const table = await loadRecordTable(file, plan.header, said);
    try {
      const counted = await discoverAndCount(plan, n, seededNoise(3), (s) => sets(s.columns.length), {
        table,
      });
      if (counted.counting.by !== 'duckdb' || !('data' in counted))
        throw new Error(`streamed: ${JSON.stringify(counted.counting)}`);
      expect(counted.discovery).toEqual(streamed.discovery);
      expect(counted.data.dataset.schema).toEqual(streamed.loaded.dataset.schema);
      expect(counted.data.dataset.n).toBe(n);
      for (const fs of sets(f.names.length)) {
        const sorted = [...fs].sort((a, b) => a - b);
        const exact = counted.data.dataset.tables.get(sorted.join(','));
        expect(exact && Array.from(exact)).toEqual(
          Array.from(contingencyTable(streamed.loaded.dataset, sorted)),
        );
      }
    } finally {
      await table.dispose();
    }
    expect(duckdbLeft()).toEqual([]);
  });

  it('the release with the same seed writes the same CSV as the streaming release', async () => {
    const file = path.join(dir, f.file);
    const header = 'header' in f ? f.header : undefined;
    const counted = await release(file, f.names, false, header);
    const streamed = await release(file, f.names, true, header);
    expect(counted.report.counting).toEqual({ by: 'duckdb' });
    expect(streamed.report.counting).toEqual({ by: 'streaming', why: 'asked for' });
    expect(counted.csv.equals(streamed.csv)).toBe(true);
    expect(duckdbLeft()).toEqual([]);
  });
});

/** The data rows of each test file (the Stata fixture has 300). */
function rowsOf(file: string): number {
  return file.endsWith('.dta') ? 300 : N;
}

describe('a load that fails leaves no private folder', () => {
  it('a damaged file is refused with a message naming it', async () => {
    const file = path.join(dir, 'broken.sas7bdat');
    writeFileSync(file, readFileSync(path.join(dir, 'people.sas7bdat')).subarray(0, 3000));
    await expect(loadRecordTable(file, ['age'])).rejects.toThrow(
      /broken\.sas7bdat: not a readable SAS data set/,
    );
    expect(duckdbLeft()).toEqual([]);
  });

  it('a cancel while the records are appended', async () => {
    const ac = new AbortController();
    const loading = loadRecordTable(path.join(dir, 'people.sas7bdat'), ['age', 'city'], {
      signal: ac.signal,
    });
    setImmediate(() => ac.abort());
    await expect(loading).rejects.toThrow(/abort/i);
    expect(duckdbLeft()).toEqual([]);
  });
});
