import { describe, expect, it } from 'vitest';
import type { Schema } from '../data/schema.ts';
import { NOT_DP_TEXT, notDpColumns, notDpRefusal, provenanceEntries } from './not-dp.ts';

const base = { version: 1, columns: [] } as const;
const cat = (name: string) => ({ name, kind: 'categorical', categories: ['a'], missing: false }) as const;

describe('notDpColumns', () => {
  it('an inferred schema, confirmed or not, is not DP; a declared or discovered one is', () => {
    const inferred: Schema = { ...base, origin: 'inferred', columns: [cat('x'), cat('y')] };
    expect(notDpColumns(inferred)).toEqual(['x', 'y']);
    expect(notDpColumns({ ...inferred, origin: 'declared', confirmedFromInferred: true })).toEqual([
      'x',
      'y',
    ]);
    expect(notDpColumns({ ...inferred, origin: 'declared' })).toEqual([]);
    const mixed: Schema = {
      ...base,
      origin: 'discovered',
      columns: [
        { ...cat('x'), provenance: { source: 'declared' } },
        { ...cat('y'), provenance: { source: 'discovered', rho: 0.1, delta: 1e-9 } },
        { ...cat('z'), provenance: { source: 'not-dp' } },
      ],
    };
    expect(notDpColumns(mixed)).toEqual(['z']);
    expect(provenanceEntries(mixed)).toEqual([
      { name: 'x', domain: 'declared' },
      { name: 'y', domain: 'discovered privately', rho: 0.1, delta: 1e-9 },
      { name: 'z', domain: NOT_DP_TEXT },
    ]);
  });

  it('the refusal names the columns, both ways out and the override', () => {
    const err = notDpRefusal('raw.csv', ['age', 'city'], '--allow-non-private-domain');
    expect(err.message).toContain('columns "age", "city"');
    expect(err.message).toContain('declare these columns');
    expect(err.message).toContain('discover them privately');
    expect(err.message).toContain('--allow-non-private-domain');
  });
});
