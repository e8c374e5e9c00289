/** The spec module refuses, before anything is read or reserved, what the release cannot state. */
import { describe, expect, it } from 'vitest';
import { dataSource, parseRunSettings, releaseSpec } from '../../../src/core/release/spec.ts';

describe('releaseSpec refusals', () => {
  it('the accuracy certificate at the person level (its sensitivity assumes a public n)', () => {
    const { settings } = parseRunSettings({ epsilon: '1', certify: '0.25' });
    expect(settings).toBeDefined();
    const inputs = {
      source: dataSource({
        path: 'visits.csv',
        schema: { version: 1, origin: 'declared', columns: [] } as never,
        undeclared: 'discover',
      }),
      workload: { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] },
      columns: 2,
    };
    expect(() =>
      releaseSpec(settings!, { ...inputs, unit: { column: 'pid', bound: 'private' } as never }),
    ).toThrow(/accuracy certificate is not available at the person level/);
    expect(() => releaseSpec(settings!, inputs)).not.toThrow();
  });
});
