import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { categoricalSchema } from './test-data.ts';
import { parseWorkloadJson, validateWorkload, workloadHash, workloadToJson } from './workload.ts';

const schema = {
  ...categoricalSchema([85, 9, 16, 2, 5, 2]),
  columns: categoricalSchema([85, 9, 16, 2, 5, 2]).columns.map((c, j) => ({
    ...c,
    name: ['age', 'workclass', 'education', 'sex', 'race', 'income'][j],
  })),
};

const parse = (value: unknown): ReturnType<typeof parseWorkloadJson> =>
  parseWorkloadJson(JSON.stringify(value), schema, 'w.json');

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

describe('parseWorkloadJson', () => {
  it('resolves names to column indices in the listed order; weight defaults to 1', () => {
    const w = parse({
      thresholds: [
        { features: ['sex', 'age'], r: 1 },
        { features: ['race', 'income', 'workclass'], r: 3, weight: 2.5 },
      ],
    });
    expect(w.thresholds).toEqual([
      { features: [3, 0], r: 1, weight: 1 },
      { features: [4, 5, 1], r: 3, weight: 2.5 },
    ]);
  });

  it('names the threshold and suggests the closest feature for an unknown name', () => {
    const e = errorOf(() =>
      parse({
        thresholds: [
          { features: ['age'], r: 1 },
          { features: ['sex', 'agee'], r: 1 },
        ],
      }),
    );
    expect(e.message).toMatch(
      /w\.json: thresholds\[1\]\.features\[1\]: unknown feature "agee"; did you mean "age"\?/,
    );
    expect(e.where).toMatchObject({ file: 'w.json', threshold: 1 });
  });

  it('lists a few valid names when nothing is close', () => {
    const e = errorOf(() => parse({ thresholds: [{ features: ['zzzzzzzz'], r: 1 }] }));
    expect(e.message).toMatch(
      /valid features include "age", "workclass", "education", "sex", "race", … \(6 in all\)/,
    );
  });

  it.each([
    [
      { thresholds: [{ features: ['age', 'sex', 'age'], r: 1 }] },
      /thresholds\[0\]\.features: feature "age" is listed twice \(positions 0 and 2\)/,
    ],
    [{ thresholds: [{ features: ['age', 'sex'], r: 3 }] }, /thresholds\[0\]\.r: r = 3 is outside 1\.\.2/],
    [{ thresholds: [{ features: ['age', 'sex'], r: 0 }] }, /thresholds\[0\]\.r: r = 0 is outside 1\.\.2/],
    [{ thresholds: [{ features: ['age'], r: 1.5 }] }, /thresholds\[0\]\.r: r must be an integer/],
    [
      { thresholds: [{ features: ['age'], r: 1, weight: 0 }] },
      /thresholds\[0\]\.weight: weight must be a finite number > 0, got 0/,
    ],
    [{ thresholds: [{ features: ['age'], r: 1, weight: -2 }] }, /weight must be a finite number > 0, got -2/],
    [
      { thresholds: [{ features: ['age'], r: 1, weight: 'heavy' }] },
      /thresholds\[0\]\.weight: weight must be a finite number/,
    ],
    [
      { thresholds: [{ features: ['age', 'sex', 'race', 'income', 'education', 'workclass', 'age'], r: 1 }] },
      /lists 7 features but the schema has only 6/,
    ],
    [
      {
        thresholds: [
          { features: ['age', 'sex'], r: 1 },
          { features: ['race'], r: 1 },
          { features: ['sex', 'age'], r: 1, weight: 3 },
        ],
      },
      /thresholds\[2\]: repeats thresholds\[0\] \(same features \{sex, age\} and r = 1\)/,
    ],
    [{ thresholds: [] }, /no thresholds/],
    [{ thresholds: [{ features: [], r: 1 }] }, /thresholds\[0\]\.features/],
    [{ thresholds: [{ features: ['age'], r: 1, weigth: 2 }] }, /thresholds\[0\]: Unrecognized key: "weigth"/],
    [[1, 2], /\(top level\)/],
  ])('refuses %j', (value, message) => {
    expect(errorOf(() => parse(value)).message).toMatch(message);
  });

  it('allows the same features with a different r', () => {
    const w = parse({
      thresholds: [
        { features: ['age', 'sex'], r: 1 },
        { features: ['sex', 'age'], r: 2 },
      ],
    });
    expect(w.thresholds).toHaveLength(2);
  });

  it('reports invalid JSON and non-finite weights', () => {
    expect(errorOf(() => parseWorkloadJson('{"thresholds": [', schema, 'w.json')).message).toMatch(
      /w\.json: not valid JSON/,
    );
    const e = errorOf(() =>
      parseWorkloadJson('{"thresholds":[{"features":["age"],"r":1,"weight":1e999}]}', schema),
    );
    expect(e.message).toMatch(/thresholds\[0\]\.weight: weight must be a finite number > 0/);
  });
});

describe('validateWorkload', () => {
  it('checks workloads built in code', () => {
    expect(() => validateWorkload({ thresholds: [{ features: [0, 9], r: 1, weight: 1 }] }, schema)).toThrow(
      /features\[1\]: feature index 9 is outside 0\.\.5/,
    );
    expect(() =>
      validateWorkload({ thresholds: [{ features: [0], r: 1, weight: Number.NaN }] }, schema),
    ).toThrow(/weight/);
  });

  it('refuses a threshold with more than 2^53 queries', () => {
    const wide = categoricalSchema(Array(4).fill(10_000));
    expect(() =>
      validateWorkload({ thresholds: [{ features: [0, 1, 2, 3], r: 1, weight: 1 }] }, wide),
    ).toThrow(/more than 2\^53/);
    expect(() =>
      validateWorkload({ thresholds: [{ features: [0, 1, 2], r: 1, weight: 1 }] }, wide),
    ).not.toThrow();
  });
});

describe('workloadToJson and workloadHash', () => {
  const w = parse({
    thresholds: [
      { features: ['sex', 'age'], r: 1 },
      { features: ['race', 'income', 'workclass'], r: 2, weight: 0.5 },
    ],
  });

  it('round-trips through the file format', () => {
    const text = workloadToJson(w, schema);
    expect(text).toContain('{"features":["sex","age"],"r":1,"weight":1}');
    expect(parseWorkloadJson(text, schema)).toEqual(w);
  });

  it('is a SHA-256 hex that ignores formatting but not order, r or weight', () => {
    const h = workloadHash(w, schema);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    const reformatted = parseWorkloadJson(
      JSON.stringify(JSON.parse(workloadToJson(w, schema)), null, 4),
      schema,
    );
    expect(workloadHash(reformatted, schema)).toBe(h);
    const reordered = { thresholds: [...w.thresholds].reverse() };
    expect(workloadHash(reordered, schema)).not.toBe(h);
    const reweighted = { thresholds: [w.thresholds[0], { ...w.thresholds[1], weight: 1 }] };
    expect(workloadHash(reweighted, schema)).not.toBe(h);
  });
});
