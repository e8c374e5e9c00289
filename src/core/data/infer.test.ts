import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { SchemaInferrer } from './infer.ts';
import type { Column } from './schema.ts';

function infer(names: string[], rows: string[][], opts = {}): readonly Column[] {
  const inferrer = new SchemaInferrer('t.csv', opts);
  inferrer.start(names);
  rows.forEach((r, i) => {
    inferrer.row(r, i + 2);
  });
  const schema = inferrer.schema();
  expect(schema.origin).toBe('inferred');
  return schema.columns;
}

describe('SchemaInferrer', () => {
  it('text columns become categorical, sorted, with a missing category when a marker occurs', () => {
    const [c] = infer(['w'], [['Private'], ['?'], ['Federal-gov'], ['Private']]);
    expect(c).toEqual({
      name: 'w',
      kind: 'categorical',
      categories: ['Federal-gov', 'Private'],
      missing: true,
    });
  });

  it('few distinct numbers stay categorical, in numeric order, keeping their text', () => {
    const [c] = infer(['n'], [['10'], ['9'], ['1.5'], ['10']], { numericCategoryLimit: 3 });
    expect(c).toEqual({ name: 'n', kind: 'categorical', categories: ['1.5', '9', '10'], missing: false });
  });

  it('many distinct integers become integer bins between min and max', () => {
    const rows = Array.from({ length: 50 }, (_, i) => [String(100 + i * 2)]);
    const [c] = infer(['n'], [...rows, ['NA']], { numericBins: 4, numericCategoryLimit: 20 });
    expect(c).toEqual({
      name: 'n',
      kind: 'numeric',
      edges: [100, 124, 149, 173, 198],
      integer: true,
      missing: true,
    });
  });

  it('many distinct reals become equal-width real bins', () => {
    const rows = Array.from({ length: 30 }, (_, i) => [String(i / 10)]);
    const [c] = infer(['x'], rows, { numericBins: 3 });
    expect(c.kind === 'numeric' && c.integer).toBe(false);
    expect(c.kind === 'numeric' && c.edges).toEqual([0, 0.9666666666666667, 1.9333333333333333, 2.9]);
  });

  it('numbers past the category limit still make a numeric column', () => {
    const rows = Array.from({ length: 40 }, (_, i) => [String(i)]);
    const [c] = infer(['n'], rows, { maxCategories: 10 });
    expect(c.kind).toBe('numeric');
  });

  it('a column of only missing values has just the missing category', () => {
    const [c] = infer(['m'], [['?'], ['']]);
    expect(c).toEqual({ name: 'm', kind: 'categorical', categories: [], missing: true });
  });

  it('text past the category limit is an error naming line and column, even after numbers', () => {
    const rows = [...Array.from({ length: 12 }, (_, i) => [String(i)]), ['twelve']];
    const inferrer = new SchemaInferrer('t.csv', { maxCategories: 10 });
    inferrer.start(['n']);
    let error: unknown;
    try {
      rows.forEach((r, i) => {
        inferrer.row(r, i + 2);
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/^t\.csv, line 14, column "n": more than 10 distinct values\./);
  });
});
