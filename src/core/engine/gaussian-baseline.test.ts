import { describe, expect, it } from 'vitest';
import { erfc } from '../privacy/erfc.ts';
import { seededNoise } from '../privacy/noise.ts';
import { expectedMaxAbsNormal } from './gaussian-baseline.ts';

describe('expected max of |N(0,1)|', () => {
  it('erfc matches known values', () => {
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1)).toBeCloseTo(0.157299207, 7);
    expect(erfc(-1)).toBeCloseTo(1.842700793, 7);
    expect(erfc(3) / 2.209049699858544e-5).toBeCloseTo(1, 5);
  });

  it('is √(2/π) for one query', () => {
    expect(expectedMaxAbsNormal(1)).toBeCloseTo(Math.sqrt(2 / Math.PI), 6);
  });

  it('agrees with simulation for 50 queries', () => {
    const noise = seededNoise(11);
    const reps = 20_000;
    let total = 0;
    for (let r = 0; r < reps; r++) {
      let max = 0;
      for (let i = 0; i < 50; i++) max = Math.max(max, Math.abs(noise.normal()));
      total += max;
    }
    // The simulated mean has a standard error of about 0.004.
    expect(Math.abs(total / reps - expectedMaxAbsNormal(50))).toBeLessThan(0.02);
  });

  it('grows like √(2 ln 2m)', () => {
    const big = expectedMaxAbsNormal(1e8);
    expect(big).toBeGreaterThan(5.5);
    expect(big).toBeLessThan(Math.sqrt(2 * Math.log(2e8)));
  });
});
