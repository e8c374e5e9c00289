import { describe, expect, it } from 'vitest';
import { seededNoise } from '../privacy/noise.ts';
import { toColumnMajor } from './relaxed.ts';
import { codeArrayFor, roundRelaxed } from './rounding.ts';
import { smallShape } from './testing.ts';

describe('roundRelaxed', () => {
  it('samples each feature by its probabilities', () => {
    const shape = smallShape([3, 2], 1);
    const values = toColumnMajor([0.2, 0, 0.8, 0.5, 0.5], shape);
    const os = 20_000;
    const [a, b] = roundRelaxed(values, shape, os, seededNoise(4));
    const share = (codes: ArrayLike<number>, v: number) =>
      Array.from(codes).filter((c) => c === v).length / os;
    // 5 standard deviations of a share estimate at p(1 − p) ≤ 1/4.
    const tol = 5 * Math.sqrt(0.25 / os);
    expect(Math.abs(share(a, 0) - 0.2)).toBeLessThan(tol);
    expect(share(a, 1)).toBe(0);
    expect(Math.abs(share(a, 2) - 0.8)).toBeLessThan(tol);
    expect(Math.abs(share(b, 1) - 0.5)).toBeLessThan(tol);
    // Features are sampled independently: P(a = 2, b = 1) = 0.4.
    let both = 0;
    for (let i = 0; i < os; i++) if (a[i] === 2 && b[i] === 1) both++;
    expect(Math.abs(both / os - 0.4)).toBeLessThan(tol);
  });

  it('keeps rows in order: samples of relaxed row i come first', () => {
    const shape = smallShape([3], 2);
    const values = toColumnMajor([0, 0, 1, 1, 0, 0], shape);
    const [codes] = roundRelaxed(values, shape, 3, seededNoise(1));
    expect([...codes]).toEqual([2, 2, 2, 0, 0, 0]);
  });

  it('picks a code array wide enough for the domain', () => {
    expect(codeArrayFor(256, 1)).toBeInstanceOf(Uint8Array);
    expect(codeArrayFor(257, 1)).toBeInstanceOf(Uint16Array);
    expect(codeArrayFor(70_000, 1)).toBeInstanceOf(Uint32Array);
  });
});
