import { afterAll, describe, expect, it } from 'vitest';
import { loadBenchmark, parseDomainJson } from './benchmark.ts';
import { decodeRows } from './decode.ts';
import { layoutOf } from './onehot.ts';
import { sharedDataset, tempDir } from './testing.ts';

const dir = tempDir();
afterAll(() => dir.remove());

describe('parseDomainJson', () => {
  it('refuses a domain of 4·10⁹ before building any category list, naming the 100,000 limit', () => {
    const text = JSON.stringify({ age: 4_000_000_000, sex: 2 });
    expect(() => parseDomainJson(text, 'd.json')).toThrow(
      /"age": must be at most 100,000 \(RAP Studio's limit/,
    );
    expect(() => parseDomainJson(JSON.stringify({ a: 100_001, b: 2 }), 'd.json')).toThrow(/at most 100,000/);
    expect(parseDomainJson(JSON.stringify({ a: 100_000, b: 2 }), 'd.json').columns[0]).toMatchObject({
      categories: { length: 100_000 },
    });
  });

  it('makes categorical columns 0..size-1 in the file order, declared', () => {
    const schema = parseDomainJson('{"b": 2, "a": 3}', 'd.json');
    expect(schema.origin).toBe('declared');
    expect(schema.columns).toEqual([
      { name: 'b', kind: 'categorical', categories: ['0', '1'], missing: false },
      { name: 'a', kind: 'categorical', categories: ['0', '1', '2'], missing: false },
    ]);
  });

  it.each([
    ['[1, 2]', /^d\.json: invalid domain file \(expected \{"column": size, …\}\): \(top level\): .+\.$/],
    [
      '{"a": 2, "b": 0}',
      'd.json: invalid domain file (expected {"column": size, …}): "b": must be a positive integer.',
    ],
    [
      '{"a": 2, "b": 1.5}',
      'd.json: invalid domain file (expected {"column": size, …}): "b": must be an integer.',
    ],
    [
      '{"a": 2}',
      'd.json: invalid domain file (expected {"column": size, …}): (top level): needs at least two columns.',
    ],
    ['{"a": 2,', /^d\.json: not valid JSON \(.+\)\.$/],
  ])('refuses %s', (text, message) => {
    let got = '';
    try {
      parseDomainJson(text, 'd.json');
    } catch (err) {
      got = (err as Error).message;
    }
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });
});

describe('loadBenchmark', () => {
  it('loads integer codes and rejects codes outside the domain', async () => {
    const csv = dir.file('b.csv', 'x,y,z\n0,1,9\n1,2,9\n1,0,9\n');
    const domain = dir.file('b.json', '{"y": 3, "x": 2}');
    const { dataset, summary } = await loadBenchmark(csv, domain);
    expect(summary.ignoredColumns).toEqual(['z']);
    expect(dataset.n).toBe(3);
    expect(decodeRows(dataset.schema, dataset.codes, dataset.n)).toEqual([
      ['1', '0'],
      ['2', '1'],
      ['0', '1'],
    ]);
    const small = dir.file('small.json', '{"x": 2, "y": 2}');
    const rejected = await loadBenchmark(csv, small);
    expect(rejected.summary.rejected).toEqual([
      { reason: 'value outside the declared categories of column "y"', count: 1, firstLine: 3 },
    ]);
  });

  it('names a missing domain file', async () => {
    const csv = dir.file('c.csv', 'x,y\n0,1\n');
    await expect(loadBenchmark(csv, `${dir.path}/none.json`)).rejects.toThrow(
      `${dir.path}/none.json: cannot read the domain file (no such file).`,
    );
  });

  const adult = sharedDataset('adult/adult.csv');
  const adultDomain = sharedDataset('adult/adult-domain.json');
  it.skipIf(!adult || !adultDomain)(
    'loads ADULT: 48,842 rows, one-hot width 588 (needs ../shared/datasets/adult)',
    async () => {
      const { dataset, summary } = await loadBenchmark(adult!, adultDomain!);
      expect(summary).toMatchObject({
        rowsRead: 48842,
        rowsAccepted: 48842,
        rejected: [],
        schemaOrigin: 'declared',
      });
      expect(dataset.n).toBe(48842);
      expect(layoutOf(dataset.schema).width).toBe(588);
      // First data row of adult.csv: 23,5,4,12,2,8,3,0,1,2,0,39,0,0
      expect(decodeRows(dataset.schema, dataset.codes, 1)[0]).toEqual([
        '23',
        '5',
        '4',
        '12',
        '2',
        '8',
        '3',
        '0',
        '1',
        '2',
        '0',
        '39',
        '0',
        '0',
      ]);
    },
  );
});
