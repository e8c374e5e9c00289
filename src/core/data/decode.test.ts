import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodedRows, decodeRows, decodeValue } from './decode.ts';
import { columnEncoder } from './encode.ts';
import type { CategoricalColumn, Column, NumericColumn, Schema } from './schema.ts';
import { domainSize } from './schema.ts';
import { binOf } from './values.ts';

const markers = { missingMarkers: ['?', '', 'NA'], outOfDomain: 'reject' as const };

const realColumn: NumericColumn = {
  name: 'r',
  kind: 'numeric',
  edges: [-1, 0.1, 0.2, 1e6],
  integer: false,
  missing: true,
};
const intColumn: NumericColumn = {
  name: 'i',
  kind: 'numeric',
  edges: [17, 24, 31.5, 90],
  integer: true,
  missing: false,
};
const catColumn: CategoricalColumn = {
  name: 'c',
  kind: 'categorical',
  categories: ['a', 'b, c', '"q"'],
  missing: true,
};

const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('decodeValue', () => {
  it('a uniform draw lands inside its bin, for any draw (real columns)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), unit, (bin, u) => {
        const text = decodeValue(realColumn, bin, { random: () => u });
        expect(binOf(realColumn.edges, Number(text))).toBe(bin);
      }),
    );
  });

  it('integer columns give integers inside the bin, covering all of them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), unit, (bin, u) => {
        const v = Number(decodeValue(intColumn, bin, { random: () => u }));
        expect(Number.isInteger(v)).toBe(true);
        expect(binOf(intColumn.edges, v)).toBe(bin);
      }),
    );
    const lastBin = new Set(
      Array.from({ length: 200 }, (_, k) => decodeValue(intColumn, 2, { random: () => k / 200 })),
    );
    expect([...lastBin].map(Number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 59 }, (_, k) => 32 + k),
    );
  });

  it('midpoints', () => {
    expect([0, 1, 2].map((b) => decodeValue(intColumn, b, { numeric: 'midpoint' }))).toEqual([
      '20',
      '27',
      '61',
    ]);
    expect(decodeValue(realColumn, 1, { numeric: 'midpoint' })).toBe('0.15');
  });

  it('the missing category decodes to the first missing marker, or the one given', () => {
    expect(decodeValue(catColumn, 3)).toBe('?');
    expect(decodeValue(realColumn, 3, { missingMarker: 'NA' })).toBe('NA');
  });

  it('refuses codes outside the domain', () => {
    expect(() => decodeValue(intColumn, 3)).toThrow('code 3 is outside column "i" (domain size 3)');
    expect(() => decodeValue(catColumn, -1)).toThrow('code -1 is outside column "c" (domain size 4)');
  });

  it('encoding a decoded value gives the code back, for every code (round trip)', () => {
    const columns: Column[] = [realColumn, intColumn, catColumn];
    fc.assert(
      fc.property(fc.constantFrom(...columns), fc.nat(), unit, fc.boolean(), (column, k, u, mid) => {
        const code = k % domainSize(column);
        const text = decodeValue(column, code, { random: () => u, numeric: mid ? 'midpoint' : 'uniform' });
        expect(columnEncoder(column, markers)(text)).toBe(code);
      }),
    );
  });
});

describe('decodeRows', () => {
  const schema: Schema = { version: 1, origin: 'declared', columns: [catColumn, intColumn] };

  it('turns codes per column into rows of text', () => {
    const rows = decodeRows(schema, [new Uint8Array([0, 3, 1]), new Uint8Array([2, 0, 1])], 3, {
      numeric: 'midpoint',
    });
    expect(rows).toEqual([
      ['a', '61'],
      ['?', '20'],
      ['b, c', '27'],
    ]);
  });

  it('checks that there is one code column per schema column', () => {
    expect(() => [...decodedRows(schema, [new Uint8Array(1)], 1)]).toThrow(
      'decode: 1 code columns for a schema of 2',
    );
  });
});
