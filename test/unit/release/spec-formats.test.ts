/**
 * Issue 28: a date or time format the curator states on a column read off the data (the app's
 * column editor, `date, MM/DD/YYYY`) reaches discovery as a stated format: the column is read in
 * it on the calendar grid without the private format test, and its domain is still discovered.
 */
import { describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/core/data/schema.ts';
import { dataSource } from '../../../src/core/release/spec.ts';

const readOffTheData: Schema = {
  version: 1,
  origin: 'declared',
  confirmedFromInferred: true,
  columns: [
    {
      name: 'admit_date',
      kind: 'categorical',
      categories: ['01/02/2023', '01/03/2023'],
      missing: false,
      temporal: { kind: 'date', format: 'MM/DD/YYYY' },
      provenance: { source: 'not-dp' },
    },
    {
      name: 'ward',
      kind: 'categorical',
      categories: ['A', 'B'],
      missing: false,
      provenance: { source: 'declared' },
    },
    {
      name: 'sex',
      kind: 'categorical',
      categories: ['F', 'M'],
      missing: false,
      provenance: { source: 'not-dp' },
    },
  ],
};

describe('a stated date format in the spec module', () => {
  it('sends a column read off the data with a stated format to discovery with that format', () => {
    const source = dataSource({ path: 'f.csv', schema: readOffTheData, undeclared: 'discover' });
    expect(source.schema.columns.map((c) => c.name)).toEqual(['ward']);
    expect(source.discover?.formats).toEqual({
      admit_date: { temporal: { kind: 'date', format: '%m/%d/%Y' } },
    });
  });

  it('states no format for columns without one, and none when nothing is discovered', () => {
    const plain: Schema = {
      ...readOffTheData,
      columns: readOffTheData.columns.filter((c) => c.name !== 'admit_date'),
    };
    expect(dataSource({ path: 'f.csv', schema: plain, undeclared: 'discover' }).discover).toEqual({});
    expect(
      dataSource({ path: 'f.csv', schema: readOffTheData, undeclared: 'as-read' }).discover,
    ).toBeUndefined();
  });
});
