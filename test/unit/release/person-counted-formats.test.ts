/**
 * A person-level release of an SPSS file, an Excel workbook or a SAS data set is counted by
 * DuckDB (the reader's records appended in file order, counting/record-table.ts `appendRecords`;
 * the persons found and bounded by counting/person-table.ts's one rule), and writes the same CSV,
 * byte for byte, as the streaming person path's release of the same file and as the release of
 * the same data as a CSV, for the same seed; a labelled Stata file's (pandas; its city as the
 * person: 3 persons of 100 records, bounded to 2) the same CSV as streamed. No private folder is
 * left behind. On random workbooks (identifiers with spaces, missing markers, non-ASCII), the
 * table keeps the same records as the streaming bounding. A damaged .sav at the person level is
 * refused with a message naming it, nothing reserved.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPersonTable } from '../../../src/core/counting/person-table.ts';
import { sasBytes, xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { savBytes } from '../../../src/core/data/formats/write-sav.ts';
import { Rejections } from '../../../src/core/data/rejections.ts';
import { readTable } from '../../../src/core/data/table.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { seededNoise } from '../../../src/core/privacy/noise.ts';
import { boundSource, type UnitSpec } from '../../../src/core/release/person.ts';
import { privateTempFolder, releaseFromFlags } from '../../support/counted-release.ts';
import {
  boundedAsStreamed,
  DX,
  VISITS_WORKLOAD,
  visitsPersonFlags,
  WARDS,
} from '../../support/person-level.ts';

const { dir, left } = privateTempFolder('rap-person-counted-formats-', ['rap-duckdb-', 'rap-person-']);

const NAMES = ['patient', 'ward', 'diagnosis', 'age', 'stay'];

/**
 * Public test data: 300 persons with 1–7 visits each, interleaved (a person's visits are not
 * adjacent: numbering by first appearance and ranks in file order matter), some identifiers a
 * missing marker ('?', or none), some ages missing.
 */
function visits(): (string | number | null)[][] {
  const rows: (string | number | null)[][] = [];
  for (let j = 0; j < 7; j++) {
    for (let p = 0; p < 300; p++) {
      if (j >= 1 + ((p * 7) % 7)) continue;
      const id = p % 53 === 0 ? (j % 2 === 0 ? '?' : null) : `P${p}`;
      const age = p % 41 === 5 ? null : 20 + ((p * 13) % 60);
      rows.push([id, WARDS[(p + j) % 4], DX[(p * 3 + j) % 7], age, (p + j * 5) % 12]);
    }
  }
  return rows;
}

const asCsv = (rows: readonly (readonly (string | number | null)[])[]) =>
  `${[NAMES, ...rows].map((r) => r.map((v) => (v === null ? '' : String(v))).join(',')).join('\n')}\n`;

const FORMATS = {
  sav: (rows: (string | number | null)[][]) =>
    savBytes(
      [
        { name: 'patient', type: 'string', width: 8 },
        { name: 'ward', type: 'string', width: 12 },
        { name: 'diagnosis', type: 'string', width: 8 },
        { name: 'age', type: 'numeric' },
        { name: 'stay', type: 'numeric' },
      ],
      rows,
    ),
  xlsx: (rows: (string | number | null)[][]) => xlsxBytes([NAMES, ...rows]),
  sas7bdat: (rows: (string | number | null)[][]) =>
    sasBytes(
      { u64: true, little: true, rle: true },
      [
        { name: 'patient', type: 'char', width: 8 },
        { name: 'ward', type: 'char', width: 12 },
        { name: 'diagnosis', type: 'char', width: 8 },
        { name: 'age', type: 'numeric', width: 8 },
        { name: 'stay', type: 'numeric', width: 8 },
      ],
      rows,
    ),
} as const;

async function release(file: string, tag: string, k: string, streaming = false) {
  const at = (f: string) => path.join(dir, f);
  writeFileSync(at('w.json'), JSON.stringify(VISITS_WORKLOAD));
  return releaseFromFlags(
    dir,
    tag,
    { ...visitsPersonFlags(file, at('w.json'), at(`${tag}.csv`), k), header: 'yes' },
    streaming ? { counting: 'streaming' as const } : {},
  );
}

describe('a person-level release of another format is counted by DuckDB, the same CSV as streamed and as the CSV', () => {
  it.each([
    ['sav', '3'],
    ['sav', 'private'],
    ['xlsx', '2'],
    ['sas7bdat', '3'],
  ] as const)(
    '.%s, k %s',
    async (format, k) => {
      const rows = visits();
      const file = path.join(dir, `visits-${k}.${format}`);
      writeFileSync(file, FORMATS[format](rows));
      const csvFile = path.join(dir, `visits-${format}-${k}.csv`);
      writeFileSync(csvFile, asCsv(rows));
      const counted = await release(file, `${format}-${k}-counted`, k);
      const streamed = await release(file, `${format}-${k}-streamed`, k, true);
      const fromCsv = await release(csvFile, `${format}-${k}-csv`, k);
      expect(counted.report.counting).toEqual({ by: 'duckdb' });
      expect(streamed.report.counting).toEqual({ by: 'streaming', why: 'asked for' });
      expect(fromCsv.report.counting).toEqual({ by: 'duckdb' });
      expect(counted.csv.toString().split(/\r?\n/)[0]).toBe('ward,diagnosis,age,stay');
      expect(counted.csv.equals(streamed.csv)).toBe(true);
      expect(counted.csv.equals(fromCsv.csv)).toBe(true);
      expect(left()).toEqual([]);
    },
    120_000,
  );
});

