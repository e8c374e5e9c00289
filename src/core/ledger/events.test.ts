import { describe, expect, it } from 'vitest';
import { sha256Hex } from './canonical.ts';
import { chainEvent, type EventRow, GENESIS_HASH, type LedgerEvent, parseEventRow } from './events.ts';
import { fingerprintOf } from './testing/fixtures.ts';

const FP = fingerprintOf('x');
const TS = '2025-01-01T00:00:00.000Z';

const samples: LedgerEvent[] = [
  { kind: 'dataset-registered', payload: { fingerprint: FP, name: 'a.csv', rows: 0 } },
  { kind: 'dataset-alias', payload: { fingerprint: FP, name: 'b.csv' } },
  { kind: 'dataset-rows', payload: { fingerprint: FP, rows: 10 } },
  { kind: 'cap-set', payload: { fingerprint: FP, rho: 0.01, epsilon: 1, delta: 1e-6 } },
  {
    kind: 'release-reserved',
    payload: {
      id: 'r1',
      fingerprint: FP,
      mechanism: 'rap-table',
      epsilon: 1,
      delta: 1e-6,
      rho: 0.01,
      params: { rounds: 1, perRound: 1, rows: 10, oversample: 5, extra: [1, 'two'] },
      workload: { hash: 'w', json: '' },
      schema: { hash: 's', origin: 'inferred' },
      seedMode: 'insecure-seed',
      backend: 'wasm',
      appVersion: '0.1.0',
    },
  },
  { kind: 'release-committed', payload: { id: 'r1', outputSha256: FP, outputPath: null } },
  { kind: 'release-aborted', payload: { id: 'r1', reason: 'stopped' } },
];

describe('event chain', () => {
  it('hashes prev_hash, id, ts, kind and canonical payload, linking each event to the one before', () => {
    const first = chainEvent(undefined, TS, samples[0]);
    expect(first).toMatchObject({ id: 1, prev_hash: GENESIS_HASH });
    expect(first.payload).toBe(`{"fingerprint":"${FP}","name":"a.csv","rows":0}`);
    expect(first.hash).toBe(sha256Hex(`${GENESIS_HASH}\n1\n${TS}\ndataset-registered\n${first.payload}`));
    const second = chainEvent(first, TS, samples[1]);
    expect(second).toMatchObject({ id: 2, prev_hash: first.hash });
  });

  it('parses every kind of event back to what was written', () => {
    let prev: EventRow | undefined;
    for (const event of samples) {
      const row = chainEvent(prev, TS, event);
      expect(parseEventRow(row)).toEqual({
        id: row.id,
        ts: TS,
        prevHash: row.prev_hash,
        hash: row.hash,
        event,
      });
      prev = row;
    }
  });

  it('names what is wrong with a malformed stored event', () => {
    const row = chainEvent(undefined, TS, samples[3]);
    expect(parseEventRow({ ...row, payload: '{' })).toBe('payload is not valid JSON');
    expect(parseEventRow({ ...row, payload: '{"rho":1, "fingerprint":"x"}' })).toBe(
      'payload is not in canonical form',
    );
    expect(parseEventRow({ ...row, kind: 'cap-raised' })).toBe('unknown event kind "cap-raised"');
    expect(parseEventRow({ ...row, kind: 'toString' })).toBe('unknown event kind "toString"');
    const tooBig = chainEvent(undefined, TS, {
      kind: 'cap-set',
      payload: { ...samples[3].payload, delta: 2 },
    } as LedgerEvent);
    expect(parseEventRow(tooBig)).toMatch(/^not a valid cap-set event: delta: expected a number in \(0, 1\)/);
    const extra = chainEvent(undefined, TS, {
      kind: 'dataset-alias',
      payload: { fingerprint: FP, name: 'b', note: 1 },
    } as LedgerEvent);
    expect(parseEventRow(extra)).toBe('not a valid dataset-alias event: unexpected member note');
    const nested = chainEvent(undefined, TS, {
      kind: 'release-reserved',
      payload: { ...(samples[4].payload as object), schema: { hash: 's', origin: 'guessed' } },
    } as unknown as LedgerEvent);
    expect(parseEventRow(nested)).toMatch(/schema: origin: expected declared or inferred/);
  });
});
