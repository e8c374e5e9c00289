import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileHistogramCounter } from '../counting/histograms.ts';
import { loadSourceTable } from '../counting/source-table.ts';
import type { Column } from '../data/schema.ts';
import { tempDir } from '../data/testing.ts';
import { MAX_DISTINCT_TEXTS } from '../discovery/profile.ts';
import {
  checkDiscoverable,
  checkRawSource,
  discoverAndLoad,
  planRawSource,
} from '../discovery/raw-source.ts';
import { seededNoise } from '../privacy/noise.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import { contingencyTable } from '../workload/exact.ts';
import { fitOnTable } from './counted-run.ts';
import { discoverAndCount } from './counted-source.ts';
import { FIDELITY_SAMPLE_ROWS, histogramSample } from './report/fidelity.ts';

const dir = tempDir('rap-counted-');
afterAll(() => dir.remove());

const day = (d: number) => new Date(Date.UTC(2019, 5, 1) + d * 86_400_000).toISOString().slice(0, 10);

function messy(n: number, header = true): string {
  const lines = header ? ['age,joined,amount,city,note'] : [];
  for (let i = 0; i < n; i++) {
    const age = i % 17 === 0 ? '?' : i % 23 === 0 ? 'NA' : ` ${18 + ((i * 37) % 70)} `;
    const joined = i % 31 === 0 ? '' : day((i * 7919) % 700);
    const amount = `"${(((i * 7907) % 2_000_000) / 100).toLocaleString('de-DE')}"`;
    const city = i === 0 ? 'Rare' : i % 8 < 4 ? 'Oslo' : i % 8 < 7 ? ' Bergen' : '"Trondheim, N"';
    const note = i % 5 === 0 ? 'maybe' : i % 2 === 0 ? 'yes' : 'no';
    lines.push([age, joined, amount, city, note].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Every one-way, a few 2- and 3-way sets (unsorted on purpose: the counter sorts them). */
const sets = (k: number) => [
  ...Array.from({ length: k }, (_, i) => [i]),
  [1, 0],
  [2, 3],
  [0, 3, 4],
  [4, 2, 1],
];

async function compare(
  file: string,
  rows: number,
  declared: readonly Column[] = [],
  header?: boolean,
  seed = 3,
) {
  const plan = await planRawSource(
    file,
    declared,
    { epsilon: 1, delta: 1e-6, share: 0.2 },
    header === undefined ? {} : { header },
  );
  const hdr = header === undefined ? {} : { header };
  const streamed = await discoverAndLoad(plan, rows, seededNoise(seed), hdr);
  const counted = await discoverAndCount(plan, rows, seededNoise(seed), (s) => sets(s.columns.length), hdr);
  if (counted.counting.by !== 'duckdb' || !('data' in counted))
    throw new Error(`streamed: ${JSON.stringify(counted)}`);
  expect(counted.discovery).toEqual(streamed.discovery);
  expect(counted.data.dataset.schema).toEqual(streamed.loaded.dataset.schema);
  expect(counted.data.dataset.n).toBe(rows);
  for (const fs of sets(counted.data.dataset.schema.columns.length)) {
    const sorted = [...fs].sort((a, b) => a - b);
    const table = counted.data.dataset.tables.get(sorted.join(','));
    expect(table && Array.from(table)).toEqual(Array.from(contingencyTable(streamed.loaded.dataset, sorted)));
  }
  // The same, counted from the file parsed once into DuckDB (the release's path: counting/source-table.ts).
  const loaded = await loadSourceTable(file, plan.header, hdr);
  try {
    const viaTable = await discoverAndCount(plan, rows, seededNoise(seed), (s) => sets(s.columns.length), {
      ...hdr,
      table: loaded,
    });
    expect(viaTable).toEqual(counted);
    // Columns past `keep` distinct texts (a continuous column's millions, lowered here): fed to
    // discovery as they stream, not kept; the report's sample of each counted in DuckDB.
    const keep = 20;
    const narrow = await discoverAndCount(plan, rows, seededNoise(seed), (s) => sets(s.columns.length), {
      ...hdr,
      table: loaded,
      keep,
    });
    if (!('data' in narrow) || !('data' in counted)) throw new Error('streamed');
    expect(narrow.discovery).toEqual(counted.discovery);
    expect(narrow.data.dataset).toEqual(counted.data.dataset);
    const all = counted.data.histograms.columns;
    const wide = plan.header.filter((h) => (all.get(h)?.size ?? 0) > keep);
    expect(wide.length).toBeGreaterThan(0);
    expect([...(narrow.data.samples?.keys() ?? [])]).toEqual(wide);
    for (const h of plan.header) {
      if (!wide.includes(h)) {
        expect(narrow.data.histograms.columns.get(h)).toEqual(all.get(h));
        continue;
      }
      expect(narrow.data.histograms.columns.has(h)).toBe(false);
      expect(narrow.data.samples?.get(h)).toEqual(histogramSample(all.get(h)!, rows, false));
      // A stride past 1 (a file of over FIDELITY_SAMPLE_ROWS records).
      expect(await loaded.textSample?.(h, 7)).toEqual(
        histogramSample(all.get(h)!, 7 * FIDELITY_SAMPLE_ROWS, false),
      );
    }
  } finally {
    await loaded.dispose();
  }
  return counted;
}

describe('a release source counted by DuckDB = the streaming path (discovery and exact tables)', () => {
  it('a messy CSV with a header: dates, locale numbers, missing markers, spaces, quoted texts', async () => {
    const file = dir.file('messy.csv', messy(3000));
    for (const seed of [1, 2]) await compare(file, 3000, [], undefined, seed);
  });

  it('no header row, a declared column among discovered ones', async () => {
    const file = dir.file('plain.csv', messy(2000, false));
    const declared: Column[] = [
      { name: 'column_5', kind: 'categorical', categories: ['maybe', 'no', 'yes'], missing: false },
    ];
    await compare(file, 2000, declared, false);
  });

  it('a Parquet copy', async () => {
    const csv = dir.file(
      'for-parquet.csv',
      messy(1500).replaceAll(' Bergen', 'Bergen').replaceAll(' 2', '2'),
    );
    const parquet = join(dir.path, 'copy.parquet');
    await withDuckDb((c) =>
      c.run(
        `COPY (SELECT * FROM read_csv('${csv}', header = true, all_varchar = true)) TO '${parquet}' (FORMAT parquet)`,
      ),
    );
    await compare(parquet, 1500);
  });
});

describe('the fallback to the streaming path, and nothing left behind', () => {
  it('a row of the wrong width: streamed, before any noise is drawn; the spill folder is gone', async () => {
    const file = dir.file('ragged.csv', `${messy(50)}1,2\n`);
    const parent = join(dir.path, 'spill-error');
    mkdirSync(parent);
    const plan = await planRawSource(file, [], { epsilon: 1, delta: 1e-6, share: 0.2 });
    let drawn = 0;
    const noise = { ...seededNoise(1) };
    const counting = new Proxy(noise, {
      get(t, p, r) {
        drawn++;
        return Reflect.get(t, p, r);
      },
    });
    const out = await discoverAndCount(plan, 51, counting, () => [[0]], { duckdb: { tempParent: parent } });
    expect(out.counting.by).toBe('streaming');
    expect(out.discovery).toBeUndefined();
    expect(drawn).toBe(0);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('the spill folder is removed on success and on cancel', async () => {
    const file = dir.file('big.csv', messy(60_000));
    const plan = await planRawSource(file, [], { epsilon: 1, delta: 1e-6, share: 0.2 });
    const ok = join(dir.path, 'spill-ok');
    mkdirSync(ok);
    const done = await discoverAndCount(plan, 60_000, seededNoise(1), (s) => sets(s.columns.length), {
      duckdb: { tempParent: ok },
    });
    expect(done.counting.by).toBe('duckdb');
    expect(readdirSync(ok)).toEqual([]);
    const cancelled = join(dir.path, 'spill-cancel');
    mkdirSync(cancelled);
    const ac = new AbortController();
    const run = discoverAndCount(plan, 60_000, seededNoise(1), (s) => sets(s.columns.length), {
      duckdb: { tempParent: cancelled },
      signal: ac.signal,
    });
    // Cancel once DuckDB's private folder exists (the scan is under way).
    while (readdirSync(cancelled).length === 0) await new Promise((r) => setTimeout(r, 1));
    ac.abort();
    await expect(run).rejects.toThrow();
    expect(readdirSync(cancelled)).toEqual([]);
  });
});

describe("the check before the reservation from DuckDB's histograms", () => {
  it('refuses a text column past MAX_DISTINCT_TEXTS as the streaming pass does; passes a plain file', async () => {
    const lines = ['id,group'];
    for (let i = 0; i <= MAX_DISTINCT_TEXTS; i++) lines.push(`u${i},${i % 3 === 0 ? 'a' : 'b'}`);
    const wide = dir.file('ids.csv', `${lines.join('\n')}\n`);
    const plan = await planRawSource(wide, [], { epsilon: 1, delta: 1e-6, share: 0.2 });
    const streamed = await checkDiscoverable(plan).catch((e: Error) => e.message);
    const counted = await checkDiscoverable(plan, { counter: fileHistogramCounter(wide) }).catch(
      (e: Error) => e.message,
    );
    expect(streamed).toMatch(/more than 100,000 distinct values, not all numbers/);
    expect(counted).toBe(streamed);
    // Streamed from the loaded table (the release's path): the same refusal, no histogram held.
    const table = await loadSourceTable(wide, plan.header);
    try {
      const viaStream = await checkDiscoverable(plan, {
        stream: (names, sink) => table.stream!(names, sink),
      }).catch((e: Error) => e.message);
      expect(viaStream).toBe(streamed);
    } finally {
      await table.dispose();
    }
    const fine = dir.file('fine.csv', messy(500));
    const finePlan = await planRawSource(fine, [], { epsilon: 1, delta: 1e-6, share: 0.2 });
    expect(await checkDiscoverable(finePlan, { counter: fileHistogramCounter(fine) })).toEqual({
      keptAsMissing: [],
    });
    const fineTable = await loadSourceTable(fine, finePlan.header);
    try {
      expect(
        await checkDiscoverable(finePlan, { stream: (names, sink) => fineTable.stream!(names, sink) }),
      ).toEqual({ keptAsMissing: [] });
    } finally {
      await fineTable.dispose();
    }
  }, 60_000);
});

describe('the fit check from the table parsed once = the streaming fit check', () => {
  it('records, no misfit, no row of another width; a misfit is left to the streaming check', async () => {
    const file = dir.file('fit.csv', messy(800));
    const note = (categories: string[]): Column[] => [
      { name: 'note', kind: 'categorical', categories, missing: false },
    ];
    const budget = { epsilon: 1, delta: 1e-6, share: 0.2 };
    const plan = await planRawSource(file, note(['maybe', 'no', 'yes']), budget);
    const narrow = await planRawSource(file, note(['no', 'yes']), budget);
    const table = await loadSourceTable(file, plan.header);
    try {
      expect(await fitOnTable(table, plan)).toEqual(await checkRawSource(plan));
      expect(await fitOnTable(table, narrow)).toBeUndefined();
      expect((await checkRawSource(narrow)).first).toMatchObject({ value: 'maybe', problem: 'category' });
    } finally {
      await table.dispose();
    }
  });
});
