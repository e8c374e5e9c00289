import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { DEFAULT_WORKLOAD_WEIGHT, defaultWorkload, defaultWorkloadFor } from './default.ts';

describe('defaultWorkload', () => {
  it('is every 2-way marginal once, at weight 1 (against brute force over pairs)', () => {
    for (const d of [2, 3, 7, 15]) {
      const w = defaultWorkload(d);
      const seen = new Set(w.thresholds.map((t) => t.features.join(',')));
      expect(w.thresholds).toHaveLength((d * (d - 1)) / 2);
      expect(seen.size).toBe(w.thresholds.length);
      for (let a = 0; a < d; a++) for (let b = a + 1; b < d; b++) expect(seen.has(`${a},${b}`)).toBe(true);
      for (const t of w.thresholds) {
        expect(t.r).toBe(2);
        expect(t.weight).toBe(DEFAULT_WORKLOAD_WEIGHT);
      }
    }
  });

  it('adds every 3-way marginal of two other columns with the target, once, features ascending', () => {
    const d = 6;
    const target = 2;
    const w = defaultWorkload(d, target);
    const triples = w.thresholds.filter((t) => t.features.length === 3);
    expect(triples).toHaveLength(((d - 1) * (d - 2)) / 2);
    const keys = new Set(triples.map((t) => t.features.join(',')));
    expect(keys.size).toBe(triples.length);
    for (const t of triples) {
      expect(t.features).toContain(target);
      expect(t.r).toBe(3);
      expect([...t.features].sort((a, b) => a - b)).toEqual(t.features);
    }
    expect(w.thresholds.filter((t) => t.features.length === 2)).toHaveLength((d * (d - 1)) / 2);
  });

  it('names a target by column and refuses one the table does not have', () => {
    const header = ['age', 'sex', 'income'];
    expect(defaultWorkloadFor(header, 'income').thresholds).toHaveLength(3 + 1);
    expect(() => defaultWorkloadFor(header, 'salary', 'a.csv')).toThrow(InputError);
    expect(() => defaultWorkloadFor(header, 'salary', 'a.csv')).toThrow(/"salary".*age, sex, income/);
    expect(() => defaultWorkload(1)).toThrow(InputError);
  });
});
