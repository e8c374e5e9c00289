/**
 * DuckDB globs the paths it reads: a file whose name holds `[`, `*` or `?` must be read as itself,
 * never as a pattern matching another file beside it (the ledger fingerprints the named file).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLiteral, relationSql } from './counting.ts';
import { withDuckDb } from './duckdb.ts';

const dir = mkdtempSync(join(tmpdir(), 'rap-file-literal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each named file holds one record naming itself; a decoy beside it that its name as a pattern matches. */
const CASES: readonly [string, string][] = [
  ['a[1].csv', 'a1.csv'],
  ['q*.csv', 'qq.csv'],
  ['x?.csv', 'xy.csv'],
  ['d[x]/b.csv', 'dx/b.csv'],
  ['e[]].csv', 'e].csv'],
  ["it's [it].csv", "it's i.csv"],
];

describe('fileLiteral: a path DuckDB reads as exactly that file', () => {
  for (const [name, decoy] of CASES) {
    for (const f of [name, decoy]) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), `who\n${f}\n`);
    }
  }

  it.each(CASES)('%s is read, not %s', async (name) => {
    const path = join(dir, name);
    const rel = { kind: 'csv', path, delimiter: ',', header: true, width: 1 } as const;
    const rows = await withDuckDb(async (c) =>
      (await c.runAndReadAll(`SELECT c0 FROM ${relationSql(rel, 'duckdb')}`)).getRows(),
    );
    expect(rows).toEqual([[name]]);
  });

  it('a Parquet file too', async () => {
    const path = join(dir, 'p[1].parquet');
    await withDuckDb(async (c) => {
      await c.run(`COPY (SELECT 'named' AS who) TO '${path.replaceAll("'", "''")}' (FORMAT parquet)`);
      await c.run(`COPY (SELECT 'decoy' AS who) TO '${join(dir, 'p1.parquet')}' (FORMAT parquet)`);
      const rows = (
        await c.runAndReadAll(`SELECT who FROM ${relationSql({ kind: 'parquet', path }, 'duckdb')}`)
      ).getRows();
      expect(rows).toEqual([['named']]);
    });
  });

  it('a path without glob characters is unchanged', () => {
    expect(fileLiteral('/data/adult.csv')).toBe("'/data/adult.csv'");
    expect(fileLiteral('/d/a[1]*?.csv')).toBe("'/d/a[[]1][*][?].csv'");
  });
});
