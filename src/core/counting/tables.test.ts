import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCsv } from '../data/load.ts';
import type { Schema } from '../data/schema.ts';
import { tempDir } from '../data/testing.ts';
import { groupingSetsQuery } from '../sql/counting.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import { contingencyTable } from '../workload/exact.ts';
import { countFileTables, fileRelation, tablesFromGroups } from './tables.ts';

const dir = tempDir('rap-sql-');
afterAll(() => dir.remove());

const SETS: readonly (readonly number[])[] = [[0], [1], [2], [0, 1], [1, 2], [0, 1, 2], [2, 0]];

/** The streaming path's tables (loadCsv → contingencyTable) beside DuckDB's, for one file. */
async function both(file: string, schema?: Schema, sets = SETS) {
  const loaded = await loadCsv(file, schema ? { schema, outOfDomain: 'other' } : {});
  const streamed = sets.map((fs) => Array.from(contingencyTable(loaded.dataset, fs)));
  const counted = await countFileTables(
    file,
    loaded.dataset.schema,
    sets,
    schema ? { outOfDomain: 'other' } : {},
  );
  return {
    n: loaded.dataset.n,
    streamed,
    counted: { n: counted.n, tables: counted.tables.map((t) => Array.from(t)) },
  };
}

/** A Parquet copy of a CSV with typed columns (DuckDB's own reader), as an analyst would have. */
async function parquetCopy(csv: string, name: string): Promise<string> {
  const out = join(dir.path, name);
  await withDuckDb(async (c) => {
    await c.run(`COPY (SELECT * FROM read_csv('${csv}', header = true)) TO '${out}' (FORMAT parquet)`);
  });
  return out;
}

describe('DuckDB counting (GROUPING SETS) = the streaming path, table by table', () => {
  it('a messy CSV: BOM, CRLF, spaces, quoted delimiters and line breaks, a blank line, every missing marker', async () => {
    const file = dir.file(
      'messy.csv',
      '\uFEFFage, city ,score\r\n 39 ,"New York, NY",1.5\r\n50,?,2.25\r\n\r\n41,"",NA\r\n39,Paris, 7\r\n' +
        '?,"Paris",\r\n28,"x""y" ,3\r\n"a\r\nb",1,2\r\n',
    );
    const { n, streamed, counted } = await both(file);
    expect(counted.n).toBe(n);
    expect(counted.tables).toEqual(streamed);
  });

  it('a semicolon file without a header, against a declared schema with (other)', async () => {
    const file = dir.file('semi.csv', 'a;1;x\nb;2;y\nc;3;x\na;;z\nb;4;x\n');
    const schema: Schema = {
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'column_1', kind: 'categorical', categories: ['a', 'b'], missing: false },
        { name: 'column_2', kind: 'numeric', edges: [0, 2, 5], integer: true, missing: true },
        { name: 'column_3', kind: 'categorical', categories: ['x', 'y'], missing: false },
      ],
    };
    const { n, streamed, counted } = await both(file, schema);
    expect(counted.n).toBe(n);
    expect(counted.tables).toEqual(streamed);
  });

  it('random small tables (property, against the streaming path as brute force)', async () => {
    const cell = fc.constantFrom('a', ' b', 'c ', '"d,e"', '?', '', 'NA', '1', ' 2.5', '-3', '"f""g"');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 40 }),
        async (rows) => {
          const text = `x,y,z\n${rows.map((r) => r.join(',')).join('\n')}\n`;
          const file = dir.file('random.csv', text);
          const loaded = await loadCsv(file, { outOfDomain: 'other' }).catch(() => undefined);
          if (!loaded) return; // no usable rows: nothing to compare
          const streamed = SETS.map((fs) => Array.from(contingencyTable(loaded.dataset, fs)));
          const counted = await countFileTables(file, loaded.dataset.schema, SETS);
          expect(counted.n).toBe(loaded.dataset.n);
          expect(counted.tables.map((t) => Array.from(t))).toEqual(streamed);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a Parquet copy gives the same tables as its CSV', async () => {
    const csv = dir.file(
      'typed.csv',
      'age,city,score\n39,Paris,1.5\n50,Rome,2.25\n41,Paris,\n39,Oslo,7\n28,Rome,3\n',
    );
    const parquet = await parquetCopy(csv, 'typed.parquet');
    const { n, streamed } = await both(csv);
    const schema = (await loadCsv(csv)).dataset.schema;
    const fromParquet = await countFileTables(parquet, schema, SETS);
    expect(fromParquet.n).toBe(n);
    expect(fromParquet.tables.map((t) => Array.from(t))).toEqual(streamed);
  });

  it('the grouped rows in any order (a parallel GROUP BY returns another each run): the same tables', async () => {
    const lines = ['age,city,score'];
    for (let i = 0; i < 500; i++) {
      lines.push(
        `${i % 13 === 0 ? '?' : 18 + ((i * 37) % 70)},${['Oslo', 'Bergen', ' Paris'][i % 3]},${(i * 7) % 41}.5`,
      );
    }
    const file = dir.file('order.csv', `${lines.join('\n')}\n`);
    const schema = (await loadCsv(file)).dataset.schema;
    const names = schema.columns.map((c) => c.name);
    const { relation, source } = await fileRelation(file, names, { header: true });
    const col = (f: number) => source(names[f]);
    const query = groupingSetsQuery(relation, [...SETS.map((fs) => fs.map(col)), []], 'duckdb');
    const rows = await withDuckDb(async (c) => (await c.runAndReadAll(query.sql)).getRows());
    const expected = tablesFromGroups(schema, SETS, col, query, { rows });
    expect(expected).toEqual(await countFileTables(file, schema, SETS));
    expect(expected.n).toBe(500);
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: rows.length, maxLength: rows.length }), (keys) => {
        const shuffled = rows.map((r, i) => [keys[i], r] as const).sort((a, b) => a[0] - b[0]);
        expect(tablesFromGroups(schema, SETS, col, query, { rows: shuffled.map(([, r]) => r) })).toEqual(
          expected,
        );
      }),
      { numRuns: 20 },
    );
  });

  it.each([
    ['a ragged row', 'a,b,c\n1,2,3\n4,5,6,7\n8,9,1\n'],
    ['a line of spaces', 'a,b,c\n1,2,3\n   \n8,9,1\n'],
    ['a quote after a space', 'a,b,c\n1,2,3\n4, "5,6",7\n8,9,1\n'],
    ['LF and CRLF mixed', 'a,b,c\r\n1,2,3\n4,5,6\r\n8,9,1\n'],
  ])('%s: DuckDB refuses the file (the streaming path, which reads it, is the fallback)', async (_what, text) => {
    const file = dir.file('fallback.csv', text);
    const schema = (await loadCsv(file, { raggedAsMissing: true })).dataset.schema;
    await expect(countFileTables(file, schema, SETS)).rejects.toThrow();
  });
});

