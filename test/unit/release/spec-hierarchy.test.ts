/**
 * Issue 28: `--hierarchy col=LEVELS` through the one spec module — parsed per column, declared
 * columns carry their hierarchy, others are discovered level by level; a hierarchy on a column
 * the column choice leaves out is refused.
 */
import { describe, expect, it } from 'vitest';
import { parseHierarchy } from '../../../src/core/data/hierarchy.ts';
import type { CategoricalColumn, Schema } from '../../../src/core/data/schema.ts';
import { dataSource, parseHierarchies, withColumnChoice } from '../../../src/core/release/spec.ts';

const declared: Schema = {
  version: 1,
  origin: 'declared',
  columns: [{ name: 'dx', kind: 'categorical', categories: ['C', 'C34'], missing: false }],
};

describe('--hierarchy in the spec module', () => {
  it('parses COLUMN=LEVELS entries and refuses bad ones, naming the column', () => {
    const h = parseHierarchies(['diagnosis=icd10', 'zip=postcode', 'naics=naics,full-codes']);
    expect(h.zip.preset).toBe('postcode');
    expect(h.naics.fullCodes).toBe(true);
    expect(() => parseHierarchies(['diagnosis'])).toThrow(/COLUMN=LEVELS/);
    expect(() => parseHierarchies(['a=icd10', 'a=naics'])).toThrow(/twice/);
    expect(() => parseHierarchies(['a=3,1'])).toThrow(/hierarchy of "a": levels must be ascending/);
  });

  it('gives a declared column its hierarchy and sends the others to discovery', () => {
    const source = dataSource({
      path: 'f.csv',
      schema: declared,
      undeclared: 'discover',
      hierarchies: { dx: parseHierarchy('icd10'), zip: parseHierarchy('postcode') },
    });
    expect((source.schema.columns[0] as CategoricalColumn).hierarchy?.preset).toBe('icd10');
    expect(Object.keys(source.hierarchies ?? {})).toEqual(['zip']);
    expect(source.discover).toEqual({});
    // A schema file's hierarchy on a column without categories reaches discovery the same way.
    const fromFile = dataSource({
      path: 'f.csv',
      schema: { ...declared, hierarchies: { zip: parseHierarchy('postcode') } },
      undeclared: 'discover',
    });
    expect(Object.keys(fromFile.hierarchies ?? {})).toEqual(['zip']);
    expect(() => withColumnChoice(fromFile, { exclude: ['zip'] })).toThrow(
      /marks "zip", which the column choice leaves out/,
    );
  });
});
