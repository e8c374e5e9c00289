import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprintAndCountRows } from '../data/file-facts.ts';
import { type Column, SCHEMA_VERSION, type Schema } from '../data/schema.ts';
import { tempDir } from '../data/testing.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import { fileHistogramCounter } from './histograms.ts';
import { loadSourceTable } from './source-table.ts';
import { countFileTables, NotForDuckDb, WIDE_COLUMN_TEXTS } from './tables.ts';

const dir = tempDir('rap-source-table-');
afterAll(() => dir.remove());

function rows(n: number, header = true): string {
  const lines = header ? ['age,city,note'] : [];
  for (let i = 0; i < n; i++) {
    const age = i % 17 === 0 ? '?' : i % 13 === 0 ? '' : ` ${18 + ((i * 37) % 70)} `;
    const city = i % 8 < 4 ? 'Oslo' : i % 8 < 7 ? ' Bergen' : '"Trondheim, N"';
    const note = i % 11 === 0 ? '""' : i % 2 === 0 ? 'yes' : 'no';
    lines.push([age, city, note].join(','));
  }
  return `${lines.join('\n')}\n`;
}

const cat = (name: string, categories: string[]): Column => ({
  name,
  kind: 'categorical',
  categories,
  missing: true,
});
const SCHEMA: Schema = {
  version: SCHEMA_VERSION,
  origin: 'declared',
  columns: [
    { name: 'age', kind: 'numeric', edges: [0, 20, 40, 60, 80, 100], integer: true, missing: true },
    cat('city', ['Bergen', 'Oslo', 'Trondheim, N']),
    cat('note', ['no', 'yes']),
  ],
};
const SETS = [[0], [1], [2], [0, 1], [0, 1, 2]];

/** A fresh private parent for DuckDB's folder, so a test sees exactly what is left behind. */
function parent(name: string): string {
  const p = join(dir.path, name);
  mkdirSync(p);
  return p;
}

describe('a CSV parsed once into DuckDB counts as the file does', () => {
  it.each([
    ['with a header', true],
    ['without a header', false],
  ])('%s: the histograms and the tables equal those read off the file', async (_, header) => {
    const file = dir.file(`data-${header}.csv`, rows(2500, header));
    const names = header ? ['age', 'city', 'note'] : ['column_1', 'column_2', 'column_3'];
    const schema = { ...SCHEMA, columns: SCHEMA.columns.map((c, i) => ({ ...c, name: names[i] })) };
    const opts = { header, trim: true, outOfDomain: 'reject' as const };
    const table = await loadSourceTable(file, names, { header });
    try {
      expect(await table.histograms(names)).toEqual(await fileHistogramCounter(file, { header })(names));
      expect(await table.histograms(names.slice(1))).toEqual(
        await fileHistogramCounter(file, { header })(names.slice(1)),
      );
      expect(await table.tables(schema, SETS, opts)).toEqual(await countFileTables(file, schema, SETS, opts));
    } finally {
      await table.dispose();
    }
  });
});

describe('the table holds distinct records with counts where the sample repeats, the records otherwise', () => {
  /** rows(n) with a fourth column: unique per record (`id`), or constant. */
  function withId(n: number, unique: boolean): string {
    const [head, ...body] = rows(n).trimEnd().split('\n');
    return `${[`${head},id`, ...body.map((l, i) => `${l},${unique ? i : 0}`)].join('\n')}\n`;
  }
  it.each([
    ['repeated records: distinct ones with counts', false, true],
    ['every record distinct: the records', true, false],
  ])('%s, counted as the file is', async (_, unique, distinct) => {
    const file = dir.file(`ids-${unique}.csv`, withId(3000, unique));
    const names = ['age', 'city', 'note', 'id'];
    const ids = unique ? Array.from({ length: 3000 }, (_, i) => String(i)) : ['0'];
    const schema: Schema = { ...SCHEMA, columns: [...SCHEMA.columns, cat('id', ids)] };
    const sets = [...SETS, [3], [1, 3], [0, 2, 3]];
    const opts = { trim: true, outOfDomain: 'reject' as const };
    const table = await loadSourceTable(file, names);
    try {
      expect(table.distinct).toBe(distinct);
      expect(await table.histograms(names)).toEqual(await fileHistogramCounter(file)(names));
      expect(await table.tables(schema, sets, opts)).toEqual(await countFileTables(file, schema, sets, opts));
    } finally {
      await table.dispose();
    }
  });
});

