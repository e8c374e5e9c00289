import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactThresholdAnswers } from '../workload/exact.ts';
import { randomDataset } from '../workload/test-data.ts';
import type { Threshold } from '../workload/types.ts';
import { countedTable } from './counted-tables.ts';
import { ExactAnswers } from './exact-answers.ts';
import { requiredFeatureSets } from './required-tables.ts';
import { bruteCounted, bruteTable } from './testing.ts';

function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

const SIZES = [3, 5, 2, 4];
const threshold = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 0, max: SIZES.length - 1 }), { minLength: 1, maxLength: SIZES.length }),
    fc.integer({ min: 1, max: SIZES.length }),
  )
  .map(([features, r]): Threshold => ({ features, r: Math.min(r, features.length), weight: 1 }));

describe('counted tables', () => {
  it('a table in any feature order, transposed or summed out of a superset, equals counting the rows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), threshold, (seed, t) => {
        const data = randomDataset(SIZES, 150, seed);
        const sorted = [...t.features].sort((a, b) => a - b);
        const expected = bruteTable(data, t.features);
        expect(sameBits(countedTable(bruteCounted(data, [sorted]), t.features), expected)).toBe(true);
        // Only the full table stored: every sub-table is summed out of it.
        expect(sameBits(countedTable(bruteCounted(data, [[0, 1, 2, 3]]), t.features), expected)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('ExactAnswers from tables equals ExactAnswers from rows bit for bit (of, table, query; cached or not; n̂)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(40, 1000, 70_001),
        fc.integer({ min: 0, max: 1000 }),
        threshold,
        fc.constantFrom(undefined, 997),
        (n, seed, t, normaliser) => {
          const data = randomDataset(SIZES, n, seed);
          const counted = bruteCounted(
            data,
            requiredFeatureSets({ schema: data.schema, workload: { thresholds: [t] } }),
          );
          expect(sameBits(new ExactAnswers(counted).of(t), exactThresholdAnswers(data, t))).toBe(true);
          for (const cap of [undefined, 0]) {
            const rows = new ExactAnswers(data, cap, normaliser ?? n);
            const tables = new ExactAnswers(counted, cap, normaliser ?? n);
            const last = rows.of(t).length - 1;
            for (const y of [0, last >> 1, last])
              expect(Object.is(tables.query(t, y), rows.query(t, y))).toBe(true);
            expect(sameBits(tables.of(t), rows.of(t))).toBe(true);
            const a = tables.table(t);
            const b = rows.table(t);
            expect(a.denominator).toBe(b.denominator);
            expect(sameBits(a.numerators, b.numerators)).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a table the counted data cannot give is an internal error naming the features, never a zero', () => {
    const data = randomDataset(SIZES, 50, 3);
    const counted = bruteCounted(data, [[0], [1], [2], [3], [0, 1]]);
    const exact = new ExactAnswers(counted);
    expect(exact.of({ features: [1, 0], r: 1, weight: 1 }).length).toBe(15);
    const missing = { features: [2, 0], r: 2, weight: 1 };
    expect(() => exact.of(missing)).toThrow(/internal: .*no exact table over features \[0, 2\] \(f0, f2\)/);
    expect(() => exact.query(missing, 0)).toThrow(/features \[0, 2\]/);
  });
});

describe('requiredFeatureSets', () => {
  it('every one-way and each threshold’s features not inside another’s, ascending, unique, by size then column', () => {
    const schema = randomDataset(SIZES, 1, 0).schema;
    const sets = requiredFeatureSets({
      schema,
      workload: {
        thresholds: [
          { features: [3, 1], r: 1, weight: 1 },
          { features: [1, 3], r: 2, weight: 1 },
          { features: [1, 0], r: 2, weight: 1 },
        ],
      },
      evalWorkload: { thresholds: [{ features: [2, 0, 1], r: 2, weight: 1 }] },
      evalWorkloads: [
        {
          thresholds: [
            { features: [2], r: 1, weight: 1 },
            { features: [0, 3], r: 1, weight: 1 },
          ],
        },
      ],
    });
    expect(sets).toEqual([[0], [1], [2], [3], [0, 3], [1, 3], [0, 1, 2]]);
  });

  it('covers every threshold and one-way, lists nothing else, none inside another (property, brute force)', () => {
    const d = 6;
    const schema = randomDataset([2, 3, 2, 4, 2, 3], 1, 0).schema;
    const set = fc.uniqueArray(fc.integer({ min: 0, max: d - 1 }), { minLength: 1, maxLength: 4 });
    const workloadOf = fc.array(set, { maxLength: 6 }).map((sets) => ({
      thresholds: sets.map((features) => ({ features, r: 1, weight: 1 })),
    }));
    fc.assert(
      fc.property(
        workloadOf,
        fc.option(workloadOf, { nil: undefined }),
        fc.array(workloadOf, { maxLength: 2 }),
        (w, e, es) => {
          const listed = requiredFeatureSets({
            schema,
            workload: w,
            ...(e ? { evalWorkload: e } : {}),
            evalWorkloads: es,
          });
          const asked = [w, ...(e ? [e] : []), ...es].flatMap((x) => x.thresholds.map((t) => t.features));
          const inside = (a: readonly number[], b: readonly number[]) => a.every((f) => b.includes(f));
          // Coverage: every one-way and every threshold's table is a listed table or summed out of one.
          for (const need of [...Array.from({ length: d }, (_, f) => [f]), ...asked]) {
            expect(listed.some((s) => inside(need, s))).toBe(true);
          }
          // Nothing else: each listed set is a one-way or exactly some threshold's features.
          for (const s of listed) {
            expect(s.length === 1 || asked.some((a) => a.length === s.length && inside(a, s))).toBe(true);
          }
          // Minimal: no listed multi-feature set inside a larger listed one; ascending, unique, ordered.
          for (const s of listed) {
            expect(s.length > 1 && listed.some((o) => o.length > s.length && inside(s, o))).toBe(false);
            expect([...s].sort((a, b) => a - b)).toEqual(s);
          }
          const keys = listed.map((s) => s.join(','));
          expect(new Set(keys).size).toBe(keys.length);
          const sorted = [...listed].sort(
            (a, b) => a.length - b.length || a.join(',').localeCompare(b.join(','), 'en', { numeric: true }),
          );
          expect(listed.map((s) => s.length)).toEqual(sorted.map((s) => s.length));
        },
      ),
      { numRuns: 200 },
    );
  });
});
