/**
 * Frictionless Table Schema in and out: the spec's own examples validate; each field type maps to
 * the declared column (or open field) the module's header states; bad descriptors are refused
 * naming the field; a released schema written as a Table Schema reads back to the same domain.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatNumberText, type NumberFormat } from './formats.ts';
import { type Column, SCHEMA_VERSION, type Schema } from './schema.ts';
import { parseDeclaredSchema, parseSchemaJson } from './schema-file.ts';
import {
  DECLARED_BINS,
  dataPackageJson,
  isFrictionless,
  readTableSchema,
  tableSchemaJson,
  toTableSchema,
} from './table-schema.ts';
import { sharedDataset } from './testing.ts';
import { tableSchemaFromNames } from './uci-names.ts';
import { numericParser } from './values.ts';

/** Examples from the Table Schema spec (specs.frictionlessdata.io/table-schema) and tableschema-py's tests. */
const SPEC = {
  /** tableschema-py DESCRIPTOR_MIN. */
  min: { fields: [{ name: 'id' }, { name: 'height', type: 'integer' }] },
  /** tableschema-py DESCRIPTOR_MAX. */
  max: {
    fields: [
      { name: 'id', type: 'string', constraints: { required: true } },
      { name: 'height', type: 'number' },
      { name: 'age', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: 'occupation', type: 'string' },
    ],
    primaryKey: ['id'],
    foreignKeys: [{ fields: ['name'], reference: { resource: '', fields: ['id'] } }],
    missingValues: ['', '-', 'null'],
  },
  /** The spec's primary key as a single string, and a foreign key to the same resource. */
  keys: {
    fields: [{ name: 'id' }, { name: 'name' }, { name: 'parent' }],
    primaryKey: 'id',
    foreignKeys: [{ fields: 'parent', reference: { resource: '', fields: 'id' } }],
  },
  /** The spec's constraints example (field descriptor with title, description, format). */
  constrained: {
    fields: [
      {
        name: 'grade',
        title: 'Grade',
        description: 'Final grade',
        type: 'string',
        format: 'default',
        constraints: { required: true, enum: ['A', 'B', 'C'] },
      },
      { name: 'score', type: 'integer', constraints: { minimum: 0, maximum: 100 } },
      { name: 'when', type: 'date', format: '%d/%m/%Y' },
    ],
  },
  /** The Tabular Data Package spec's example (gdp). */
  gdp: {
    name: 'gdp',
    profile: 'tabular-data-package',
    resources: [
      {
        name: 'gdp',
        path: 'data/gdp.csv',
        profile: 'tabular-data-resource',
        schema: {
          fields: [
            { name: 'Country Name', type: 'string' },
            { name: 'Country Code', type: 'string' },
            { name: 'Year', type: 'year' },
            { name: 'Value', type: 'number' },
          ],
        },
      },
    ],
  },
} as const;

const read = (raw: unknown) => readTableSchema(raw, 'schema.json');
const col = (s: Schema, name: string): Column => s.columns.find((c) => c.name === name)!;

describe('the spec examples', () => {
  it('validate with our zod schemas', () => {
    for (const ex of [SPEC.min, SPEC.max, SPEC.keys, SPEC.constrained]) {
      expect(tableSchemaJson.safeParse(ex).success).toBe(true);
      expect(isFrictionless(ex)).toBe(true);
    }
    expect(dataPackageJson.safeParse(SPEC.gdp).success).toBe(true);
    expect(isFrictionless(SPEC.gdp)).toBe(true);
    expect(isFrictionless({ version: 1, origin: 'declared', columns: [] })).toBe(false);
  });

  it('fields that state only a type are open (discovered by a release), in order', () => {
    const r = read(SPEC.min);
    expect(r.schema.columns).toEqual([]);
    expect(r.open.map((f) => [f.name, f.type, f.missing])).toEqual([
      ['id', 'string', true],
      ['height', 'integer', true],
    ]);
    expect(r.fields).toEqual(['id', 'height']);
    const gdp = read(SPEC.gdp);
    expect(gdp.open.map((f) => f.name)).toEqual(['Country Name', 'Country Code', 'Year', 'Value']);
  });

  it('keys say nothing about the domain', () => {
    expect(read(SPEC.keys).open.map((f) => f.name)).toEqual(['id', 'name', 'parent']);
  });

  it('enum, bounds and a date format: declared columns and a temporal hint', () => {
    const r = read(SPEC.constrained);
    expect(col(r.schema, 'grade')).toEqual({
      name: 'grade',
      kind: 'categorical',
      categories: ['A', 'B', 'C'],
      missing: false,
      provenance: { source: 'declared' },
    });
    const score = col(r.schema, 'score');
    // 0..100: 101 integers, one bin each (edges at the half-integers).
    expect(score.kind === 'numeric' && score.edges.length).toBe(102);
    expect(score.kind === 'numeric' && [score.edges[0], score.edges[101], score.integer]).toEqual([
      -0.5,
      100.5,
      true,
    ]);
    expect(r.open).toEqual([
      { name: 'when', type: 'date', missing: true, temporal: { kind: 'date', format: 'DD/MM/YYYY' } },
    ]);
  });

  it('missing values RAP Studio does not read as missing are refused, naming them', () => {
    expect(() => read(SPEC.max)).toThrow(
      /fields\[0\] \("id"\): missing value "-", "null" is not one RAP Studio reads/,
    );
  });
});

