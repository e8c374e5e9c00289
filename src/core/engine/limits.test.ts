import { describe, expect, it } from 'vitest';
import type { Column, Schema } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { defaultOptions } from './defaults.ts';
import { assertRunFits, LIMITS, memoryEstimate, type RunSize } from './limits.ts';
import { publicPlan } from './public-plan.ts';

const GiB = 2 ** 30;
const BIG_MACHINE = { totalBytes: 24 * GiB, availableBytes: 20 * GiB };

function categorical(name: string, k: number): Column {
  return {
    name,
    kind: 'categorical',
    categories: Array.from({ length: k }, (_, i) => `v${i}`),
    missing: false,
  };
}
function numeric(name: string, bins: number): Column {
  return {
    name,
    kind: 'numeric',
    edges: Array.from({ length: bins + 1 }, (_, i) => i),
    integer: true,
    missing: false,
  };
}
function schemaOf(columns: Column[]): Schema {
  return { version: 1, origin: 'declared', columns } as Schema;
}
const small = schemaOf([categorical('a', 3), categorical('b', 4), numeric('c', 10)]);
function size(over: Partial<RunSize> = {}): RunSize {
  return {
    mode: 'table',
    rows: 1000,
    oversample: 5,
    rounds: 16,
    perRound: 1,
    n: 10_000,
    schema: small,
    workload: { thresholds: [{ features: [0, 1, 2], r: 3, weight: 1 }] },
    ...over,
  };
}
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('guards before reserving', () => {
  it('admits the benchmark-sized run and estimates its memory part by part', () => {
    const e = assertRunFits(size(), BIG_MACHINE);
    // relaxed: 6 copies of 1000 × 17 float64; answers: 4 × 8 × 120 cells
    expect(e.parts.relaxed).toBe(6 * 8 * 1000 * 17);
    expect(e.parts.answers).toBe(4 * 8 * 120);
    expect(e.parts.rounded).toBe(2 * 4 * 5000 * 3);
    expect(e.bytes).toBe(Object.values(e.parts).reduce((a, b) => a + b, 0));
  });

  it.each([
    ['rows', { rows: 1e9 }, /synthetic rows n' is 1,000,000,000, more than RAP Studio can run/],
    ['oversample', { oversample: 5000 }, /oversampling factor is 5,000/],
    ['rounds', { rounds: 1e6 }, /rounds T is 1,000,000/],
    ['perRound', { perRound: 1e6 }, /number per round K/],
  ] as const)('refuses %s over its bound, saying nothing was reserved', (_k, over, msg) => {
    const m = refusal(() => assertRunFits(size(over), BIG_MACHINE));
    expect(m).toMatch(msg);
    expect(m).toMatch(/Nothing was reserved/);
  });

  it('refuses a schema declaring 4·10⁹ cells in one table (two 65,536-bin columns)', () => {
    const schema = schemaOf([numeric('x', 65_536), numeric('y', 65_536)]);
    const m = refusal(() =>
      assertRunFits(
        size({ schema, workload: { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] } }),
        BIG_MACHINE,
      ),
    );
    expect(m).toMatch(/largest workload table \(x × y\) is 4,294,967,296/);
  });

  it('refuses too many columns, categories per column and total one-hot width', () => {
    const many = schemaOf(Array.from({ length: LIMITS.columns + 1 }, (_, i) => categorical(`c${i}`, 2)));
    expect(
      refusal(() => assertRunFits(size({ schema: many, workload: { thresholds: [] } }), BIG_MACHINE)),
    ).toMatch(/number of columns is 10,001/);
    const wide = schemaOf([categorical('zip', LIMITS.domain + 1)]);
    expect(
      refusal(() => assertRunFits(size({ schema: wide, workload: { thresholds: [] } }), BIG_MACHINE)),
    ).toMatch(/categories\/bins of column "zip"/);
    const width = schemaOf(Array.from({ length: 11 }, (_, i) => categorical(`c${i}`, 99_999)));
    expect(
      refusal(() => assertRunFits(size({ schema: width, workload: { thresholds: [] } }), BIG_MACHINE)),
    ).toMatch(/one-hot width/);
  });

  it('refuses by memory: more than 80% of the machine, or more than is free now; names what to shrink', () => {
    const two = { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] };
    const big = size({
      rows: 5_000_000,
      schema: schemaOf([categorical('a', 100), categorical('b', 100)]),
      workload: two,
    });
    const need = memoryEstimate(big).bytes; // 6·8·5e6·200 ≈ 44.7 GiB
    expect(need).toBeGreaterThan(40 * GiB);
    expect(refusal(() => assertRunFits(big, BIG_MACHINE))).toMatch(
      /about 4\d\.\d GiB.*80% of 24\.0 GiB.*fewer synthetic rows/,
    );
    const mid = size({
      rows: 1_000_000,
      schema: schemaOf([categorical('a', 100), categorical('b', 100)]),
      workload: two,
    });
    expect(refusal(() => assertRunFits(mid, { totalBytes: 24 * GiB, availableBytes: 2 * GiB }))).toMatch(
      /only 2\.0 GiB is free right now/,
    );
  });

  it('counted data (exact tables, no rows): the data term is its tables, whatever n', () => {
    // adult × 3,000 (97.7M rows, 15 columns): the rows alone would need 2·4·n·15 ≈ 10.9 GiB.
    const n = 97_700_000;
    const rows = size({
      n,
      schema: schemaOf(Array.from({ length: 15 }, (_, i) => categorical(`c${i}`, 10))),
    });
    expect(memoryEstimate(rows).parts.data).toBe(2 * 4 * n * 15);
    expect(refusal(() => assertRunFits(rows, { totalBytes: 8 * GiB, availableBytes: 8 * GiB }))).toMatch(
      /a smaller input file/,
    );
    const counted = { ...rows, form: 'counted' as const };
    // Tables: 15 one-ways of 10 cells and the 3-way table [0, 1, 2] of 1,000, float64, host and engine.
    expect(memoryEstimate(counted).parts.data).toBe(2 * 8 * (15 * 10 + 1000));
    expect(memoryEstimate({ ...counted, n: 10 }).parts.data).toBe(memoryEstimate(counted).parts.data);
    expect(() => assertRunFits(counted, { totalBytes: 8 * GiB, availableBytes: 8 * GiB })).not.toThrow();
  });

  it("reads sensibly at the n' limit and names the oversampling default (50)", () => {
    expect(refusal(() => assertRunFits(size({ rows: 10_000_001 }), BIG_MACHINE))).toMatch(
      /n' is 10,000,001, more than RAP Studio can run \(at most 10,000,000\)/,
    );
    expect(refusal(() => assertRunFits(size({ oversample: 1001 }), BIG_MACHINE))).toMatch(/\(default 50\)/);
  });

  it("publicPlan applies the guards (so the app's plan view and the release refuse alike)", () => {
    const options = defaultOptions({ epsilon: 1, delta: 1e-9, rows: 1e9 });
    const workload = { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] };
    expect(() => publicPlan(options, small, 10_000, workload, BIG_MACHINE)).toThrow(/n' is 1,000,000,000/);
  });
});