describe('a column with more distinct texts than WIDE_COLUMN_TEXTS is coded in DuckDB first', () => {
  /** rows(n) with a fourth column of distinct numbers (spaced, some missing), repeated `copies` times. */
  function withWide(n: number, copies: number): string {
    const [head, ...body] = rows(n).trimEnd().split('\n');
    const records = body.map(
      (l, i) => `${l},${i % 29 === 0 ? '?' : i % 31 === 0 ? '' : ` ${1000 + i * 7}.5 `}`,
    );
    return `${[`${head},wide`, ...Array.from({ length: copies }, () => records).flat()].join('\n')}\n`;
  }
  const wide: Column = {
    name: 'wide',
    kind: 'numeric',
    edges: [0, 5000, 20000, 40000, 80000],
    integer: false,
    missing: true,
  };
  const schema: Schema = { ...SCHEMA, columns: [...SCHEMA.columns, wide] };
  const names = ['age', 'city', 'note', 'wide'];
  const sets = [...SETS, [3], [1, 3], [0, 2, 3], [3, 1]];
  const opts = { trim: true, outOfDomain: 'reject' as const };
  it.each([
    ['every record distinct', 1],
    ['repeated records (distinct ones with counts)', 3],
  ])('%s: the same tables as the file counted directly', async (_, copies) => {
    expect(WIDE_COLUMN_TEXTS).toBeLessThan(6000);
    const file = dir.file(`wide-${copies}.csv`, withWide(6000, copies));
    const table = await loadSourceTable(file, names);
    try {
      expect(table.distinct).toBe(copies > 1);
      expect(await table.tables(schema, sets, opts)).toEqual(await countFileTables(file, schema, sets, opts));
      // Distinct texts known (discovery's streamed histograms) instead of DuckDB's estimate: the
      // wide column coded or not, the same tables.
      for (const w of [6000, 10]) {
        const texts = new Map([...names.map((n): [string, number] => [n, 10]), ['wide', w]]);
        expect(await table.tables(schema, sets, { ...opts, texts })).toEqual(
          await countFileTables(file, schema, sets, opts),
        );
      }
      // The coding tables are gone: a second count reads the same.
      expect(await table.tables(schema, [[3], [1, 3]], opts)).toEqual(
        await countFileTables(file, schema, [[3], [1, 3]], opts),
      );
    } finally {
      await table.dispose();
    }
  });
  it.each([
    ['fractional', 'TRY_CAST(trim(wide) AS DOUBLE)'],
    ['whole (a CSV writes 1007, not 1007.0)', 'FLOOR(TRY_CAST(trim(wide) AS DOUBLE))'],
  ])('a Parquet file counted in place, its wide DOUBLE column %s: the same tables coded as uncoded', async (_, expr) => {
    const csv = dir.file(`wide-pq-${expr.length}.csv`, withWide(6000, 1));
    const parquet = join(dir.path, `wide-${expr.length}.parquet`);
    await withDuckDb((c) =>
      c.run(
        `COPY (SELECT age, city, note, ${expr} AS wide FROM read_csv('${csv}', header = true, all_varchar = true)) ` +
          `TO '${parquet}' (FORMAT parquet)`,
      ),
    );
    const table = await loadSourceTable(parquet, names);
    try {
      const uncoded = await countFileTables(parquet, schema, sets, opts);
      const texts = new Map([...names.map((n): [string, number] => [n, 10]), ['wide', 6000]]);
      expect(await table.tables(schema, sets, { ...opts, texts })).toEqual(uncoded);
      // DuckDB's estimate of the distinct texts instead (no count given).
      expect(await table.tables(schema, sets, opts)).toEqual(uncoded);
    } finally {
      await table.dispose();
    }
  });

  it('more distinct texts than an appender flush (204,800): every text coded, the same tables, run after run', async () => {
    // Appending codes while the distinct texts still streamed ended the stream at the appender's
    // first flush (204,800 rows), silently: the other texts fell in code 0, and which ones
    // depended on the order DuckDB's parallel DISTINCT returned them (a seeded release of a large
    // file with no repeated record did not reproduce).
    const n = 300_000;
    const lines = ['age,city,note,wide'];
    for (let i = 0; i < n; i++) {
      const w = i % 29 === 0 ? '?' : ` ${(i * 7919) % n}.5`;
      lines.push(`${18 + (i % 70)},${i % 3 === 0 ? 'Oslo' : 'Bergen'},${i % 2 ? 'yes' : 'no'},${w}`);
    }
    const file = dir.file('wide-flush.csv', `${lines.join('\n')}\n`);
    const big: Schema = {
      ...SCHEMA,
      columns: [...SCHEMA.columns, { ...wide, edges: [0, 1000, 100_000, 200_000, 300_000] }],
    };
    const flushSets = [[3], [1, 3], [0, 3]];
    const uncoded = await countFileTables(file, big, flushSets, opts);
    // Brute force: the wide column's bins (missing, then the four bins' records).
    const bins = [0, 0, 0, 0];
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (i % 29 === 0) missing++;
      else {
        const x = ((i * 7919) % n) + 0.5;
        bins[x < 1000 ? 0 : x < 100_000 ? 1 : x < 200_000 ? 2 : 3]++;
      }
    }
    expect([...uncoded.tables[0]].sort((a, b) => a - b)).toEqual([missing, ...bins].sort((a, b) => a - b));
    const table = await loadSourceTable(file, names);
    try {
      const texts = new Map([...names.map((m): [string, number] => [m, 10]), ['wide', n]]);
      for (let run = 0; run < 2; run++) {
        expect(await table.tables(big, flushSets, { ...opts, texts })).toEqual(uncoded);
      }
    } finally {
      await table.dispose();
    }
  });

  it('a text with no code is refused naming the column, as the file count refuses it', async () => {
    const file = dir.file('wide-bad.csv', `${withWide(6000, 1).trimEnd()}\n 30,Oslo,yes,not a number\n`);
    const table = await loadSourceTable(file, names);
    try {
      await expect(table.tables(schema, [[3]], opts)).rejects.toThrow(/wide|not a number/);
      await expect(countFileTables(file, schema, [[3]], opts)).rejects.toThrow(/wide|not a number/);
    } finally {
      await table.dispose();
    }
  });
});