describe('field types', () => {
  it('number and large integer ranges: equal-width bins; year; boolean; v2 field missingValues', () => {
    const r = read({
      fields: [
        { name: 'x', type: 'number', constraints: { minimum: 0, maximum: 1, required: true } },
        { name: 'big', type: 'integer', constraints: { minimum: 0, maximum: 1_000_000 } },
        { name: 'y', type: 'year', constraints: { minimum: '1990', maximum: '2020' } },
        { name: 'ok', type: 'boolean', trueValues: ['yes'], falseValues: ['no'], missingValues: [] },
        { name: 'code', type: 'integer', constraints: { enum: [1, 2, 9] } },
      ],
      missingValues: ['?'],
    });
    const x = col(r.schema, 'x');
    expect(x.kind === 'numeric' && [x.edges.length - 1, x.integer, x.missing]).toEqual([
      DECLARED_BINS,
      false,
      false,
    ]);
    const big = col(r.schema, 'big');
    expect(big.kind === 'numeric' && [big.edges[0], big.edges[DECLARED_BINS], big.integer]).toEqual([
      0,
      1_000_000,
      true,
    ]);
    const y = col(r.schema, 'y');
    expect(y.kind === 'numeric' && y.edges.length - 1).toBe(31);
    expect(col(r.schema, 'ok')).toMatchObject({ kind: 'categorical', categories: ['yes', 'no'] });
    expect(col(r.schema, 'code')).toMatchObject({ kind: 'categorical', categories: ['1', '2', '9'] });
  });

  it('dates, times and datetimes keep their format for discovery', () => {
    const r = read({
      fields: [
        { name: 'd', type: 'date' },
        { name: 't', type: 'time', format: '%H:%M' },
        { name: 'dt', type: 'datetime', format: 'any' },
        { name: 'us', type: 'date', format: '%m/%d/%Y' },
      ],
    });
    expect(r.open.map((f) => f.temporal)).toEqual([
      { kind: 'date', format: 'YYYY-MM-DD' },
      { kind: 'time', format: 'HH:MM' },
      { kind: 'datetime', format: undefined },
      { kind: 'date', format: 'MM/DD/YYYY' },
    ]);
  });

  it('refuses what cannot be released, naming the field and the fix', () => {
    const bad = (fields: unknown[], re: RegExp) => expect(() => read({ fields })).toThrow(re);
    bad([{ name: 'g', type: 'geojson' }], /fields\[0\] \("g"\)\.type: "geojson" values cannot be released/);
    bad(
      [{ name: 'a', type: 'integer', constraints: { minimum: 5, maximum: 5 } }],
      /"minimum" must be less than "maximum"/,
    );
    bad(
      [{ name: 'a', type: 'integer', constraints: { minimum: 0.5, maximum: 5 } }],
      /needs integer "minimum"/,
    );
    bad([{ name: 'a', constraints: { enum: ['x', 'x'] } }], /duplicate value/);
    bad([{ name: 'a' }, { name: 'a' }], /duplicate field name/);
    bad([{ name: 'd', type: 'date', format: '%j' }], /directive %j is not supported/);
    bad([{ name: '', type: 'string' }], /fields\[0\]\.name: must be a non-empty string/);
    expect(() => read({ fields: [{ name: 'a', type: 'colour' }] })).toThrow(
      /schema\.json: invalid Table Schema: fields\[0\] \("a"\)\.type/,
    );
  });

  it('a Data Package: the resource with a schema; a referenced schema is refused with the fix', () => {
    expect(() => read({ resources: [{ name: 'r', path: 'r.csv', schema: 'schema.json' }] })).toThrow(
      /resource "r"'s schema is a reference \("schema\.json"\): give that file itself/,
    );
    expect(() => read({ resources: [{ path: 'r.csv' }] })).toThrow(
      /no resource of this Data Package has a "schema"/,
    );
  });
});

