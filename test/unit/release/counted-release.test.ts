/**
 * A raw release (no schema, row level) counted by DuckDB (release/counted-source.ts: discovery on
 * one scan's histograms, the engine's exact tables from a second, no rows) writes the same bytes
 * as the streaming reader's release of the same file with the same seed; where DuckDB cannot read
 * the file as the streaming reader does, the release is streamed, and the curator's report says
 * which reader counted (the public manifest does not: the fallback can depend on the rows).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateTempFolder, releaseFromFlags } from '../../support/counted-release.ts';

// DuckDB's private folders (the parsed table, the spill) are made under the OS temp folder: a
// folder of this file's own, so each test sees exactly what a release leaves behind.
const { dir, left: duckdbLeft } = privateTempFolder('rap-counted-release-');

const day = (d: number) => new Date(Date.UTC(2018, 2, 1) + d * 86_400_000).toISOString().slice(0, 10);

/** Public test data: numbers with spaces and missing markers, dates, texts with quotes and rare values. */
function messy(n: number, header: boolean): string {
  const lines = header ? ['age,joined,city,band,hours'] : [];
  for (let i = 0; i < n; i++) {
    const age = i % 19 === 0 ? '?' : ` ${18 + ((i * 37) % 70)}`;
    const joined = i % 29 === 0 ? '' : day((i * 7919) % 800);
    const city = i === 0 ? 'Rare' : i % 8 < 4 ? 'Oslo' : i % 8 < 7 ? 'Bergen' : '"Trondheim, N"';
    const band = ['low', 'mid', 'high', 'NA'][(i * 7) % 4];
    const hours = String(20 + ((i * 13) % 40));
    lines.push([age, joined, city, band, hours].join(','));
  }
  return `${lines.join('\n')}\n`;
}

const WORKLOAD = (names: readonly string[]) => ({
  thresholds: [
    { features: [names[0], names[2]], r: 2 },
    { features: [names[1], names[3], names[4]], r: 2 },
    { features: [names[2], names[3]], r: 1 },
  ],
});

async function release(
  file: string,
  names: readonly string[],
  tag: string,
  streaming: boolean,
  hooks: { readonly signal?: AbortSignal; readonly onReserved?: () => void } = {},
) {
  const at = (f: string) => path.join(dir, f);
  writeFileSync(at(`w-${tag}.json`), JSON.stringify(WORKLOAD(names)));
  return releaseFromFlags(
    dir,
    `${tag}-${streaming}`,
    {
      data: file,
      workload: at(`w-${tag}.json`),
      out: at(`${tag}-${streaming ? 'streamed' : 'counted'}.csv`),
      epsilon: '1',
      rows: '300',
      seed: '4',
      insecureSeed: true,
      budgetEpsilon: '100',
      confirmCap: true,
      header: names[0] === 'column_1' ? 'no' : 'yes',
    },
    { ...hooks, ...(streaming ? { counting: 'streaming' as const } : {}) },
  );
}

describe('a raw release counted by DuckDB = the streaming release, byte for byte', () => {
  it.each([
    ['a CSV with a header', 'header', true],
    ['a CSV without a header', 'plain', false],
  ])('%s', async (_, tag, header) => {
    mkdirSync(path.join(dir, tag), { recursive: true });
    const file = path.join(dir, tag, 'data.csv');
    writeFileSync(file, messy(1200, header));
    const names = header
      ? ['age', 'joined', 'city', 'band', 'hours']
      : ['column_1', 'column_2', 'column_3', 'column_4', 'column_5'];
    const counted = await release(file, names, tag, false);
    const streamed = await release(file, names, tag, true);
    expect(counted.report.counting).toEqual({ by: 'duckdb' });
    expect(streamed.report.counting).toEqual({ by: 'streaming', why: 'asked for' });
    expect(counted.csv.equals(streamed.csv)).toBe(true);
    expect(counted.manifest).not.toContain('duckdb');
    expect(duckdbLeft()).toEqual([]);
  });

  it('the table DuckDB parsed before the reservation is gone after a cancelled run', async () => {
    mkdirSync(path.join(dir, 'cancel'), { recursive: true });
    const file = path.join(dir, 'cancel', 'data.csv');
    writeFileSync(file, messy(1200, true));
    const names = ['age', 'joined', 'city', 'band', 'hours'];
    const ac = new AbortController();
    let held: string[] = [];
    const cancelled = release(file, names, 'cancel', false, {
      signal: ac.signal,
      onReserved: () => {
        held = duckdbLeft();
        ac.abort();
      },
    });
    await expect(cancelled).rejects.toThrow();
    expect(held).toHaveLength(1);
    expect(duckdbLeft()).toEqual([]);
  });

  it.each([
    ['shorter', '40,x'],
    ['longer', '40,2019-01-01,Oslo,low,30,extra'],
  ])('a %s row: streamed (the reason in the report only), the same release as asked-for streaming', async (tag, row) => {
    mkdirSync(path.join(dir, tag), { recursive: true });
    const file = path.join(dir, tag, 'data.csv');
    writeFileSync(file, `${messy(600, true)}${row}\n`);
    const names = ['age', 'joined', 'city', 'band', 'hours'];
    const fallback = await release(file, names, tag, false);
    const streamed = await release(file, names, tag, true);
    expect(fallback.report.counting).toMatchObject({
      by: 'streaming',
      why: expect.stringMatching(/another width/),
    });
    expect(fallback.csv.equals(streamed.csv)).toBe(true);
  });
});
