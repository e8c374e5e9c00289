/**
 * Discovery's one-ways reused by the engine at the person level (one-way.ts, paidOneWaysFor): the
 * numeric histograms count the bounded file's rows with σ from sensitivity k√3 / k√2, so a code's
 * estimate over n̂ has the stated variance; categorical columns (distinct persons per key) are not
 * reused. Statistical: a χ² test of the stated variances over seeds, with its power stated.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { columnEncoder } from '../data/encode.ts';
import { tempDir } from '../data/testing.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import { seededNoise } from '../privacy/noise.ts';
import { discoverSchema } from './discover.ts';
import { paidOneWaysFor } from './one-way.ts';

const dir = tempDir('rap-one-way-person-');
afterAll(() => dir.remove());

const K = 3;
const PERSONS = 3000;

/** A bounded file as release/person.ts writes it: ≤ K rows per person, grouped by person. */
function boundedCsv(): { text: string; rows: string[][] } {
  const rows: string[][] = [];
  for (let p = 0; p < PERSONS; p++) {
    const own = 1 + (p % K); // 1, 2 or 3 rows
    for (let j = 0; j < own; j++) {
      const i = p * K + j;
      // A person's rows share a city (a category one person reaches with several rows) and have
      // close hours: counts of rows and of persons differ.
      const hours = p % 10 === 1 ? 64 + ((p * 7 + j) % 36) : 20 + ((p * 7 + j) % 44);
      const gain = p % 10 === 0 ? (0.5 + ((i * 7919) % 5000) / 7).toFixed(2) : '0';
      const city = p % 9 === 0 ? '' : p % 3 === 0 ? 'Oslo' : p % 3 === 1 ? 'Lima' : 'Pune';
      rows.push([`P${p}`, String(hours), gain, city]);
    }
  }
  return { text: `${['id,hours,gain,city', ...rows.map((r) => r.join(','))].join('\n')}\n`, rows };
}

describe("discovery's one-ways at the person level", () => {
  it('numeric codes over n̂ carry their stated variance (χ² over seeds); categorical columns are not reused', async () => {
    const { text, rows } = boundedCsv();
    const file = path.join(dir.path, 'bounded.csv');
    writeFileSync(file, text);
    // n̂: any public count stands for n (the engine divides by the same); here n plus a little noise.
    const nHat = rows.length + 7;
    let z2 = 0;
    let cells = 0;
    for (let seed = 0; seed < 8; seed++) {
      const found = await discoverSchema(file, {
        rho: 1,
        delta: 1e-6,
        noise: seededNoise(`person-one-way-${seed}`),
        header: true,
        unit: { column: 'id', bound: K, rows: nHat },
      });
      const { schema } = found;
      expect(schema.columns.map((c) => c.name)).toEqual(['hours', 'gain', 'city']);
      const paid = paidOneWaysFor(found.paidOneWays, schema, nHat);
      expect(paid[2]).toBeNull(); // city: partition selection counted persons, not rows
      for (const f of [0, 1]) {
        const p = paid[f];
        if (!p) throw new Error(`column ${schema.columns[f].name} not reused`);
        const encode = columnEncoder(schema.columns[f], {
          missingMarkers: DEFAULT_MISSING_MARKERS,
          outOfDomain: 'other',
        });
        const exact = new Float64Array(p.values.length);
        for (const r of rows) exact[encode(r[f + 1]) as number] += 1 / nHat;
        p.values.forEach((x, i) => {
          const z = (x - exact[i]) / Math.sqrt(p.variances[i]);
          expect(Math.abs(z)).toBeLessThan(6);
          z2 += z * z;
          cells++;
        });
      }
    }
    // Σz²/cells is χ²(cells)/cells: mean 1, sd √(2/cells) (0.12 for the 134 cells here; 1.107
    // measured). A variance stated without the bound (σ/k) gives about k² = 9, one off by a factor
    // 2 about 2: both outside 1 ± 0.5 by ≥ 4 sd, so the test rejects them with probability ≈ 1,
    // while a correct statement fails it with probability about 10⁻⁴ (χ²(134) beyond 1.5·134).
    expect(cells).toBeGreaterThan(100);
    expect(z2 / cells).toBeGreaterThan(0.5);
    expect(z2 / cells).toBeLessThan(1.5);
  });
});
