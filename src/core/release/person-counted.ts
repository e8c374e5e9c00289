/**
 * The person level's private read counted by DuckDB, after the reservation (docs/privacy.md, "The
 * unit of privacy"): the same mechanisms, in the same order, on the same noise streams as the
 * streaming path (person.ts's boundSource, then discovery and the encoder over the bounded file),
 * on counts instead of rows (counting/person-table.ts):
 * 1. k chosen privately where asked, from the persons' record counts (chooseBound's histogram);
 * 2. the heavy persons' k-subsets drawn (privacy/contribution.ts's sampleRanks, the streaming
 *    path's own draws) and the kept records bounded in SQL;
 * 3. n̂ measured from the kept count;
 * 4. discovery from the bounded records' row histograms and distinct-person counts
 *    (discovery/person-histograms.ts), then the engine's exact tables from the bounded records.
 * So the same seed gives the same k, the same kept records, the same schema and tables, and the
 * same released file (test/unit/release/person-counted.test.ts).
 */
import type { BoundedTable, PersonTable } from '../counting/person-table.ts';
import { tableKey, uniqueTableFeatures } from '../data/counted.ts';
import { withOtherCategory } from '../data/encode.ts';
import { tableFormat } from '../data/formats/format.ts';
import type { Schema } from '../data/schema.ts';
import { readTableHeader } from '../data/table.ts';
import type { DiscoveredSchema } from '../discovery/discover.ts';
import { discoverFromPersonCounts } from '../discovery/person-histograms.ts';
import type { RawSourcePlan } from '../discovery/raw-source.ts';
import {
  BOUND_GRID,
  chooseBoundFromHistogram,
  estimateRows,
  gridBucket,
  keptRanks,
  sampleRanks,
} from '../privacy/contribution.ts';
import type { NoiseSource } from '../privacy/noise.ts';
import { type CountedLoad, RELEASE_OUT_OF_DOMAIN } from './counted-source.ts';
import type { PersonOutcome, UnitBudget, UnitSpec } from './person.ts';

export interface PersonCounted {
  readonly person: PersonOutcome;
  readonly discovery: DiscoveredSchema;
  readonly counted: CountedLoad;
}

/** Bounds the table's persons to k records (k, its draws and n̂ as boundSource draws them). */
export async function boundOnTable(
  table: Pick<PersonTable, 'contributions' | 'heavy' | 'bound'>,
  unit: UnitSpec,
  budget: UnitBudget,
  noise: NoiseSource,
  signal?: AbortSignal,
): Promise<{ readonly outcome: PersonOutcome; readonly bounded: BoundedTable }> {
  let chosen: PersonOutcome['chosen'] = null;
  if (unit.bound === 'private') {
    // boundHistogram's counts: persons per grid bucket of their record count.
    const histogram = new Float64Array(BOUND_GRID.length + 1);
    for (const [rows, persons] of await table.contributions(signal)) histogram[gridBucket(rows)] += persons;
    chosen = chooseBoundFromHistogram(histogram, budget.rhoBound, noise);
  }
  const k = chosen ? chosen.k : (unit.bound as number);
  const heavy = await table.heavy(k, signal);
  // The streaming path's draws, person by person in order of first appearance.
  const kept = Array.from(heavy.rows, (r) => keptRanks(r, sampleRanks(r, k, noise)));
  const bounded = await table.bound(k, heavy, kept, signal);
  const rows = estimateRows(bounded.n, k, budget.rhoCount, noise);
  return { outcome: { column: unit.column, bound: k, chosen, rows }, bounded };
}

/**
 * AFTER the reservation, at the person level: bounding, discovery and the exact tables
 * `featureSets` names, all counted by DuckDB from `table` (loaded before the reservation).
 */
export async function readPersonLevelSource(
  table: PersonTable,
  plan: RawSourcePlan,
  unit: UnitSpec,
  budget: UnitBudget,
  noises: { readonly person: NoiseSource; readonly discovery: NoiseSource },
  featureSets: (schema: Schema) => readonly (readonly number[])[],
  opts: { readonly header?: boolean; readonly signal?: AbortSignal } = {},
): Promise<PersonCounted> {
  // The table's columns as the streaming path's bounded file has them (the unit column among them).
  const { header } = await readTableHeader(plan.path, {
    ...(opts.header === undefined ? {} : { header: opts.header }),
    ...(plan.choice ? { choice: plan.choice } : {}),
  });
  return countPersonLevel(table, plan, unit, budget, noises, featureSets, {
    header,
    trim: tableFormat(plan.path) === 'csv',
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

/**
 * readPersonLevelSource's steps on any table that bounds and counts (DuckDB's, or PostgreSQL's:
 * counting/postgres-person.ts): `header` the source's columns (the unit column among them),
 * `trim` whether its reader trims texts (a CSV's does, a database's does not).
 */
export async function countPersonLevel(
  table: Pick<PersonTable, 'contributions' | 'heavy' | 'bound'>,
  plan: RawSourcePlan,
  unit: UnitSpec,
  budget: UnitBudget,
  noises: { readonly person: NoiseSource; readonly discovery: NoiseSource },
  featureSets: (schema: Schema) => readonly (readonly number[])[],
  opts: { readonly header: readonly string[]; readonly trim: boolean; readonly signal?: AbortSignal },
): Promise<PersonCounted> {
  const { signal, header, trim } = opts;
  const { outcome, bounded } = await boundOnTable(table, unit, budget, noises.person, signal);
  const discovery = await discoverFromPersonCounts(
    plan.path,
    header,
    {
      rows: (names) => bounded.histograms(names, signal),
      persons: (labels) => bounded.persons(labels, signal),
    },
    {
      rho: plan.budget.rhoDiscovery > 0 ? plan.budget.rhoDiscovery : 1,
      delta: plan.budget.deltaDiscovery > 0 ? plan.budget.deltaDiscovery : 0.5,
      noise: noises.discovery,
      declared: plan.declared,
      trim,
      unit: { column: unit.column, bound: outcome.bound, rows: outcome.rows.rows },
      ...(plan.hierarchies ? { hierarchies: plan.hierarchies } : {}),
      ...(plan.formats ? { formats: plan.formats } : {}),
    },
  );
  const { histograms: undeclared, ...found } = discovery;
  // The encoder's schema (loadDiscovered's rule): "(other)" where a discovered column takes it.
  const schema = withOtherCategory(found.schema, RELEASE_OUT_OF_DOMAIN);
  const sets = uniqueTableFeatures(featureSets(schema));
  const counted = await bounded.tables(schema, sets, {
    outOfDomain: RELEASE_OUT_OF_DOMAIN,
    trim,
    ...(signal ? { signal } : {}),
  });
  if (counted.n !== bounded.n) throw new Error(`internal: ${bounded.n} records kept, ${counted.n} counted`);
  // The curator's private report reads every released column's histogram (report/fidelity.ts).
  const declaredNames = plan.declared.map((c) => c.name);
  const histograms =
    declaredNames.length === 0
      ? undeclared
      : await (async () => {
          const more = await bounded.histograms(declaredNames, signal);
          return { n: undeclared.n, columns: new Map([...undeclared.columns, ...more.columns]) };
        })();
  return {
    person: outcome,
    discovery: found,
    counted: {
      kind: 'counted',
      dataset: {
        kind: 'counted',
        schema,
        n: bounded.n,
        tables: new Map(sets.map((fs, i) => [tableKey(fs), counted.tables[i]])),
      },
      // The streaming path's bounded file has a header row: the output is written with one.
      summary: { hasHeader: true },
      header: plan.header,
      histograms,
      trimmed: trim,
    },
  };
}
