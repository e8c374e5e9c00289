/**
 * What the person-level release tests share (test/unit/release/person-counted.test.ts,
 * person-counted-release.test.ts, postgres-person-release.test.ts):
 * - the hospital visits' public values (wards, diagnoses), their workload and the flags of one
 *   small seeded (insecure) person-level release of them, so a file, a Parquet copy and a
 *   PostgreSQL table are released alike and compared byte for byte;
 * - the neighbouring datasets of the sensitivity tests: D and D′ differing in ONE PERSON (all
 *   their rows), everyone else within k rows;
 * - the check that a DuckDB person table bounds as the streaming path did (`boundedAsStreamed`).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { PersonTable } from '../../src/core/counting/person-table.ts';
import { seededNoise } from '../../src/core/privacy/noise.ts';
import type { boundSource, UnitSpec } from '../../src/core/release/person.ts';
import { boundOnTable } from '../../src/core/release/person-counted.ts';

export const WARDS = ['Cardiology', 'Oncology', 'Emergency', 'Surgery'];
export const DX = ['I10', 'I10.9', 'C34.90', 'C34.10', 'J45.20', 'E11.65', 'NA'];

/** Two thresholds over the visits' columns (ward, diagnosis, age, stay). */
export const VISITS_WORKLOAD = {
  thresholds: [
    { features: ['ward', 'diagnosis'], r: 2 },
    { features: ['age', 'stay', 'ward'], r: 2 },
  ],
};

/**
 * synth's flags (SynthFlags) for a release of `data` per person (unit column `patient`, `k` rows
 * per person, 'private' for k chosen privately), diagnosis an ICD-10 hierarchy, ε = 2, 200 rows,
 * seed 5 (insecure), a budget of ε = 100 confirmed.
 */
export function visitsPersonFlags(data: string, workload: string, out: string, k: string) {
  return {
    data,
    workload,
    out,
    epsilon: '2',
    rows: '200',
    seed: '5',
    insecureSeed: true,
    budgetEpsilon: '100',
    confirmCap: true,
    unitColumn: 'patient',
    rowsPerPerson: k,
    hierarchy: ['diagnosis=icd10'],
  };
}

/** One case of the neighbouring test: the bound k, everyone else's records, the changed person's shapes. */
export interface NeighbourCase {
  readonly k: number;
  /** Each other person's (category, number) records, at most k of them. */
  readonly others: readonly (readonly [string, string])[][];
  readonly before: Shape;
  readonly after: Shape;
  readonly cellBefore: number;
  readonly cellAfter: number;
  readonly seed: number;
}

/** The changed person: k rows in one cell, spread over k cells, 60 rows in one cell, or absent. */
type Shape = 'one-cell' | 'spread' | 'many' | 'absent';

/**
 * Neighbouring datasets of records (person, category, number) over `cats` × `nums`: `cases`
 * draws k ∈ {1, 2, 4} and the rest; `datasets` gives D and D′, everyone else's records then the
 * changed person "z"'s (last, so its bounding draws are the last).
 */
export function neighbouringPersons(cats: readonly string[], nums: readonly string[]) {
  const cells = cats.length * nums.length;
  const shape = fc.constantFrom<Shape>('one-cell', 'spread', 'many', 'absent');
  const cases: fc.Arbitrary<NeighbourCase> = fc.constantFrom(1, 2, 4).chain((k) =>
    fc.record({
      k: fc.constant(k),
      // Everyone else within k rows: bounding draws nothing for them (the coupling).
      others: fc.array(
        fc.array(fc.tuple(fc.constantFrom(...cats), fc.constantFrom(...nums)), {
          minLength: 1,
          maxLength: k,
        }),
        { minLength: 1, maxLength: 10 },
      ),
      before: shape,
      after: shape,
      cellBefore: fc.nat({ max: cells - 1 }),
      cellAfter: fc.nat({ max: cells - 1 }),
      seed: fc.integer(),
    }),
  );
  const record = (cell: number): string[] => ['z', cats[cell % cats.length], nums[cell % nums.length]];
  const changed = (k: number, s: Shape, cell: number): string[][] => {
    if (s === 'absent') return [];
    if (s === 'spread') return Array.from({ length: k }, (_, j) => record(cell + j));
    return Array.from({ length: s === 'many' ? 60 : k }, () => record(cell));
  };
  const datasets = (x: NeighbourCase): [string[][], string[][]] => {
    const base = x.others.flatMap((rows, p) => rows.map(([cat, num]) => [`p${p}`, cat, num]));
    return [
      [...base, ...changed(x.k, x.before, x.cellBefore)],
      [...base, ...changed(x.k, x.after, x.cellAfter)],
    ];
  };
  return { cases, datasets };
}

/**
 * The person table bounded with the draws the streaming path used for `seed` (`${seed}/person`):
 * the same outcome (the column, k, the rows) and the same n̂ as `streamed` (boundSource on the
 * same file). Returns the bounded table for the caller's own checks of the kept records.
 */
export async function boundedAsStreamed(
  table: PersonTable,
  unit: UnitSpec,
  budget: Parameters<typeof boundOnTable>[2],
  seed: number,
  streamed: Awaited<ReturnType<typeof boundSource>>,
) {
  const { outcome, bounded } = await boundOnTable(table, unit, budget, seededNoise(`${seed}/person`));
  expect(outcome).toEqual({
    column: streamed.column,
    bound: streamed.bound,
    chosen: streamed.chosen,
    rows: streamed.rows,
  });
  expect(bounded.n).toBe(streamed.kept);
  return bounded;
}
