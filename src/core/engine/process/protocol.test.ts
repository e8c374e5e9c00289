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