describe('the private spill folder', () => {
  it('is 0700 while DuckDB runs and gone after, on success and on error', async () => {
    let seen = '';
    await withDuckDb(async (_c, spill) => {
      seen = spill;
      expect(statSync(spill).mode & 0o777).toBe(0o700);
    });
    expect(existsSync(seen)).toBe(false);
    await expect(
      withDuckDb(async (c, spill) => {
        seen = spill;
        await c.run('SELECT * FROM no_such_table');
      }),
    ).rejects.toThrow();
    expect(existsSync(seen)).toBe(false);
    expect(readdirSync(dir.path).some((f) => f.startsWith('rap-duckdb-'))).toBe(false);
  });

  it('the configuration is locked: a query cannot move the spill folder or turn logging on', async () => {
    await withDuckDb(async (c) => {
      await expect(c.run("SET temp_directory = '/tmp/elsewhere'")).rejects.toThrow();
      await expect(c.run('SET enable_logging = true')).rejects.toThrow();
    });
  });
});

describe('the counting SQL', () => {
  it('one GROUPING SETS query per stage, sets deduplicated, no private value in the text', () => {
    const q = groupingSetsQuery(
      { kind: 'table', table: 'visits' },
      [['a', 'b'], ['b', 'a'], ['c'], []],
      'postgres',
    );
    expect(q.columns).toEqual(['a', 'b', 'c']);
    expect(q.sets).toEqual([[0, 1], [2], []]);
    expect(q.sql).toBe(
      'SELECT "v0", "v1", "v2", GROUPING("v0") AS "g0", GROUPING("v1") AS "g1", GROUPING("v2") AS "g2", ' +
        'COUNT(*) AS "n" FROM (SELECT COALESCE(CAST("a" AS TEXT), \'\') AS "v0", ' +
        'COALESCE(CAST("b" AS TEXT), \'\') AS "v1", COALESCE(CAST("c" AS TEXT), \'\') AS "v2" FROM "visits") AS src ' +
        'GROUP BY GROUPING SETS (("v0", "v1"), ("v2"), ())',
    );
  });

  it('the Spark SQL in docs/scale-out.md comes from this module', () => {
    const q = groupingSetsQuery(
      { kind: 'table', schema: 'warehouse', table: 'adult' },
      [['age', 'sex', 'income'], ['age'], ['sex'], ['income'], []],
      'spark',
    );
    expect(q.sql).toContain('FROM `warehouse`.`adult`');
    expect(q.sql).toContain("COALESCE(CAST(`age` AS STRING), '') AS `v0`");
    expect(q.sql).toMatch(
      /GROUP BY GROUPING SETS \(\(`v0`, `v1`, `v2`\), \(`v0`\), \(`v1`\), \(`v2`\), \(\)\)$/,
    );
  });
});
