import { describe, expect, it } from 'vitest';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { randomDataset } from '../workload/test-data.ts';
import { ExactAnswers } from './exact-answers.ts';

describe('ExactAnswers', () => {
  const data = randomDataset([3, 4, 2], 200, 5);
  const t = { features: [2, 0, 1], r: 2, weight: 1 };

  it('single queries by counting equal the table, with or without the cache', () => {
    const table = exactThresholdAnswers(data, t);
    const cached = new ExactAnswers(data);
    const uncached = new ExactAnswers(data, 0);
    expect(cached.of(t)).toEqual(table);
    for (let y = 0; y < table.length; y++) {
      expect(uncached.query(t, y)).toBe(table[y]);
      expect(cached.query(t, y)).toBe(table[y]);
    }
  });

  it('keeps tables only while they fit the cap', () => {
    const small = new ExactAnswers(data, 10);
    expect(small.of(t)).not.toBe(small.of(t));
    const big = new ExactAnswers(data);
    expect(big.of(t)).toBe(big.of(t));
  });
});
