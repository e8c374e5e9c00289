/**
 * A person-level raw release (a unit column, k given or chosen privately, columns discovered, one
 * hierarchical) counted by DuckDB (release/person-counted.ts) writes the same bytes as the
 * streaming person path's release of the same file with the same seed, and a Parquet copy of a
 * file the same bytes as the CSV; where DuckDB cannot read the file as the streaming reader does,
 * the release is streamed and the curator's report says why. DuckDB's private folders are gone
 * after each release.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quoteString } from '../../../src/core/sql/counting.ts';
import { withDuckDb } from '../../../src/core/sql/duckdb.ts';
import { privateTempFolder, releaseFromFlags } from '../../support/counted-release.ts';
import { DX, VISITS_WORKLOAD, visitsPersonFlags, WARDS } from '../../support/person-level.ts';

const { dir, left } = privateTempFolder('rap-person-counted-release-', ['rap-duckdb-', 'rap-person-']);

/** Public test data: 300 persons with 1–7 visits each (some ids with spaces, some missing). */
function visits(spaced: boolean): string {
  const lines = ['patient,ward,diagnosis,age,stay'];
  for (let p = 0; p < 300; p++) {
    const visitsOf = 1 + ((p * 7) % 7);
    for (let j = 0; j < visitsOf; j++) {
      const id = p % 53 === 0 ? (j % 2 === 0 ? '?' : '') : spaced && j % 3 === 1 ? ` P${p}` : `P${p}`;
      const age = String(20 + ((p * 13) % 60));
      lines.push([id, WARDS[(p + j) % 4], DX[(p * 3 + j) % 7], age, String((p + j * 5) % 12)].join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

async function release(
  file: string,
  tag: string,
  opts: { streaming?: boolean; k?: string; columns?: string } = {},
) {
  const at = (f: string) => path.join(dir, f);
  writeFileSync(at('w.json'), JSON.stringify(VISITS_WORKLOAD));
  return releaseFromFlags(
    dir,
    tag,
    {
      ...visitsPersonFlags(file, at('w.json'), at(`${tag}.csv`), opts.k ?? '3'),
      header: 'yes',
      ...(opts.columns ? { columns: opts.columns } : {}),
    },
    opts.streaming ? { counting: 'streaming' as const } : {},
  );
}

describe('a person-level release counted by DuckDB = the streaming person release, byte for byte', () => {
  it.each([
    ['k given', '3'],
    ['k chosen privately', 'private'],
  ])(
    '%s',
    async (tag, k) => {
      const file = path.join(dir, `visits-${k}.csv`);
      writeFileSync(file, visits(true));
      const counted = await release(file, `${k}-counted`, { k });
      const streamed = await release(file, `${k}-streamed`, { k, streaming: true });
      expect(counted.report.counting).toEqual({ by: 'duckdb' });
      expect(streamed.report.counting).toEqual({ by: 'streaming', why: 'asked for' });
      expect(counted.csv.equals(streamed.csv), tag).toBe(true);
      expect(left()).toEqual([]);
    },
    120_000,
  );

  it('a column choice (the unit column kept for bounding only)', async () => {
    const file = path.join(dir, 'chosen.csv');
    writeFileSync(file, `${visits(true).replaceAll('\n', ',x\n').replace(',x\n', ',extra\n')}`);
    const columns = 'ward,diagnosis,age,stay';
    const counted = await release(file, 'chosen-counted', { columns });
    const streamed = await release(file, 'chosen-streamed', { columns, streaming: true });
    expect(counted.report.counting).toEqual({ by: 'duckdb' });
    expect(counted.csv.toString().split(/\r?\n/)[0]).toBe('ward,diagnosis,age,stay');
    expect(counted.csv.equals(streamed.csv)).toBe(true);
    expect(left()).toEqual([]);
  }, 120_000);

  it('a Parquet copy releases the same bytes as the CSV', async () => {
    const file = path.join(dir, 'plain.csv');
    writeFileSync(file, visits(false));
    const parquet = path.join(dir, 'plain.parquet');
    await withDuckDb((c) =>
      c.run(
        `COPY (SELECT * FROM read_csv(${quoteString(file)}, header = true, all_varchar = true)) ` +
          `TO ${quoteString(parquet)} (FORMAT parquet)`,
      ),
    );
    const fromCsv = await release(file, 'plain-csv');
    const fromParquet = await release(parquet, 'plain-parquet');
    expect(fromParquet.report.counting).toEqual({ by: 'duckdb' });
    expect(fromParquet.csv.equals(fromCsv.csv)).toBe(true);
    expect(left()).toEqual([]);
  }, 120_000);

  it('a row of another width: streamed, with the reason in the report, the same release as asked-for streaming', async () => {
    const file = path.join(dir, 'ragged.csv');
    writeFileSync(file, `${visits(true)}P9,Oncology\n`);
    const fallback = await release(file, 'ragged-fallback');
    const streamed = await release(file, 'ragged-streamed', { streaming: true });
    expect(fallback.report.counting).toMatchObject({
      by: 'streaming',
      why: expect.stringMatching(/another width/),
    });
    expect(fallback.csv.equals(streamed.csv)).toBe(true);
    expect(left()).toEqual([]);
  }, 120_000);
});
