import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeArray, columnEncoder, DatasetEncoder, OTHER_CATEGORY, withOtherCategory } from './encode.ts';
import { Rejections } from './rejections.ts';
import type { NumericColumn, Schema } from './schema.ts';

const opts = { missingMarkers: ['?', '', 'NA'], outOfDomain: 'reject' as const };

describe('columnEncoder: numeric', () => {
  const column: NumericColumn = {
    name: 'x',
    kind: 'numeric',
    edges: [-5, 0, 2.5, 10],
    integer: false,
    missing: true,
  };

  it('puts each number in the bin a linear scan finds (brute force)', () => {
    const encode = columnEncoder(column, opts);
    fc.assert(
      fc.property(fc.integer({ min: -160, max: 160 }), (eighths) => {
        const x = eighths / 8;
        const { edges } = column;
        let expected: number | string = 'value outside the declared range [-5, 10] of column "x"';
        for (let b = 0; b < edges.length - 1; b++) {
          const last = b === edges.length - 2;
          if (x >= edges[b] && (x < edges[b + 1] || (last && x === edges[b + 1]))) expected = b;
        }
        expect(encode(String(x))).toBe(expected);
      }),
    );
  });

  it('maps missing markers to the missing code, text to a reason', () => {
    const encode = columnEncoder(column, opts);
    expect(['?', '', 'NA'].map(encode)).toEqual([3, 3, 3]);
    expect(encode('ten')).toBe('non-numeric value in numeric column "x"');
  });

  it("clamps out-of-range numbers into the end bins with outOfDomain 'other'", () => {
    const encode = columnEncoder(column, { ...opts, outOfDomain: 'other' });
    expect([encode('-99'), encode('99'), encode('1')]).toEqual([0, 2, 1]);
  });
});

describe('columnEncoder: categorical', () => {
  it('a listed category wins over a missing marker with the same text', () => {
    const encode = columnEncoder(
      { name: 'c', kind: 'categorical', categories: ['a', '?'], missing: true },
      opts,
    );
    expect([encode('a'), encode('?'), encode('NA'), encode('b')]).toEqual([
      0,
      1,
      2,
      'value outside the declared categories of column "c"',
    ]);
  });
});

describe('withOtherCategory', () => {
  it('adds (other) to every categorical column, once, whatever the data', () => {
    const schema: Schema = {
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'a', kind: 'categorical', categories: ['x'], missing: false },
        { name: 'b', kind: 'categorical', categories: ['y', OTHER_CATEGORY], missing: false },
        { name: 'n', kind: 'numeric', edges: [0, 1], integer: false, missing: false },
      ],
    };
    const out = withOtherCategory(schema);
    expect(out.columns.map((c) => (c.kind === 'categorical' ? c.categories : c.edges))).toEqual([
      ['x', OTHER_CATEGORY],
      ['y', OTHER_CATEGORY],
      [0, 1],
    ]);
  });
});

describe('DatasetEncoder', () => {
  it('stores codes only for accepted rows, in compact arrays', () => {
    const schema: Schema = {
      version: 1,
      origin: 'declared',
      columns: [
        {
          name: 'c',
          kind: 'categorical',
          categories: Array.from({ length: 300 }, (_, i) => `v${i}`),
          missing: false,
        },
        { name: 'n', kind: 'numeric', edges: [0, 1, 2], integer: false, missing: false },
      ],
    };
    const rejections = new Rejections();
    const encoder = new DatasetEncoder(schema, [1, 0], opts, rejections);
    const rows = 3000;
    for (let i = 0; i < rows; i++) encoder.add([String((i % 3) + 0.5), `v${i % 300}`], i + 2);
    const data = encoder.finish();
    expect(data.n).toBe(2000);
    expect(data.codes[0]).toBeInstanceOf(Uint16Array);
    expect(data.codes[1]).toBeInstanceOf(Uint8Array);
    expect(data.codes[0].length).toBe(2000);
    expect(Array.from(data.codes[0].slice(0, 4))).toEqual([0, 1, 3, 4]);
    expect(Array.from(data.codes[1].slice(0, 4))).toEqual([0, 1, 0, 1]);
    expect(rejections.list()).toEqual([
      { reason: 'value outside the declared range [0, 2] of column "n"', count: 1000, firstLine: 4 },
    ]);
  });

  it('codeArray picks the narrowest type', () => {
    expect(codeArray(256, 1)).toBeInstanceOf(Uint8Array);
    expect(codeArray(257, 1)).toBeInstanceOf(Uint16Array);
    expect(codeArray(65537, 1)).toBeInstanceOf(Uint32Array);
  });
});
