/**
 * A person-level release of an SPSS file or an Excel workbook is counted by DuckDB (the reader's
 * records appended in file order, counting/record-table.ts `appendRecords`; the persons found and
 * bounded by counting/person-table.ts's one rule), and writes the same CSV, byte for byte, as the
 * streaming person path's release of the same file and as the release of the same data as a CSV,
 * for the same seed. No private folder is left behind.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { savBytes } from '../../../src/core/data/formats/write-sav.ts';
import { privateTempFolder, releaseFromFlags } from '../../support/counted-release.ts';
import { DX, VISITS_WORKLOAD, visitsPersonFlags, WARDS } from '../../support/person-level.ts';

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
