import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeValue } from './decode.ts';
import { columnEncoder, OTHER_CATEGORY } from './encode.ts';
import {
  finestCategory,
  HIERARCHY_PRESETS,
  hierarchyText,
  keyAt,
  keysOf,
  leavesUnder,
  parseHierarchy,
  publicChildren,
  publicFanout,
  publicTopKeys,
} from './hierarchy.ts';
import type { CategoricalColumn } from './schema.ts';
import { parseSchemaJson, schemaToJson } from './schema-file.ts';

describe('hierarchy presets and the text form', () => {
  it('parses the presets: icd10 = 1, 3, full; postcode = 3, 5; naics = 2..6', () => {
    expect(parseHierarchy('icd10').levels.map((l) => l.length)).toEqual([1, 3, 'full']);
    expect(parseHierarchy('postcode').levels.map((l) => l.length)).toEqual([3, 5]);
    expect(parseHierarchy('naics').levels.map((l) => l.length)).toEqual([2, 3, 4, 5, 6]);
    expect(parseHierarchy('icd10,full-codes').fullCodes).toBe(true);
    // Public alphabets: 26 chapter letters; 10·36 categories per letter; ICD full codes private.
    const icd = HIERARCHY_PRESETS.icd10;
    expect(publicTopKeys(icd)).toHaveLength(26);
    expect(publicFanout(icd, 1)).toBe(360);
    expect(publicFanout(icd, 2)).toBeUndefined();
    expect(publicChildren(HIERARCHY_PRESETS.postcode, '021', 1)).toHaveLength(100);
  });

  it('parses lengths, digits, separators and full-codes, and round-trips the text (property)', () => {
    expect(parseHierarchy('1,3,full').levels.map((l) => l.length)).toEqual([1, 3, 'full']);
    expect(parseHierarchy('3,5,digits').levels[1].charsets).toEqual(['0123456789', '0123456789']);
    expect(parseHierarchy('sep=.,1,2').separator).toBe('.');
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (ls, full, digits, codes) => {
          const lengths = [...ls].sort((a, b) => a - b);
          const text = [
            ...lengths,
            ...(full ? ['full'] : []),
            ...(digits ? ['digits'] : []),
            ...(codes ? ['full-codes'] : []),
          ].join(',');
          const h = parseHierarchy(text);
          expect(parseHierarchy(hierarchyText(h))).toEqual(h);
        },
      ),
    );
    for (const p of ['icd10', 'postcode', 'naics', 'icd10,full-codes'])
      expect(parseHierarchy(hierarchyText(parseHierarchy(p)))).toEqual(parseHierarchy(p));
  });

  it('refuses bad levels with a message saying what to write', () => {
    expect(() => parseHierarchy('')).toThrow(/preset/);
    expect(() => parseHierarchy('3,2')).toThrow(/ascending/);
    expect(() => parseHierarchy('full,3')).toThrow(/last/);
    expect(() => parseHierarchy('icd10,3')).toThrow(/alone/);
    expect(() => parseHierarchy('zip')).toThrow(/not a level/);
  });

  it('reads a schema file column with a hierarchy, with categories (declared) or without (to discover)', () => {
    const text = JSON.stringify({
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'dx', kind: 'categorical', categories: ['C', 'C34', 'I10'], hierarchy: 'icd10' },
        { name: 'zip', kind: 'categorical', hierarchy: { preset: 'postcode' } },
        { name: 'naics', kind: 'categorical', hierarchy: { levels: [2, 4], digits: true, fullCodes: true } },
      ],
    });
    const schema = parseSchemaJson(text, 's.json');
    expect(schema.columns.map((c) => c.name)).toEqual(['dx']);
    expect((schema.columns[0] as CategoricalColumn).hierarchy?.preset).toBe('icd10');
    expect(Object.keys(schema.hierarchies ?? {})).toEqual(['zip', 'naics']);
    expect(schema.hierarchies?.naics.fullCodes).toBe(true);
    expect(parseSchemaJson(schemaToJson(schema), 'again.json')).toEqual(schema);
    const bad = JSON.stringify({
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'a', kind: 'categorical' },
        { name: 'b', kind: 'categorical', hierarchy: '5,3' },
      ],
    });
    expect(() => parseSchemaJson(bad, 'bad.json')).toThrow(
      /columns\[0\] \("a"\)\.categories: required.*columns\[1\] \("b"\)\.hierarchy: levels must be ascending/,
    );
  });
});

describe('keys, the finest released key, and full-code decoding', () => {
  const icd = HIERARCHY_PRESETS.icd10;

  it('gives each value at most one key per level, each key a prefix of the next', () => {
    expect(keysOf(icd, 'C34.90')).toEqual(['C', 'C34', 'C34.90']);
    expect(keysOf(icd, 'I10')).toEqual(['I', 'I10']);
    expect(keyAt(icd, 'I10', 2)).toBeUndefined();
    expect(keysOf(parseHierarchy('sep=.,1,2,full'), 'a.b.c.d')).toEqual(['a', 'a.b', 'a.b.c.d']);
    fc.assert(
      fc.property(fc.string({ maxLength: 9 }), (v) => {
        const keys = keysOf(icd, v);
        for (let i = 1; i < keys.length; i++) {
          expect(keys[i].startsWith(keys[i - 1])).toBe(true);
          expect(keys[i].length).toBeGreaterThan(keys[i - 1].length);
        }
      }),
    );
  });

  it('encodes a code as its finest released key: C34.90 → C34 when only the category passed', () => {
    const column: CategoricalColumn = {
      name: 'dx',
      kind: 'categorical',
      categories: ['C', 'C34', 'C34.10', 'I', 'I10', OTHER_CATEGORY],
      missing: true,
      hierarchy: icd,
    };
    const enc = columnEncoder(column, { missingMarkers: [''], outOfDomain: 'other' });
    const at = (v: string) => column.categories[enc(v) as number] ?? 'missing';
    expect(at('C34.90')).toBe('C34');
    expect(at('C34.10')).toBe('C34.10');
    expect(at('C50.9')).toBe('C');
    expect(at('I10')).toBe('I10');
    expect(at('J18.9')).toBe(OTHER_CATEGORY);
    expect(at('')).toBe('missing');
    const index = new Map(column.categories.map((c, i) => [c, i]));
    expect(finestCategory(icd, 'Z00', index)).toBeUndefined();
  });

  it('with full codes, decodes a prefix as a released leaf under it only, a leaf as itself', () => {
    const categories = ['C', 'C34', 'C34.10', 'C34.11', 'C50', 'I', 'I10', OTHER_CATEGORY];
    const leaves = leavesUnder(icd, categories);
    const names = (i: number) => leaves[i].map((j) => categories[j]).sort();
    expect(names(1)).toEqual(['C34.10', 'C34.11']);
    expect(names(0)).toEqual(['C34.10', 'C34.11', 'C50']);
    expect(names(6)).toEqual([]);
    const column: CategoricalColumn = {
      name: 'dx',
      kind: 'categorical',
      categories,
      missing: false,
      hierarchy: { ...icd, fullCodes: true },
    };
    let u = 0;
    const random = () => (u = (u + 0.37) % 1);
    const seen = new Set<string>();
    for (let t = 0; t < 50; t++) seen.add(decodeValue(column, 1, { random }));
    expect([...seen].sort()).toEqual(['C34.10', 'C34.11']);
    expect(decodeValue(column, 6, { random })).toBe('I10');
    expect(decodeValue(column, 7, { random })).toBe(OTHER_CATEGORY);
    expect(decodeValue({ ...column, hierarchy: icd }, 1)).toBe('C34');
  });
});
