import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import type { Schema } from './schema.ts';
import { describeSchemaOrigin } from './schema.ts';
import { confirmSchema, parseSchemaJson, schemaToJson } from './schema-file.ts';

const schema: Schema = {
  version: 1,
  origin: 'inferred',
  columns: [
    { name: 'age', kind: 'numeric', edges: [17, 24, 31, 90], integer: true, missing: false },
    { name: 'workclass', kind: 'categorical', categories: ['Private', 'State-gov', '?'], missing: true },
    { name: 'ratio', kind: 'numeric', edges: [0, 0.5, 1], integer: false, missing: true },
  ],
};

function parseError(json: unknown): string {
  try {
    parseSchemaJson(typeof json === 'string' ? json : JSON.stringify(json), 's.json');
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
  throw new Error('expected the schema to be refused');
}

const col = (extra: object) => ({ name: 'x', kind: 'categorical', categories: ['a'], ...extra });
const withColumns = (...columns: object[]) => ({ version: 1, origin: 'declared', columns });

describe('schema JSON', () => {
  it('round-trips through schemaToJson', () => {
    const text = schemaToJson(schema);
    expect(parseSchemaJson(text, 's.json')).toEqual(schema);
    expect(
      text.startsWith('{\n  "format": "rap-studio-schema",\n  "version": 1,\n  "origin": "inferred",\n'),
    ).toBe(true);
  });

  it('expands lower/upper/bins into edges and defaults missing and integer to false', () => {
    const parsed = parseSchemaJson(
      JSON.stringify(
        withColumns(
          { name: 'age', kind: 'numeric', lower: 0, upper: 100, bins: 4, integer: true },
          { name: 'c', kind: 'categorical', categories: ['a', 'b'] },
        ),
      ),
      's.json',
    );
    expect(parsed.columns).toEqual([
      { name: 'age', kind: 'numeric', edges: [0, 25, 50, 75, 100], integer: true, missing: false },
      { name: 'c', kind: 'categorical', categories: ['a', 'b'], missing: false },
    ]);
  });

  it.each([
    ['{ not json', /^s\.json: not valid JSON \(.+\)\.$/],
    [
      { version: 2, origin: 'declared', columns: [] },
      's.json: schema version 2 is newer than this RAP Studio reads (1); update RAP Studio.',
    ],
    [
      { version: 1, origin: 'public', columns: [col({}), col({ name: 'y' })] },
      /^s\.json: invalid schema file: origin: .+\.$/,
    ],
    [withColumns(col({})), 's.json: invalid schema file: columns: needs at least two columns.'],
    [
      withColumns(col({}), col({ name: '' })),
      's.json: invalid schema file: columns[1].name: must be a non-empty string.',
    ],
    [
      withColumns(col({}), col({ kind: 'date' })),
      /^s\.json: invalid schema file: columns\[1\] \("x"\)\.kind: .+\.$/,
    ],
    [
      withColumns(col({}), col({ colour: 'red' })),
      /^s\.json: invalid schema file: columns\[1\] \("x"\): .*colour.*\.$/,
    ],
    [
      withColumns(col({}), col({})),
      's.json: invalid schema file: columns[1] ("x").name: duplicate column name.',
    ],
    [
      withColumns(col({}), col({ name: 'y', categories: ['a', 'a'] })),
      's.json: invalid schema file: columns[1] ("y").categories: duplicate category.',
    ],
    [
      withColumns(col({}), col({ name: 'y', categories: [] })),
      's.json: invalid schema file: columns[1] ("y").categories: empty, and no missing category.',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', edges: [0, 2, 1] }),
      's.json: invalid schema file: columns[1] ("n").edges: must be strictly ascending.',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', edges: [0, 0.2, 0.5, 1], integer: true }),
      's.json: invalid schema file: columns[1] ("n").edges: bin 1 holds no integer, but the column is integer.',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', edges: [0, 1], lower: 0, upper: 1, bins: 1 }),
      's.json: invalid schema file: columns[1] ("n"): give either "edges" or all of "lower", "upper" and "bins".',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', lower: 0, upper: 10 }),
      's.json: invalid schema file: columns[1] ("n"): "lower", "upper" and "bins" go together.',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', lower: 5, upper: 5, bins: 2 }),
      's.json: invalid schema file: columns[1] ("n"): "lower" must be less than "upper".',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', lower: 0.5, upper: 5, bins: 2, integer: true }),
      's.json: invalid schema file: columns[1] ("n"): an integer column needs integer "lower" and "upper".',
    ],
    [
      withColumns(col({}), { name: 'n', kind: 'numeric', lower: 0, upper: 5, bins: 0.5 }),
      /^s\.json: invalid schema file: columns\[1\] \("n"\)\.bins: .+\.$/,
    ],
  ])('refuses %j', (json, message) => {
    const got = parseError(json);
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });

  it('refuses bins of 4·10⁹ (and lists past the limit) before building edges, naming the 100,000 limit', () => {
    const text = (column: object) =>
      JSON.stringify({
        version: 1,
        origin: 'declared',
        columns: [column, { name: 'b', kind: 'categorical', categories: ['x'] }],
      });
    expect(() =>
      parseSchemaJson(
        text({ name: 'age', kind: 'numeric', lower: 0, upper: 1, bins: 4_000_000_000 }),
        's.json',
      ),
    ).toThrow(/columns\[0\] \("age"\)\.bins: must be at most 100,000/);
    expect(() =>
      parseSchemaJson(
        text({
          name: 'c',
          kind: 'categorical',
          categories: Array.from({ length: 100_001 }, (_, i) => `v${i}`),
        }),
        's.json',
      ),
    ).toThrow(/categories: must be at most 100,000/);
  });

  it('lists several problems at once', () => {
    const got = parseError(withColumns(col({ categories: 'a' }), col({ missing: 'yes' })));
    expect(got).toMatch(
      /^s\.json: invalid schema file: columns\[0\] \("x"\)\.categories: .+; columns\[1\] \("x"\)\.missing: .+\.$/,
    );
  });
});

describe('confirmSchema', () => {
  it('makes an inferred schema declared and remembers where it came from', () => {
    const confirmed = confirmSchema(schema);
    expect(confirmed.origin).toBe('declared');
    expect(confirmed.confirmedFromInferred).toBe(true);
    expect(describeSchemaOrigin(confirmed)).toMatch(/^declared \(confirmed from an inferred schema/);
    expect(parseSchemaJson(schemaToJson(confirmed), 's.json')).toEqual(confirmed);
  });

  it('leaves a declared schema without the flag', () => {
    const declared = confirmSchema({ ...schema, origin: 'declared' });
    expect(declared.confirmedFromInferred).toBeUndefined();
    expect(describeSchemaOrigin(declared)).toBe('declared (public domain file)');
    expect(describeSchemaOrigin(schema)).toMatch(/^inferred from the private data/);
  });
});
