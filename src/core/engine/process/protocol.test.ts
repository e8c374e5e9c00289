import { describe, expect, it } from 'vitest';
import { ProtocolError, parseChildMessage, parseHostMessage } from './protocol.ts';

const schema = {
  version: 1,
  origin: 'declared',
  columns: [{ name: 'a', kind: 'categorical', categories: ['x', 'y'], missing: false }],
};
const options = {
  epsilon: 1,
  delta: 1e-6,
  rows: 10,
  oversample: 5,
  mode: 'query',
  selection: 'oneshot',
  learningRate: 0.1,
  maxSteps: 10,
  tolerance: 1e-4,
  batchSize: 10,
};
const start = (over: Record<string, unknown> = {}) => ({
  type: 'start',
  request: {
    data: { schema, n: 2, codes: [Uint8Array.from([0, 1])] },
    workload: { thresholds: [{ features: [0], r: 1, weight: 1 }] },
    options,
    noise: { mode: 'secure' },
    ...over,
  },
});

describe('host → engine messages', () => {
  it('accepts a well-formed start and cancel', () => {
    expect(parseHostMessage(start()).type).toBe('start');
    expect(parseHostMessage({ type: 'cancel' })).toEqual({ type: 'cancel' });
    const seeded = parseHostMessage(start({ noise: { mode: 'insecure-seed', seed: 7 } }));
    expect(seeded.type === 'start' && seeded.request.noise).toEqual({ mode: 'insecure-seed', seed: 7 });
  });

  it.each([
    ['unknown type', { type: 'launch' }],
    ['not an object', 'start'],
    ['codes as a plain array', start({ data: { schema, n: 2, codes: [[0, 1]] } })],
    ['codes of the wrong length', start({ data: { schema, n: 3, codes: [Uint8Array.from([0, 1])] } })],
    ['one code array too few', start({ data: { schema, n: 2, codes: [] } })],
    ['epsilon 0', start({ options: { ...options, epsilon: 0 } })],
    ['delta 1', start({ options: { ...options, delta: 1 } })],
    ['seed mode without seed', start({ noise: { mode: 'insecure-seed' } })],
    ['weight 0', start({ workload: { thresholds: [{ features: [0], r: 1, weight: 0 }] } })],
  ])('rejects %s with a ProtocolError', (_name, raw) => {
    expect(() => parseHostMessage(raw)).toThrow(ProtocolError);
  });
});

describe('engine → host messages', () => {
  it('accepts progress, cancelled and error', () => {
    const progress = {
      type: 'progress',
      event: {
        round: 1,
        rounds: 2,
        step: 3,
        loss: 0.5,
        maxSelectedError: 0.1,
        elapsedSeconds: 1,
        etaSeconds: 2,
      },
    };
    expect(parseChildMessage(progress)).toEqual(progress);
    expect(parseChildMessage({ type: 'cancelled' })).toEqual({ type: 'cancelled' });
    expect(parseChildMessage({ type: 'error', kind: 'input', message: 'bad' }).type).toBe('error');
  });

  it('keeps extra report fields and rejects a report missing presentError', () => {
    const report = {
      mode: 'query',
      presentError: 0.1,
      roundedPresentError: 0.2,
      numQueries: 3,
      rho: 0.01,
      epsilon: 1,
      delta: 1e-6,
      rounds: 1,
      perRound: 3,
      rows: 2,
      backend: 'wasm',
      seedMode: 'secure',
      gmError: 0.4,
    };
    const done = { type: 'done', result: { report, synthetic: { n: 1, codes: [Uint8Array.from([1])] } } };
    const parsed = parseChildMessage(done);
    expect(parsed.type === 'done' && parsed.result.report.gmError).toBe(0.4);
    const { presentError: _, ...missing } = report;
    expect(() => parseChildMessage({ ...done, result: { ...done.result, report: missing } })).toThrow(
      /presentError/,
    );
  });
});

describe('a counted input (exact tables, no rows)', () => {
  const counted = (tables: [string, unknown][], n = 2) => ({
    kind: 'counted',
    schema,
    n,
    tables: new Map(tables),
  });
  const request = (data: unknown, over: Record<string, unknown> = {}) => start({ data, ...over });

  it('carries the tables through as Float64Arrays', () => {
    const parsed = parseHostMessage(request(counted([['0', Float64Array.from([1, 1])]])));
    const data = parsed.type === 'start' ? parsed.request.data : undefined;
    expect(data && 'kind' in data && data.tables.get('0')).toEqual(Float64Array.from([1, 1]));
  });

  it.each([
    [
      'a table of the wrong length',
      counted([['0', Float64Array.from([1, 1, 0])]]),
      /has 3 cells; its columns' domains need 2/,
    ],
    [
      'a table that does not sum to n',
      counted([['0', Float64Array.from([1, 2])]]),
      /counts 3 rows, not n = 2/,
    ],
    ['a fractional count', counted([['0', Float64Array.from([0.5, 1.5])]]), /cell 0 is 0.5, not a count/],
    ['a plain array', counted([['0', [1, 1]]]), /not a Float64Array/],
    [
      'a key outside the schema',
      counted([
        ['0', Float64Array.from([1, 1])],
        ['1', Float64Array.from([2])],
      ]),
      /outside the schema's 1 columns/,
    ],
    [
      'a key not ascending',
      counted([
        ['0', Float64Array.from([1, 1])],
        ['0,0', Float64Array.from([1, 0, 0, 1])],
      ]),
      /not ascending column indices/,
    ],
    ['tables as an object', { kind: 'counted', schema, n: 2, tables: { 0: [1, 1] } }, /tables/],
    [
      'a missing required table',
      counted([]),
      /internal: the counted data lacks the exact table over features \[0\]/,
    ],
  ])('refuses %s, saying what is wrong', (_name, data, message) => {
    expect(() => parseHostMessage(request(data))).toThrow(ProtocolError);
    expect(() => parseHostMessage(request(data))).toThrow(message);
  });

  it("names a missing evaluation workload's table", () => {
    const two = {
      ...schema,
      columns: [
        ...schema.columns,
        { name: 'b', kind: 'categorical', categories: ['u', 'v'], missing: false },
      ],
    };
    const data = {
      kind: 'counted',
      schema: two,
      n: 2,
      tables: new Map([
        ['0', Float64Array.from([1, 1])],
        ['1', Float64Array.from([2, 0])],
      ]),
    };
    const evalWorkload = { thresholds: [{ features: [1, 0], r: 1, weight: 1 }] };
    expect(() => parseHostMessage(request(data, { evalWorkload }))).toThrow(/features \[0, 1\]/);
    data.tables.set('0,1', Float64Array.from([1, 0, 1, 0]));
    expect(parseHostMessage(request(data, { evalWorkload })).type).toBe('start');
  });
});
