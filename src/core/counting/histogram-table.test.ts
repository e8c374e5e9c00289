import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import type { HistogramSink } from '../data/histograms.ts';
import { tempDir } from '../data/testing.ts';
import type { Relation } from '../sql/counting.ts';
import { withDuckDb } from '../sql/duckdb.ts';
import { storedHistograms } from './histogram-table.ts';
import { collectHistograms, streamHistograms, textSample } from './histograms.ts';
import { loadSourceTable } from './source-table.ts';

const dir = tempDir('rap-histogram-table-');
afterAll(() => dir.remove());

/** A table with NULLs, empty texts, spaces and a wide column (`w`: about 2,000 distinct texts). */
async function makeTable(c: DuckDBConnection, rows: number, weighted = false): Promise<Relation> {
  await c.run(
    'CREATE TABLE t AS SELECT ' +
      "CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN '' ELSE ' ' || (i % 5) || ' ' END AS a, " +
      "CASE WHEN i % 3 = 0 THEN 'x' ELSE 'y, z' END AS b, " +
      "CASE WHEN i % 13 = 0 THEN NULL ELSE CAST((i * 7919) % 2003 AS VARCHAR) || '.5' END AS w" +
      (weighted ? ', 1 + i % 4 AS k' : '') +
      ` FROM range(${rows}) AS r(i)`,
  );
  return weighted ? { kind: 'table', table: 't', weight: 'k' } : { kind: 'table', table: 't' };
}

/** Collected histograms of `columns` from a stream (a name twice gets its texts twice). */
const collect = (columns: string[], stream: (sink: HistogramSink) => Promise<number>) =>
  collectHistograms(columns, stream);

describe('stored histograms: each column grouped once, read as its grouping reads', () => {
  it.each([
    ['records', false],
    ['distinct records with counts', true],
  ])('%s: every read equals a fresh grouping of the table', async (_, weighted) => {
    await withDuckDb(async (c) => {
      const rel = await makeTable(c, 5000, weighted);
      const fresh = (columns: string[]) =>
        collect(columns, (sink) => streamHistograms(c, rel, columns, (x) => x, sink));
      const stored = storedHistograms(rel);
      const read = (columns: string[]) => collect(columns, (sink) => stored.stream(c, columns, sink));
      // No column first (the row count only), then some, then more, in another order, one twice.
      for (const columns of [[], ['a'], ['w', 'a'], ['b', 'w', 'a', 'b'], ['w']]) {
        expect(await read(columns)).toEqual(await fresh(columns));
      }
    });
  });

  it('a stored column is not grouped again: a later change to the table is seen only in columns not stored yet', async () => {
    await withDuckDb(async (c) => {
      const rel = await makeTable(c, 3000);
      const stored = storedHistograms(rel);
      const read = (columns: string[]) => collect(columns, (sink) => stored.stream(c, columns, sink));
      const before = await read(['a']);
      await c.run("UPDATE t SET a = 'changed', b = 'changed'");
      expect(await read(['a'])).toEqual(before);
      const later = await read(['a', 'b']);
      expect(later.columns.get('a')).toEqual(before.columns.get('a'));
      expect(later.columns.get('b')).toEqual(new Map([['changed', 3000]]));
      expect(later.n).toBe(3000);
    });
  });

  it('the report sample and the distinct texts equal those of the table grouped afresh', async () => {
    await withDuckDb(async (c) => {
      const rel = await makeTable(c, 4000, true);
      const stored = storedHistograms(rel);
      for (const column of ['w', 'a', 'b']) {
        for (const stride of [1, 3, 17, 100_000]) {
          expect(await stored.textSample(c, column, stride)).toEqual(
            await textSample(c, rel, column, stride),
          );
        }
        const texts = (await c.runAndReadAll(await stored.distinctTexts(c, column)))
          .getRows()
          .map((r) => r[0]);
        const fresh = (await c.runAndReadAll(`SELECT DISTINCT COALESCE(${column}, '') FROM t`))
          .getRows()
          .map((r) => r[0]);
        expect([...texts].sort()).toEqual([...fresh].sort());
      }
    });
  });

  it('an empty table: the row count 0 and no texts', async () => {
    await withDuckDb(async (c) => {
      const rel = await makeTable(c, 0);
      const stored = storedHistograms(rel);
      const h = await collect(['a', 'w'], (sink) => stored.stream(c, ['a', 'w'], sink));
      expect(h.n).toBe(0);
      expect([...h.columns.values()].every((m) => m.size === 0)).toBe(true);
    });
  });
});

describe('a loaded CSV reads its stored histograms: the same histograms, sample and tables', () => {
  it('the stream, the histograms and the sample of a wide column, read twice', async () => {
    const lines = ['id,city,x'];
    for (let i = 0; i < 6000; i++)
      lines.push(`${i % 9 === 0 ? '' : ` ${i * 3} `},${i % 4 === 0 ? '"Oslo, N"' : 'Bergen'},${i % 5}`);
    const file = dir.file('wide.csv', `${lines.join('\n')}\n`);
    const names = ['id', 'city', 'x'];
    const table = await loadSourceTable(file, names);
    try {
      const first = await table.histograms(names);
      expect(first.n).toBe(6000);
      expect(first.columns.get('id')?.size).toBe(6000 - 667 + 1);
      expect(first.columns.get('id')?.get('')).toBe(667);
      const streamed = await collect(names, (sink) => table.stream!(names, sink));
      expect(streamed).toEqual(first);
      const sample = await table.textSample!('id', 7);
      expect(await table.textSample!('id', 7)).toEqual(sample);
      expect(sample).toHaveLength(Math.ceil(6000 / 7));
    } finally {
      await table.dispose();
    }
  });
});
