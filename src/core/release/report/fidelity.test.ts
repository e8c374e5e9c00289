/**
 * The report's fidelity figures against brute force: the TV distance of a categorical column
 * (with "(other)" never equal to a real value), the KS gap of a numeric one, the 2-way TV of every
 * pair, and the score's stated definition; a column released as the constant "(other)" is a
 * total mismatch, not a perfect match.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, type Schema } from '../../data/schema.ts';
import { scoreOf, validityOf } from './data.ts';
import { columnFidelity, FIDELITY_SAMPLE_ROWS, pairFidelity } from './fidelity.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-fidelity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A two-column CSV (a table needs two): the column x holds `values`. */
function csv(header: string, values: readonly string[]): string {
  const file = path.join(dir, `f${files++}.csv`);
  writeFileSync(file, `${header},y\n${values.map((v) => `${v},0`).join('\n')}\n`);
  return file;
}

const real = (file: string, rows: number) => ({ path: file, hasHeader: true, header: ['x', 'y'], rows });
const released = (file: string, rows: number) => ({ path: file, rows });

/** TV with "(other)" in the release a value of its own. */
function bruteTv(a: readonly string[], b: readonly string[]): number {
  const keys = new Set([...a.map((v) => `r:${v}`), ...b.map((v) => (v === '(other)' ? 'other' : `r:${v}`))]);
  let s = 0;
  for (const k of keys) {
    const p = a.filter((v) => `r:${v}` === k).length / a.length;
    const q = b.filter((v) => (v === '(other)' ? 'other' : `r:${v}`) === k).length / b.length;
    s += Math.abs(p - q);
  }
  return s / 2;
}

function bruteKs(a: readonly number[], b: readonly number[]): number {
  let d = 0;
  for (const x of [...a, ...b]) {
    const fa = a.filter((v) => v <= x).length / a.length;
    const fb = b.filter((v) => v <= x).length / b.length;
    d = Math.max(d, Math.abs(fa - fb));
  }
  return d;
}

const categorical = (categories: string[]): Schema['columns'][number] => ({
  name: 'x',
  kind: 'categorical',
  categories,
  missing: false,
});

describe('column fidelity', () => {
  it('categorical: the TV distance of brute force', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 40 }),
        fc.array(fc.constantFrom('a', 'b', '(other)'), { minLength: 1, maxLength: 40 }),
        async (r, s) => {
          const [f] = await columnFidelity(real(csv('x', r), r.length), released(csv('x', s), s.length), [
            categorical(['a', 'b', '(other)']),
          ]);
          expect(f.distance).toBeCloseTo(bruteTv(r, s), 12);
          const merged = r.filter((v) => v === 'c' || v === 'd');
          expect(f.merged.share).toBeCloseTo(merged.length / r.length, 12);
          expect(f.merged.values).toBe(new Set(merged).size);
          expect(f.otherShare).toBeCloseTo(s.filter((v) => v === '(other)').length / s.length, 12);
          // The bars hold every row of each side.
          expect(f.bars!.real.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 9);
          expect(f.bars!.synthetic.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 9);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a column released as the constant "(other)" is a total mismatch, flagged constant and merged', async () => {
    const dates = Array.from({ length: 50 }, (_, i) => `2020-01-${String(1 + (i % 28)).padStart(2, '0')}`);
    const [f] = await columnFidelity(
      real(csv('x', dates), dates.length),
      released(
        csv(
          'x',
          dates.map(() => '(other)'),
        ),
        dates.length,
      ),
      [categorical(['(other)'])],
    );
    expect(f.distance).toBe(1);
    expect(f.merged.share).toBe(1);
    const v = validityOf([f]);
    expect(v.ok).toBe(false);
    expect(v.checks.find((c) => c.code === 'constant-column')!.ok).toBe(false);
    expect(v.checks.find((c) => c.code === 'merged-categories')!.ok).toBe(false);
  });

  it('numeric: the KS gap of brute force, and values outside the range counted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 25 }), { minLength: 1, maxLength: 40 }),
        async (r, s) => {
          const [f] = await columnFidelity(
            real(csv('x', r.map(String)), r.length),
            released(csv('x', s.map(String)), s.length),
            [{ name: 'x', kind: 'numeric', edges: [0, 10, 20], integer: true, missing: false }],
          );
          expect(f.distance).toBeCloseTo(bruteKs(r, s), 12);
          expect(f.outsideDomain).toBe(s.filter((v) => v > 20).length);
          expect(f.cdf!.x.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('a file beyond the sample', () => {
  it('compares a systematic sample: a file sorted by the column is still covered end to end', async () => {
    // 2.5 samples' worth of rows, sorted: a first-rows sample would see only 'a'.
    const n = Math.round(2.5 * FIDELITY_SAMPLE_ROWS);
    const sorted = Array.from({ length: n }, (_, i) => (i < n * 0.6 ? 'a' : 'b'));
    const shuffled = Array.from({ length: 1000 }, (_, i) => (i % 5 < 3 ? 'a' : 'b'));
    const [f] = await columnFidelity(real(csv('x', sorted), n), released(csv('x', shuffled), 1000), [
      categorical(['a', 'b']),
    ]);
    // Every 3rd row of 500,000: 166,667 rows, 60.0 % 'a' (within 1/166,667 of the file's share).
    expect(f.distance).toBeLessThan(1e-4);
  });
});

describe('pair fidelity and the score', () => {
  it('the TV distance of every 2-way table, by brute force', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2), fc.nat(3), fc.nat(1)), { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(2), fc.nat(3), fc.nat(1)), { minLength: 1, maxLength: 30 }),
        (r, s) => {
          const schema: Schema = {
            version: SCHEMA_VERSION,
            origin: 'declared',
            columns: [3, 4, 2].map((k, j) => ({
              name: `c${j}`,
              kind: 'categorical' as const,
              categories: Array.from({ length: k }, (_, i) => String(i)),
              missing: false,
            })),
          };
          const enc = (rows: [number, number, number][]) => ({
            schema,
            n: rows.length,
            codes: [0, 1, 2].map((j) => Uint8Array.from(rows.map((t) => t[j]))),
          });
          const p = pairFidelity(enc(r), enc(s));
          for (let a = 0; a < 3; a++) {
            expect(p.tv[a][a]).toBeNull();
            for (let b = a + 1; b < 3; b++) {
              const keys = new Set([...r, ...s].map((t) => `${t[a]},${t[b]}`));
              let d = 0;
              for (const k of keys) {
                const pr = r.filter((t) => `${t[a]},${t[b]}` === k).length / r.length;
                const ps = s.filter((t) => `${t[a]},${t[b]}` === k).length / s.length;
                d += Math.abs(pr - ps);
              }
              expect(p.tv[a][b]).toBeCloseTo(d / 2, 12);
              expect(p.tv[b][a]).toBe(p.tv[a][b]);
            }
          }
          // The score is the stated mean of its two parts.
          const cols = [0.1, 0.3].map((distance) => ({ distance }) as never);
          const score = scoreOf(cols, p);
          const tvs = [p.tv[0][1]!, p.tv[0][2]!, p.tv[1][2]!];
          const trends = 1 - tvs.reduce((x, y) => x + y, 0) / 3;
          expect(score.columnShapes).toBeCloseTo(0.8, 12);
          expect(score.pairTrends).toBeCloseTo(trends, 12);
          expect(score.overall).toBeCloseTo((0.8 + trends) / 2, 12);
        },
      ),
      { numRuns: 50 },
    );
  });
});
