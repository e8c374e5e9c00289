import { describe, expect, it } from 'vitest';
import { checkColumnNames, defaultColumnNames, holdsNames, looksLikeHeader } from './header.ts';

const missing = new Set(['?', '', 'NA']);

describe('looksLikeHeader', () => {
  it('a row with a number in it is data (UCI adult.data without its header)', () => {
    const first = ['39', 'State-gov', '77516', 'Bachelors'];
    const rest = [['50', 'Self-emp-not-inc', '83311', 'Bachelors']];
    expect(looksLikeHeader(first, rest, missing)).toBe(false);
  });

  it('text above a numeric column is a header', () => {
    const first = ['age', 'workclass'];
    const rest = [
      ['39', 'State-gov'],
      ['?', 'Private'],
    ];
    expect(looksLikeHeader(first, rest, missing)).toBe(true);
  });

  it('an all-text table: a header when its cells do not recur below', () => {
    const rest = [
      ['red', 'small'],
      ['blue', 'large'],
      ['red', 'large'],
    ];
    expect(looksLikeHeader(['color', 'size'], rest, missing)).toBe(true);
    expect(looksLikeHeader(['blue', 'small'], rest, missing)).toBe(false);
  });

  it('missing markers are neither numbers nor evidence', () => {
    expect(looksLikeHeader(['?', 'name'], [['1', 'x']], missing)).toBe(true);
    expect(looksLikeHeader(['a', 'b'], [['?', 'x']], missing)).toBe(true);
  });

  it('a lone all-text row is a header', () => {
    expect(looksLikeHeader(['a', 'b'], [], missing)).toBe(true);
  });
});

describe('holdsNames', () => {
  it('is true when every declared name is in the row, in any order', () => {
    expect(holdsNames(['b', 'a', 'extra'], ['a', 'b'])).toBe(true);
    expect(holdsNames(['b', 'x'], ['a', 'b'])).toBe(false);
  });
});

describe('checkColumnNames', () => {
  const where = (c: number) => `f.csv, line 1, column ${c + 1}`;
  it('accepts unique non-empty names', () => {
    expect(() => checkColumnNames(['a', 'b'], where)).not.toThrow();
  });
  it('names the empty one', () => {
    expect(() => checkColumnNames(['a', ''], where)).toThrow(
      'f.csv, line 1, column 2: empty column name; give every column a name.',
    );
  });
  it('names the duplicate and its twin', () => {
    expect(() => checkColumnNames(['a', 'b', 'a'], where)).toThrow(
      'f.csv, line 1, column 3: duplicate column name "a" (also column 1); column names must be unique.',
    );
  });
  it('default names', () => {
    expect(defaultColumnNames(3)).toEqual(['column_1', 'column_2', 'column_3']);
  });
});