it('a labelled Stata file (pandas), its city as the person: counted by DuckDB = streamed', async () => {
  const file = path.join(dir, 'people.dta');
  copyFileSync(path.join(import.meta.dirname, '..', 'formats', 'fixtures', 'people-labelled-117.dta'), file);
  const at = (f: string) => path.join(dir, f);
  writeFileSync(
    at('w-dta.json'),
    JSON.stringify({ thresholds: [{ features: ['age', 'income', 'smoker'], r: 2 }] }),
  );
  const flags = (tag: string) => ({
    data: file,
    workload: at('w-dta.json'),
    out: at(`${tag}.csv`),
    epsilon: '2',
    rows: '100',
    seed: '5',
    insecureSeed: true,
    budgetEpsilon: '100',
    confirmCap: true,
    unitColumn: 'city',
    rowsPerPerson: '2',
  });
  const counted = await releaseFromFlags(dir, 'dta-counted', flags('dta-counted'));
  const streamed = await releaseFromFlags(dir, 'dta-streamed', flags('dta-streamed'), {
    counting: 'streaming',
  });
  expect(counted.report.counting).toEqual({ by: 'duckdb' });
  expect(streamed.report.counting).toEqual({ by: 'streaming', why: 'asked for' });
  expect(counted.csv.equals(streamed.csv)).toBe(true);
  expect(left()).toEqual([]);
}, 120_000);

describe('a corrupt file at the person level', () => {
  it('a .sav cut inside its cases is refused with a message naming it; nothing is reserved or left behind', async () => {
    const whole = FORMATS.sav(visits());
    const file = path.join(dir, 'cut.sav');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6) + 3));
    await expect(release(file, 'cut', '3')).rejects.toThrow(/cut\.sav: not a readable SPSS data file/);
    const ledger = Ledger.open(path.join(dir, 'cut.sqlite'), { anchorFile: null });
    try {
      expect(ledger.releases()).toEqual([]);
    } finally {
      ledger.close();
    }
    expect(left()).toEqual([]);
  }, 60_000);
});

describe('an Excel workbook bounded per person in DuckDB = the streaming bounding (same seed)', () => {
  const IDS = ['P1', ' P1', 'P2 ', 'P3', 'P4', 'Q7', '?', '', 'NA', 'Ø9', null];
  const row = fc.tuple(
    fc.constantFrom(...IDS),
    fc.constantFrom('A', 'B', ' C', '?', ''),
    fc.constantFrom(1, 2.5, 3),
  );
  let n = 0;
  it('the same k, n̂ and kept records (the histograms of the kept records)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 80 }),
        fc.constantFrom<UnitSpec['bound']>(1, 2, 'private'),
        fc.integer(),
        async (rows, k, seed) => {
          const f = path.join(dir, `random-${n++}.xlsx`);
          writeFileSync(f, xlsxBytes([['person', 'ward', 'dose'], ...rows]));
          const unit: UnitSpec = { column: 'person', bound: k };
          const budget = {
            rhoCount: 0.05,
            rhoBound: k === 'private' ? 0.1 : 0,
            engineEpsilon: 1,
            engineRho: 0.1,
          };
          const streamed = await boundSource(f, unit, budget, seededNoise(`${seed}/person`), {
            header: true,
          });
          const table = await loadPersonTable(f, ['ward', 'dose'], 'person', { header: true });
          try {
            const bounded = await boundedAsStreamed(table, unit, budget, seed, streamed);
            const kept = new Map([
              ['ward', new Map<string, number>()],
              ['dose', new Map<string, number>()],
            ]);
            let at: number[] = [];
            await readTable(
              streamed.file,
              {
                start: (shape) => {
                  at = ['ward', 'dose'].map((c) => shape.header.indexOf(c));
                },
                row: (v) => {
                  for (const [j, c] of ['ward', 'dose'].entries()) {
                    const m = kept.get(c)!;
                    m.set(v[at[j]], (m.get(v[at[j]]) ?? 0) + 1);
                  }
                },
              },
              new Rejections(),
              { header: true, raggedAsMissing: true },
            );
            const counted = await bounded.histograms(['ward', 'dose']);
            expect(counted.n).toBe(streamed.kept);
            expect(counted.columns).toEqual(kept);
          } finally {
            await table.dispose();
            await streamed.dispose();
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
