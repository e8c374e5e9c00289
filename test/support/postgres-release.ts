/**
 * What the PostgreSQL release tests share (test/unit/release/postgres-release.test.ts for a table,
 * postgres-query-release.test.ts for a query): the test table's rows, the quick seeded `synth`
 * arguments, a table made before a describe's tests and dropped after, and the check that
 * `ledger set-cap --dataset postgres://…` caps what a release then spends.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { parsePostgresSource, withPostgres } from '../../src/core/counting/postgres.ts';
import { withLedger } from './cli.ts';
import type { InProcessResult } from './cli-in-process.ts';

/** How many rows the test table holds. */
export const N = 240;

/** The test table's rows: age (integer), city (text), income (integer, some NULL), smoker (text). */
export function rows(): (string | number | null)[][] {
  return Array.from({ length: N }, (_, i) => [
    18 + ((i * 7) % 60),
    ['Oslo', 'Lima', 'Pune'][i % 3],
    i % 17 === 0 ? null : (i * 9173) % 90_000,
    i % 4 === 0 ? 'daily' : 'never',
  ]);
}

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

/** A small, quick, seeded (insecure) synth run from `data` with workload w.json, a budget of ε = 10 confirmed. */
export const synth = (data: string, ledger: string, out: string, extra: string[] = [], epsilon = '2') => [
  'synth',
  ...['--data', data, '--workload', 'w.json', '--epsilon', epsilon, '--rows', '30', '--oversample', '2'],
  ...['--max-steps', '20', '--threads', '1', '--out', out, '--ledger', ledger],
  ...['--seed', '5', '--insecure-seed', '--budget-epsilon', '10', '--budget-delta', '1e-5', '--confirm-cap'],
  ...extra,
];

/** The synth arguments without the budget they would set (--budget-epsilon, --budget-delta, --confirm-cap). */
export const withoutBudget = (args: string[]): string[] =>
  args.filter(
    (a, i, all) =>
      !['--budget-epsilon', '--budget-delta', '--confirm-cap'].includes(a) &&
      !['--budget-epsilon', '--budget-delta'].includes(all[i - 1]),
  );

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
