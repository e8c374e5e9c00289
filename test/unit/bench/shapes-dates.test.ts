import { describe, expect, it } from 'vitest';
import { scoreTemporal, TARGETS } from '../../../bench/suites/shapes-dates.ts';
import { SCHEMA_VERSION, type Schema } from '../../../src/core/data/schema.ts';

const names = ['admit_date', 'admit_time', 'discharge_date'];
const schema: Schema = { version: SCHEMA_VERSION, origin: 'discovered', columns: [] };

function rows(days: readonly string[], time = '10:00'): string[][] {
  return days.map((d) => [d, time, d]);
}

describe('the shapes-dates scores', () => {
  const real = rows(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-08', '']);

  it('gives 0 on the real file itself, and passes', () => {
    const scores = scoreTemporal(names, real, names, real, schema);
    expect(scores.map((s) => s.column)).toEqual(['admit_date', 'discharge_date', 'admit_time']);
    for (const s of scores) {
      expect(s.ks).toBe(0);
      expect(s.weekday ?? 0).toBe(0);
      expect(s.pass).toBe(true);
    }
  });

  it('measures KS on days, the weekday gap, and cells that are not dates', () => {
    // Every date one day later: KS 1/4 on days (the CDFs part by one record at a time); Mondays
    // (2 of 4) become Tuesdays.
    const later = rows(['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-09', 'not a date'], '10:01');
    const [admit, , time] = scoreTemporal(names, real, names, later, schema);
    expect(admit.ks).toBeCloseTo(0.25, 12);
    expect(admit.weekday).toBeCloseTo(0.5, 12);
    expect(admit.unreadable).toBe(1);
    expect(admit.pass).toBe(false);
    expect(time.ks).toBe(1); // every time a minute later
    expect(TARGETS.ksDays).toBe(0.05);
  });
});