describe('a file without a double quote skips the dialect scan (file-facts.ts says so)', () => {
  it('the same counts as with the scan', async () => {
    const file = dir.file(
      'unquoted.csv',
      rows(400).replaceAll('"Trondheim, N"', 'Trondheim').replaceAll('""', ''),
    );
    const names = ['age', 'city', 'note'];
    expect((await fingerprintAndCountRows(file, names)).quotes).toBe(false);
    const [scanned, skipped] = [
      await loadSourceTable(file, names),
      await loadSourceTable(file, names, { quotes: false }),
    ];
    try {
      expect(await skipped.histograms(names)).toEqual(await scanned.histograms(names));
    } finally {
      await scanned.dispose();
      await skipped.dispose();
    }
  });
});

describe('the strict load refuses what the streaming reader reads otherwise (it then streams)', () => {
  it.each([
    ['a longer row', `${rows(50)}40,Oslo,yes,extra\n`],
    ['a shorter row', `${rows(50)}40,Oslo\n`],
    ['a quote left open', `${rows(50)}40,"Oslo,yes\n`],
  ])('%s', async (_, text) => {
    const file = dir.file(`refused-${text.length}.csv`, text);
    await expect(loadSourceTable(file, ['age', 'city', 'note'])).rejects.toThrow();
  });

  it('not UTF-8', async () => {
    const file = dir.file(
      'latin1.csv',
      Buffer.concat([Buffer.from(rows(20)), Buffer.from([0x34, 0x30, 0x2c, 0xe6, 0x2c, 0x6e, 0x6f, 0x0a])]),
    );
    await expect(loadSourceTable(file, ['age', 'city', 'note'])).rejects.toThrow();
  });

  it('blank lines and CRLF line ends: the rows the record count counts', async () => {
    const text = rows(40).replaceAll('\n', '\r\n').replace('\r\n', '\r\n\r\n') + '\r\n';
    const file = dir.file('crlf.csv', text);
    const table = await loadSourceTable(file, ['age', 'city', 'note']);
    try {
      expect((await table.histograms(['age'])).n).toBe(
        (await fingerprintAndCountRows(file, ['age', 'city', 'note'])).rows,
      );
    } finally {
      await table.dispose();
    }
  });
});

describe('the table file and its private folder are gone on every way out', () => {
  it('after dispose (twice is fine); the private folder (0700) was there until then', async () => {
    const at = parent('ok');
    const file = dir.file('ok.csv', rows(500));
    const table = await loadSourceTable(file, ['age', 'city', 'note'], { duckdb: { tempParent: at } });
    expect(readdirSync(at)).toEqual([basename(table.folder)]);
    expect(statSync(table.folder).mode & 0o777).toBe(0o700);
    await table.dispose();
    await table.dispose();
    expect(existsSync(table.folder)).toBe(false);
    expect(readdirSync(at)).toEqual([]);
  });

  it('when DuckDB cannot read the file as declared (a short row), or reads it otherwise', async () => {
    const at = parent('error');
    const short = dir.file('short.csv', `${rows(300)}40,x\n`);
    await expect(
      loadSourceTable(short, ['age', 'city', 'note'], { duckdb: { tempParent: at } }),
    ).rejects.toThrow();
    expect(readdirSync(at)).toEqual([]);
    const spaced = dir.file('spaced.csv', `${rows(30)}40, "Oslo, N",yes\n`);
    await expect(
      loadSourceTable(spaced, ['age', 'city', 'note'], { duckdb: { tempParent: at } }),
    ).rejects.toBeInstanceOf(NotForDuckDb);
    expect(readdirSync(at)).toEqual([]);
  });

  it('on cancel while the file is parsed', async () => {
    const at = parent('cancel');
    const file = dir.file('big.csv', rows(400_000));
    const ac = new AbortController();
    const loading = loadSourceTable(file, ['age', 'city', 'note'], {
      duckdb: { tempParent: at },
      signal: ac.signal,
    });
    // Cancel once DuckDB's private folder exists (the parse is under way).
    while (readdirSync(at).length === 0) await new Promise((r) => setTimeout(r, 1));
    ac.abort();
    await expect(loading).rejects.toThrow();
    expect(readdirSync(at)).toEqual([]);
  }, 60_000);
});
