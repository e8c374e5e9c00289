/**
 * The person level for a database source (a PostgreSQL table or read-only query), AFTER the
 * reservation: the same mechanisms, in the same order, on the same noise streams as a file's
 * person level counted by DuckDB (person-counted.ts countPersonLevel): k chosen privately where
 * asked, the heavy persons' k-subsets drawn in JS (privacy/contribution.ts), n̂ measured, discovery
 * from the bounded records' row histograms and distinct-person counts, then the engine's exact
 * tables, every count made inside the database (counting/postgres-person.ts) on one connection in
 * one snapshot. No row leaves the database, and nothing is written in it.
 *
 * So a table holding a CSV's rows in the CSV's order gives the same release as the CSV for the
 * same seed (test/unit/release/postgres-person-release.test.ts).
 */

import { type PostgresSource, tableColumns, tableRows, withPostgres } from '../counting/postgres.ts';
import { postgresPersonTable } from '../counting/postgres-person.ts';
import type { Schema } from '../data/schema.ts';
import type { RawSourcePlan } from '../discovery/raw-source.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { tableChanged } from './database.ts';
import type { UnitBudget, UnitSpec } from './person.ts';
import { countPersonLevel, type PersonCounted } from './person-counted.ts';

/**
 * Bounding, discovery and the exact tables `featureSets` names, counted in the database. `header`:
 * the source's columns the release reads (the unit column among them; release/database.ts's
 * databaseFacts), `n` the row count the ledger holds (a source whose count differs changed).
 */
export async function readPersonLevelDatabase(
  src: PostgresSource,
  plan: RawSourcePlan,
  n: number,
  unit: UnitSpec,
  budget: UnitBudget,
  noises: { readonly person: NoiseSource; readonly discovery: NoiseSource },
  featureSets: (schema: Schema) => readonly (readonly number[])[],
  signal?: AbortSignal,
): Promise<PersonCounted> {
  return withPostgres(
    src,
    async (client) => {
      const rows = await tableRows(client, src);
      if (rows !== n) throw tableChanged(src, n, rows);
      // The columns read, in the source's order, the unit column among them (as a file's header).
      const read = new Set([...plan.header, unit.column]);
      const header = (await tableColumns(client, src)).filter((c) => read.has(c));
      const table = await postgresPersonTable(client, src, plan.header, unit.column);
      // A database's texts are read as they are (no trimming), as at the row level.
      return countPersonLevel(table, plan, unit, budget, noises, featureSets, {
        header,
        trim: false,
        ...(signal ? { signal } : {}),
      });
    },
    signal,
    // Every count in one snapshot: the persons' numbers and ranks name the same records throughout.
    { snapshot: true },
  );
}