describe('the schema file reader', () => {
  it('tells the formats apart; a command that needs every domain refuses open fields by name', () => {
    const text = JSON.stringify(SPEC.constrained);
    expect(parseDeclaredSchema(text, 's.json').open.map((f) => f.name)).toEqual(['when']);
    expect(() => parseSchemaJson(text, 's.json')).toThrow(/s\.json: field "when" states? no domain/);
    const whole = JSON.stringify({ fields: SPEC.constrained.fields.slice(0, 2) });
    expect(parseSchemaJson(whole, 's.json').columns.map((c) => c.name)).toEqual(['grade', 'score']);
  });
});

describe('out and back', () => {
  it('a released schema written as a Table Schema reads back to the same domain', () => {
    const schema: Schema = {
      version: 1,
      origin: 'discovered',
      columns: [
        { name: 'cat', kind: 'categorical', categories: ['a', 'b', '(other)'], missing: true },
        { name: 'flag', kind: 'categorical', categories: ['0', '1'], missing: false },
        { name: 'age', kind: 'numeric', edges: [17, 25, 40, 90], integer: true, missing: false },
        // value by value: one integer per bin, half-integer edges
        {
          name: 'kids',
          kind: 'numeric',
          edges: [-0.5, 0.5, 1.5, 2.5],
          integer: true,
          missing: true,
          missingText: '',
        },
        { name: 'w', kind: 'numeric', edges: [0.25, 1.5, 3.75], integer: false, missing: false },
        // A date column (days since 1970-01-01) written as DD/MM/YYYY.
        {
          name: 'visit',
          kind: 'numeric',
          edges: [19000, 19100, 19200],
          integer: true,
          missing: false,
          temporal: { kind: 'date', format: '%d/%m/%Y' },
        },
      ],
    };
    const back = readTableSchema(JSON.parse(JSON.stringify(toTableSchema(schema))), 'back.json');
    expect(back.open).toEqual([]);
    const domain = (s: Schema) =>
      s.columns.map((c) =>
        c.kind === 'categorical'
          ? [c.name, c.categories, c.missing, c.missingText ?? '?']
          : [c.name, c.edges, c.integer, c.missing, c.missingText ?? '?', c.temporal],
      );
    expect(domain(back.schema)).toEqual(domain(schema));
    // Each column's missing cells in their own form (v2 field-level), every form at the top (v1).
    expect(toTableSchema(schema).missingValues).toEqual(['?', '']);
    expect(toTableSchema(schema).fields.map((f) => f.missingValues)).toEqual([
      ['?'],
      undefined,
      undefined,
      [''],
      undefined,
      undefined,
    ]);
    // The date field as Table Schema writes one: its type, strptime format, bounds in that format.
    expect(toTableSchema(schema).fields[5]).toMatchObject({
      type: 'date',
      format: '%d/%m/%Y',
      constraints: { minimum: '08/01/2022', maximum: '27/07/2022' },
    });
  });
});

describe('a UCI codebook', () => {
  const names = sharedDataset('adult-raw/adult.names');
  it.runIf(names)(
    'adult.names: every listed category declared, continuous attributes open, the class last',
    () => {
      const ts = tableSchemaFromNames(readFileSync(names!, 'utf8'), 'adult.names', {
        className: 'classification',
      });
      const r = readTableSchema(ts, 'adult.names');
      expect(r.fields).toHaveLength(15);
      expect(r.fields[14]).toBe('classification');
      expect(r.open.map((f) => f.name)).toEqual([
        'age',
        'fnlwgt',
        'education-num',
        'capital-gain',
        'capital-loss',
        'hours-per-week',
      ]);
      expect(col(r.schema, 'classification')).toMatchObject({
        categories: ['>50K', '<=50K'],
        missing: true,
        missingText: '?',
      });
      const sizes = Object.fromEntries(
        r.schema.columns.map((c) => [c.name, c.kind === 'categorical' ? c.categories.length : 0]),
      );
      expect(sizes).toEqual({
        workclass: 8,
        education: 16,
        'marital-status': 7,
        occupation: 14,
        relationship: 6,
        race: 5,
        sex: 2,
        'native-country': 41,
        classification: 2,
      });
      expect(ts.missingValues).toEqual(['?']);
    },
  );

  it('a small codebook: comments skipped, a second unnamed line refused', () => {
    const ts = tableSchemaFromNames(
      '| comment: x, y.\nyes, no.\n\ncolour: red, green.\nsize: continuous.\n',
      'c.names',
    );
    expect(ts.fields.map((f) => [f.name, f.type, f.constraints?.enum])).toEqual([
      ['colour', 'string', ['red', 'green']],
      ['size', 'number', undefined],
      ['class', 'string', ['yes', 'no']],
    ]);
    expect(() => tableSchemaFromNames('a: x.\nyes, no.\n', 'c.names')).toThrow(/c\.names, line 2/);
  });
});

