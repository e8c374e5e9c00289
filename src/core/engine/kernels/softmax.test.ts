import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toColumnMajor, toRowMajor } from '../relaxed.ts';
import { maxAbsDiff, randomRelaxed, smallShape } from '../testing.ts';
import { logitsFrom, softmax, softmaxBackward, softmaxGradient, softmaxRelaxed } from './softmax.ts';

const vectors = fc.array(fc.double({ min: -8, max: 8, noNaN: true }), { minLength: 1, maxLength: 30 });

/** Brute force: exp / Σ exp, no max subtraction (fine for |z| ≤ 8). */
function naiveSoftmax(z: readonly number[]): number[] {
  const e = z.map(Math.exp);
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** Central finite differences of f at z. */
function numericGradient(f: (z: number[]) => number, z: readonly number[], h = 1e-6): number[] {
  return z.map((_, v) => {
    const up = [...z];
    const down = [...z];
    up[v] += h;
    down[v] -= h;
    return (f(up) - f(down)) / (2 * h);
  });
}

describe('softmax', () => {
  it('matches exp / Σ exp, lies inside the simplex and ignores a shift of every logit', () => {
    fc.assert(
      fc.property(vectors, fc.double({ min: -50, max: 50, noNaN: true }), (z, shift) => {
        const p = softmax(z);
        expect(maxAbsDiff(p, naiveSoftmax(z))).toBeLessThan(1e-12);
        expect(Math.abs(p.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-12);
        for (const x of p) expect(x).toBeGreaterThan(0);
        expect(maxAbsDiff(softmax(z.map((x) => x + shift)), p)).toBeLessThan(1e-12);
      }),
    );
  });

  it('does not overflow on large logits', () => {
    const p = softmax([1000, 999, -1000]);
    expect(p[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    expect(p[2]).toBe(0);
  });

  it('backward equals finite differences of a quadratic loss through the softmax', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true })),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 12, maxLength: 12 }),
        (pairs, targets) => {
          const z = pairs.map(([x]) => x);
          const w = pairs.map(([, c]) => c);
          // L(p) = Σ w_v (p_v − t_v)², g = 2 w (p − t).
          const loss = (zz: number[]) =>
            naiveSoftmax(zz).reduce((s, p, v) => s + w[v] * (p - targets[v]) ** 2, 0);
          const p = softmax(z);
          const g = Array.from(p, (pv, v) => 2 * w[v] * (pv - targets[v]));
          expect(maxAbsDiff(softmaxBackward(p, g), numericGradient(loss, z))).toBeLessThan(1e-6);
        },
      ),
    );
  });
});

describe('softmax on a column-major D′', () => {
  const shape = smallShape([3, 1, 5, 2], 7);

  /** Each row's block softmax, computed on the row-major copy. */
  function rowWise(logits: Float64Array): Float64Array {
    const { rows, layout } = shape;
    const row = toRowMajor(logits, shape);
    const out = new Float64Array(row.length);
    for (let i = 0; i < rows; i++) {
      layout.sizes.forEach((size, j) => {
        const at = i * layout.width + layout.offsets[j];
        out.set(softmax(row.subarray(at, at + size)), at);
      });
    }
    return toColumnMajor(out, shape);
  }

  it('softmaxRelaxed equals every row block’s softmax, and touches only the listed blocks', () => {
    const logits = randomRelaxed(shape, 3, false).map((x) => 4 * x - 4);
    const values = new Float64Array(logits.length);
    softmaxRelaxed(logits, values, shape);
    expect(maxAbsDiff(values, rowWise(logits))).toBeLessThan(1e-14);
    const some = new Float64Array(logits.length).fill(-1);
    softmaxRelaxed(logits, some, shape, [2]);
    const { rows, layout } = shape;
    const start = layout.offsets[2] * rows;
    const end = (layout.offsets[2] + layout.sizes[2]) * rows;
    some.forEach((x, i) => {
      if (i < start || i >= end) expect(x).toBe(-1);
      else expect(x).toBeCloseTo(values[i], 14);
    });
  });

  it('softmaxGradient equals finite differences of a loss of D′ through every block', () => {
    const logits = randomRelaxed(shape, 5, false).map((x) => 3 * x - 3);
    const weights = randomRelaxed(shape, 6, false);
    const targets = randomRelaxed(shape, 7, true);
    const values = new Float64Array(logits.length);
    const loss = (theta: number[]) => {
      const p = new Float64Array(theta.length);
      softmaxRelaxed(Float64Array.from(theta), p, shape);
      return p.reduce((s, x, i) => s + weights[i] * (x - targets[i]) ** 2 + 0.3 * x * x * x, 0);
    };
    softmaxRelaxed(logits, values, shape);
    const grad = values.map((x, i) => 2 * weights[i] * (x - targets[i]) + 0.9 * x * x);
    softmaxGradient(values, grad, shape);
    expect(maxAbsDiff(grad, numericGradient(loss, Array.from(logits)))).toBeLessThan(1e-7);
  });

  it('a one-category block has zero gradient (its softmax is the constant 1)', () => {
    const logits = randomRelaxed(shape, 8, false);
    const values = new Float64Array(logits.length);
    softmaxRelaxed(logits, values, shape);
    const grad = Float64Array.from(values, () => 1.5);
    softmaxGradient(values, grad, shape, [1]);
    const { rows, layout } = shape;
    for (let i = 0; i < rows; i++) {
      expect(values[layout.offsets[1] * rows + i]).toBe(1);
      expect(grad[layout.offsets[1] * rows + i]).toBe(0);
    }
  });

  it('logitsFrom keeps a start’s ranking and puts a one-hot row near its vertex', () => {
    const s = smallShape([100], 1);
    const oneHot = new Float64Array(100);
    oneHot[17] = 1;
    const p = new Float64Array(100);
    softmaxRelaxed(logitsFrom(oneHot), p, s);
    expect(p[17]).toBeGreaterThan(0.9);
    expect(p[17]).toBeLessThan(0.92);
    // Within each row's block the order of the categories is kept (θ is increasing in x).
    const start = randomRelaxed(shape, 9, true);
    const q = new Float64Array(start.length);
    softmaxRelaxed(logitsFrom(start), q, shape);
    const { rows, layout } = shape;
    layout.sizes.forEach((size, j) => {
      for (let i = 0; i < rows; i++) {
        for (let a = 0; a < size; a++) {
          for (let b = 0; b < size; b++) {
            const x = (layout.offsets[j] + a) * rows + i;
            const y = (layout.offsets[j] + b) * rows + i;
            if (start[x] > start[y]) expect(q[x]).toBeGreaterThan(q[y]);
          }
        }
      }
    });
  });
});

describe('softmax sessions', () => {
  it('the CPU kernels on threads run the softmax relaxation (on the typed session)', async () => {
    const { threadedKernels } = await import('./threaded.ts');
    const shape = smallShape([3, 4], 5);
    const initial = randomRelaxed(shape, 11, false);
    const session = (await threadedKernels(1)).open(shape, initial, 'softmax');
    session.project();
    const expected = new Float64Array(initial.length);
    softmaxRelaxed(logitsFrom(initial), expected, shape);
    expect(maxAbsDiff(await session.read(), expected)).toBeLessThan(1e-15);
    session.dispose();
  });
});
