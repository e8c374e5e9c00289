import { afterAll, describe, expect, it } from 'vitest';
import { fileHistogramCounter } from '../../../src/core/counting/histograms.ts';
import { NotForDuckDb } from '../../../src/core/counting/tables.ts';
import { HIERARCHY_PRESETS } from '../../../src/core/data/hierarchy.ts';
import type { Column } from '../../../src/core/data/schema.ts';
import { readTableHeader } from '../../../src/core/data/table.ts';
import { tempDir } from '../../../src/core/data/testing.ts';
import { DEFAULT_MISSING_MARKERS } from '../../../src/core/data/values.ts';
import { type DiscoverOptions, discoverSchema } from '../../../src/core/discovery/discover.ts';
import {
  type ColumnHistograms,
  countsFromHistograms,
  countsFromStream,
  discoverFromHistograms,
  discoverFromStream,
  type HistogramStream,
} from '../../../src/core/discovery/histograms.ts';
import { ColumnCounts, MAX_DISTINCT_TEXTS } from '../../../src/core/discovery/profile.ts';
import { seededNoise } from '../../../src/core/privacy/noise.ts';

const dir = tempDir('rap-hist-');
afterAll(() => dir.remove());

const day = (d: number) => new Date(Date.UTC(2020, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);

/** Public test data: numbers with spaces and every missing marker, dates, locale numbers, codes, texts. */
function messy(n: number): string {
  const lines = ['age,joined,amount,city,dx,zip,note,padded'];
  for (let i = 0; i < n; i++) {
    const age = i % 17 === 0 ? '?' : i % 23 === 0 ? 'NA' : i % 29 === 0 ? '' : ` ${18 + ((i * 37) % 70)} `;
    const joined = i % 31 === 0 ? '' : i % 97 === 0 ? '2023-02-30' : day((i * 7919) % 900);
    const amount = `"${(((i * 7907) % 2_000_000) / 100).toLocaleString('de-DE')}"`;
    const city = i === 0 ? 'Rare' : i % 8 < 4 ? 'Oslo' : i % 8 < 7 ? ' Bergen' : '"Trondheim, N"';
    const dx = i % 3 === 0 ? 'I10' : i % 3 === 1 ? `C34.${i % 2 === 0 ? '10' : '90'}` : 'J18.9';
    const zip = i % 10 === 0 ? '' : `0${String(2100 + (i % 7)).padStart(4, '0')}`;
    const note = i % 5 === 0 ? 'NA' : i % 2 === 0 ? 'yes' : 'no';
    const padded = i % 4 === 0 ? '007' : String(i % 50);
    lines.push([age, joined, amount, city, dx, zip, note, padded].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Discovery through the streaming pass and through DuckDB's histograms, under the same seed. */
async function both(file: string, opts: Omit<DiscoverOptions, 'noise'>, seed = 5) {
  const streamed = await discoverSchema(file, { ...opts, header: true, noise: seededNoise(seed) });
  const { header } = await readTableHeader(file, { header: true });
  const counted = await discoverFromHistograms(file, header, fileHistogramCounter(file, { header: true }), {
    ...opts,
    noise: seededNoise(seed),
  });
  const { histograms: _, ...rest } = counted;
  return { streamed, counted: rest };
}

describe('discovery from per-column histograms = the streaming pass', () => {
  it('a messy file: dates, locale numbers, missing markers, spaces, quoted texts, codes (same schema and noisy outputs)', async () => {
    const file = dir.file('messy.csv', messy(4000));
    for (const seed of [1, 2, 3]) {
      const { streamed, counted } = await both(file, { rho: 1, delta: 1e-6 }, seed);
      expect(counted).toEqual(streamed);
      // The file exercises what it claims: a date and a locale number were found.
      const kinds = streamed.columns.map((c) => c.detail?.kind);
      expect(kinds).toContain('date');
      expect(streamed.columns.find((c) => c.name === 'amount')?.detail?.numberFormat).toBeDefined();
    }
  });

  it('with hierarchical code columns, a declared column and a stated format', async () => {
    const file = dir.file('codes.csv', messy(3000));
    const declared: Column[] = [
      { name: 'note', kind: 'categorical', categories: ['no', 'yes'], missing: true },
    ];
    const { streamed, counted } = await both(file, {
      rho: 2,
      delta: 1e-6,
      declared,
      hierarchies: {
        dx: { levels: [{ length: 1 }, { length: 3 }, { length: 'full' }] },
        zip: HIERARCHY_PRESETS.postcode,
      },
      formats: new Map([['joined', { temporal: { kind: 'date', format: '%Y-%m-%d' } }]]),
    });
    expect(counted).toEqual(streamed);
    expect(streamed.columns.find((c) => c.name === 'dx')?.detail?.kind).toBe('hierarchical');
  });

  it('a small file at a small ε (categories near the threshold, "(other)" decisions)', async () => {
    const file = dir.file('small.csv', messy(300));
    for (const seed of [7, 8]) {
      const { streamed, counted } = await both(file, { rho: 0.02, delta: 1e-6 }, seed);
      expect(counted).toEqual(streamed);
    }
  });

  it('a column past MAX_DISTINCT_TEXTS: no distinct values kept either way, the same numeric discovery', async () => {
    const lines = ['id,group'];
    for (let i = 0; i <= MAX_DISTINCT_TEXTS; i++) lines.push(`${i * 3},${i % 3 === 0 ? 'a' : 'b'}`);
    const file = dir.file('wide.csv', `${lines.join('\n')}\n`);
    const { streamed, counted } = await both(file, { rho: 1, delta: 1e-6 });
    expect(counted).toEqual(streamed);
    expect(streamed.columns[0].detail?.kind).toBe('numeric');
  }, 60_000);

  it('a ragged row: DuckDB refuses the file (the release reads it by the streaming path)', async () => {
    const file = dir.file('ragged.csv', 'a,b\n1,x\n2\n3,y\n');
    await expect(fileHistogramCounter(file, { header: true })(['a', 'b'])).rejects.toThrow();
  });

  it('a quote after spaces: NotForDuckDb', async () => {
    const file = dir.file('spaced.csv', 'a,b\n1, "x,y"\n');
    await expect(fileHistogramCounter(file, { header: true })(['a', 'b'])).rejects.toBeInstanceOf(
      NotForDuckDb,
    );
  });
});

/**
 * A stream over whole histograms, each column's texts in REVERSE order of the map and split in
 * two visits (a streamed histogram comes in no particular order, a text once per column).
 */
function streamOf(histograms: ColumnHistograms): HistogramStream {
  return async (columns, sink) => {
    for (const [j, name] of columns.entries()) {
      const entries = [...(histograms.columns.get(name) ?? new Map())].reverse();
      const half = entries.length >> 1;
      for (const [text, count] of entries.slice(half)) sink(j, text, count);
      for (const [text, count] of entries.slice(0, half)) sink(j, text, count);
    }
    return histograms.n;
  };
}

describe('discovery from STREAMED histograms (a wide column never held whole) = the streaming pass', () => {
  it.each([
    ['every column kept', 1_000_000],
    ['columns past 25 distinct texts not kept: fed as they stream, a chosen format streamed again', 25],
  ])('%s: the same schema and noisy outputs', async (_, keep) => {
    const file = dir.file(`stream-${keep}.csv`, messy(3000));
    const { header } = await readTableHeader(file, { header: true });
    const histograms = await fileHistogramCounter(file, { header: true })(header);
    for (const seed of [1, 2]) {
      const opts = { rho: 1, delta: 1e-6 };
      const streamed = await discoverSchema(file, { ...opts, header: true, noise: seededNoise(seed) });
      let passes = 0;
      const stream: HistogramStream = (columns, sink) => {
        passes++;
        return streamOf(histograms)(columns, sink);
      };
      const found = await discoverFromStream(file, header, header, stream, {
        ...opts,
        keep,
        noise: seededNoise(seed),
      });
      const { histograms: kept, ...rest } = found;
      expect(rest).toEqual(streamed);
      // The kept histograms are the whole ones; the wide columns are listed, not kept.
      const wide = header.filter((h) => (histograms.columns.get(h)?.size ?? 0) > keep);
      expect(kept.wide).toEqual(wide);
      expect(kept.n).toBe(histograms.n);
      for (const h of header) {
        expect(kept.texts.get(h)).toBe(histograms.columns.get(h)?.size);
        if (!wide.includes(h)) expect(kept.columns.get(h)).toEqual(histograms.columns.get(h));
        else expect(kept.columns.has(h)).toBe(false);
      }
      // A chosen format (the dates, the locale numbers) of a wide column is streamed again.
      expect(passes).toBe(keep < 1000 ? 2 : 1);
    }
  });

  it("the check's counts from a stream = from the whole histograms (types, distinct values)", async () => {
    const file = dir.file('check.csv', messy(2000));
    const { header } = await readTableHeader(file, { header: true });
    const histograms = await fileHistogramCounter(file, { header: true })(header);
    const whole = countsFromHistograms(histograms, header, DEFAULT_MISSING_MARKERS, true);
    const streamed = await countsFromStream(streamOf(histograms), header, DEFAULT_MISSING_MARKERS, true);
    for (const [j, c] of streamed.entries()) {
      const w = whole[j];
      expect([c.name, c.missing, c.missingForms, c.numbers, c.texts, c.padded, c.fractional]).toEqual([
        w.name,
        w.missing,
        w.missingForms,
        w.numbers,
        w.texts,
        w.padded,
        w.fractional,
      ]);
      expect(c.values).toEqual(w.values);
    }
  });

  it('the order DuckDB returns the texts in (columns interleaved, any permutation) changes nothing', async () => {
    // A large table's parallel GROUP BY returns its groups in another order on every run: the
    // same seed must still give the same schema and noisy outputs (a seeded release reproduces).
    const file = dir.file('order.csv', messy(3000));
    const { header } = await readTableHeader(file, { header: true });
    const histograms = await fileHistogramCounter(file, { header: true })(header);
    /** Every (column, text, count) of the asked columns, in an order drawn from `seed`. */
    const shuffled =
      (seed: number): HistogramStream =>
      async (columns, sink) => {
        const all = columns.flatMap((name, j) =>
          [...(histograms.columns.get(name) ?? new Map<string, number>())].map(
            ([text, count]) => [j, text, count] as const,
          ),
        );
        let x = seed;
        for (let i = all.length - 1; i > 0; i--) {
          x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
          const k = x % (i + 1);
          [all[i], all[k]] = [all[k], all[i]];
        }
        for (const [j, text, count] of all) sink(j, text, count);
        return histograms.n;
      };
    for (const keep of [1_000_000, 25]) {
      const runs = [];
      for (const order of [1, 2, 3]) {
        const found = await discoverFromStream(file, header, header, shuffled(order), {
          rho: 1,
          delta: 1e-6,
          keep,
          noise: seededNoise(7),
        });
        const { histograms: kept, ...rest } = found;
        runs.push({ rest, wide: kept.wide, texts: kept.texts });
      }
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).toEqual(runs[0]);
    }
  });

  it('a stream whose counts do not sum to n is an internal error', async () => {
    const stream: HistogramStream = async (_, sink) => {
      sink(0, '1', 2);
      return 3;
    };
    await expect(
      discoverFromStream('t', ['a'], ['a'], stream, { rho: 1, delta: 1e-6, noise: seededNoise(1) }),
    ).rejects.toThrow(/counts 2 records/);
  });
});

describe('weighted counts (CellCounter.add with a weight)', () => {
  it('equal `weight` calls of one record each, for every kind of cell', () => {
    const cells: [string, boolean, number][] = [
      ['12', false, 0],
      ['0.5', false, 0],
      ['007', false, 0],
      ['x', false, 0],
      ['', true, 1],
      ['?', true, 0],
      ['-3e5', false, 0],
    ];
    const one = new ColumnCounts('c', 3);
    const weighted = new ColumnCounts('c', 3);
    cells.forEach(([v, missing, form], i) => {
      for (let k = 0; k <= i; k++) one.add(v, missing, form);
      weighted.add(v, missing, form, i + 1);
    });
    expect(weighted).toEqual(one);
  });

  it('a counter whose histograms do not sum to n is an internal error, not a silent miscount', async () => {
    const histograms: ColumnHistograms = { n: 3, columns: new Map([['a', new Map([['1', 2]])]]) };
    await expect(
      discoverFromHistograms('t', ['a'], async () => histograms, {
        rho: 1,
        delta: 1e-6,
        noise: seededNoise(1),
      }),
    ).rejects.toThrow(/counts 2 records/);
  });
});
