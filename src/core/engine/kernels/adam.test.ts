import { describe, expect, it } from 'vitest';
import { AdamState, adamStep } from './adam.ts';

describe('adamStep', () => {
  const hyper = { learningRate: 0.1, beta1: 0.9, beta2: 0.999, epsilon: 1e-12 };

  it('follows the bias-corrected update', () => {
    const x = Float64Array.from([1, 2, 3]);
    const g = Float64Array.from([0.5, -2, 0]);
    const state = new AdamState(3);
    adamStep(x, g, state, hyper);
    // Step 1: m̂ = g, v̂ = g², so the step is lr · sign(g) (0 where g = 0).
    expect(x[0]).toBeCloseTo(0.9, 10);
    expect(x[1]).toBeCloseTo(2.1, 10);
    expect(x[2]).toBe(3);
    const g2 = Float64Array.from([1, 1, 1]);
    adamStep(x, g2, state, hyper);
    const m = 0.9 * (0.1 * 0.5) + 0.1 * 1;
    const v = 0.999 * (0.001 * 0.25) + 0.001 * 1;
    const expected = 0.9 - (0.1 * (m / (1 - 0.81))) / (Math.sqrt(v / (1 - 0.999 ** 2)) + 1e-12);
    expect(x[0]).toBeCloseTo(expected, 12);
  });

  it('touches only the given ranges and restarts after reset', () => {
    const x = Float64Array.from([1, 1, 1, 1]);
    const g = Float64Array.from([1, 1, 1, 1]);
    const state = new AdamState(4);
    adamStep(x, g, state, hyper, [1, 3]);
    expect(x[0]).toBe(1);
    expect(x[1]).toBeCloseTo(0.9, 12);
    expect(x[2]).toBeCloseTo(0.9, 12);
    expect(x[3]).toBe(1);
    state.reset();
    expect(state.t).toBe(0);
    expect([...state.m]).toEqual([0, 0, 0, 0]);
  });
});