describe('locale-formatted numbers (decimalChar, groupChar, bareNumber)', () => {
  const field = (extra: Record<string, unknown>) => ({
    fields: [{ name: 'x', type: 'number', constraints: { minimum: 0, maximum: 10_000 }, ...extra }],
  });
  const parserOf = (raw: unknown) => {
    const c = readTableSchema(raw, 't.json').schema.columns[0];
    if (c.kind !== 'numeric') throw new Error('not numeric');
    return numericParser(c);
  };

  it('reads the spec’s number properties: 1.234,50 with decimalChar "," and groupChar "."; €95, 95%, EUR 95 with bareNumber false', () => {
    const de = parserOf(field({ decimalChar: ',', groupChar: '.' }));
    expect(de('1.234,50')).toBe(1234.5);
    expect(de('7,25')).toBe(7.25);
    expect(de('1,234.50')).toBeUndefined(); // the other locale is not this field's
    // groupChar "." alone implies the decimal comma.
    expect(parserOf(field({ groupChar: '.' }))('2.500,5')).toBe(2500.5);
    const bare = parserOf(field({ groupChar: ',', bareNumber: false }));
    for (const [text, x] of [
      ['$4,964.01', 4964.01],
      ['€95', 95],
      ['95%', 95],
      ['EUR 95', 95],
      ['-$5.5', -5.5],
      ['12', 12],
    ] as const)
      expect(bare(text)).toBe(x);
    // bareNumber true (the default): a currency sign is not a number.
    expect(parserOf(field({ groupChar: ',' }))('$4,964.01')).toBeUndefined();
  });

  it('refuses separators it cannot read, naming the property', () => {
    expect(() => readTableSchema(field({ decimalChar: ';' }), 't.json')).toThrow(
      /fields\[0\] \("x"\)\.decimalChar: ";" is not supported/,
    );
    expect(() => readTableSchema(field({ decimalChar: ',', groupChar: ',' }), 't.json')).toThrow(
      /groupChar: "," is not supported with decimalChar ","/,
    );
  });

  it('writes a formatted column with decimalChar, groupChar and bareNumber, and reads it back to the same format', () => {
    const formats: NumberFormat[] = [
      { decimal: ',', group: '.', suffix: ' €', decimals: 2 },
      { decimal: '.', group: ',', prefix: '$', decimals: 2 },
      { decimal: '.', group: '', suffix: '%' },
      { decimal: ',', group: ' ' },
      { decimal: ',', group: '.', anyAffix: true },
    ];
    for (const numberFormat of formats) {
      const schema: Schema = {
        version: SCHEMA_VERSION,
        origin: 'declared',
        columns: [
          {
            name: 'charge',
            kind: 'numeric',
            edges: [0, 100, 5000],
            integer: false,
            missing: false,
            numberFormat,
          },
        ],
      };
      const written = toTableSchema(schema);
      const f = written.fields[0];
      expect(f.decimalChar).toBe(numberFormat.decimal);
      expect(f.groupChar).toBe(numberFormat.group === '' ? undefined : numberFormat.group);
      expect(f.bareNumber).toBe(!numberFormat.prefix && !numberFormat.suffix);
      const back = readTableSchema(JSON.parse(JSON.stringify(written)), 't.json').schema.columns[0];
      expect(back).toMatchObject({ kind: 'numeric', edges: [0, 100, 5000], numberFormat });
      // Read without our own property, the spec's properties alone still read the cells written.
      const { 'rap-studio': _, ...plain } = f;
      expect(parserOf({ fields: [plain] })(formatNumberText(numberFormat, '1234.5'))).toBe(1234.5);
    }
  });
});
