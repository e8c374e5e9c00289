/**
 * What the PostgreSQL release tests share (test/unit/release/postgres-release.test.ts for a table,
 * postgres-query-release.test.ts for a query): the test table's rows (the people table, people.ts),
 * a table made before a describe's tests and dropped after, and the check that
 * `ledger set-cap --dataset postgres://…` caps what a release then spends.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../src/core/counting/postgres.ts';
import { withLedger } from './cli.ts';
import type { InProcessResult } from './cli-in-process.ts';
import { peopleRows, withoutBudget } from './people.ts';

/** How many rows the test table holds. */
export const N = 240;

/** The test table's rows: age (integer), city (text), income (integer, some NULL), smoker (text). */
export const rows = () => peopleRows(N);

/**
 * Creates `table` in the database `pg` names (holding rows(); with `sequence`, also a sequence
 * `<table>_seq`, for a query that tries to write) before the describe's tests, and drops both after.
 * The URL is parsed in the hooks: a skipped describe (no RAP_TEST_POSTGRES) still runs its body.
 */
export function useTestTable(pg: () => string, table: string, { sequence = false } = {}): void {
  const source = () => parsePostgresSource(`${pg()}?table=${table}`);
  beforeAll(async () => {
    await withPostgres(source(), async (c) => {
      await c.query(`CREATE TABLE ${table} (age integer, city text, income integer, smoker text)`);
      if (sequence) await c.query(`CREATE SEQUENCE ${table}_seq`);
      for (const r of rows()) await c.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4)`, r);
    });
  });
  afterAll(async () => {
    await withPostgres(source(), async (c) => {
      await c.query(`DROP TABLE IF EXISTS ${table}`);
      if (sequence) await c.query(`DROP SEQUENCE IF EXISTS ${table}_seq`);
    });
  });
}

/**
 * `ledger set-cap --dataset <dataset> --epsilon 3` succeeds, printing `listed` (the dataset's name);
 * then `synthArgs` (run without a budget of its own) is released against that cap: one dataset in
 * the ledger, capped at ε = 3, and the release charged to it.
 */
export async function expectSetCapThenSpent(
  run: (args: string[]) => Promise<InProcessResult>,
  {
    dataset,
    ledger,
    listed,
    synthArgs,
  }: { dataset: string; ledger: string; listed: string; synthArgs: string[] },
): Promise<void> {
  const cap = await run([
    'ledger',
    'set-cap',
    '--dataset',
    dataset,
    '--epsilon',
    '3',
    '--delta',
    '1e-5',
    '--ledger',
    ledger,
  ]);
  expect(cap.stderr).toBe('');
  expect(cap.code).toBe(0);
  expect(cap.stdout).toContain(listed);
  const r = await run(withoutBudget(synthArgs));
  expect(r.stderr).not.toContain('rap-studio:');
  expect(r.code).toBe(0);
  withLedger(ledger, (l) => {
    expect(l.datasets()).toHaveLength(1);
    const [d] = l.datasets();
    expect(d.cap?.epsilon).toBe(3);
    expect(l.releases()[0].datasetFingerprint).toBe(d.fingerprint);
  });
}
