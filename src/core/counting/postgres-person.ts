/**
 * The person level counted inside PostgreSQL (release/database-person.ts): the same steps as
 * counting/person-table.ts's DuckDB table, as queries sql/counting.ts writes, so the rows never
 * leave the database and nothing is written in it (no table, not even a temporary one):
 * - `contributions`: how many persons hold each record count (k chosen privately reads it);
 * - `heavy(k)`: the persons with more than k records, as ordinals in order of first appearance,
 *   with their counts (no identifier comes back);
 * - `bound(k, heavy, kept)`: the heavy persons' kept ranks, drawn in JS by privacy/contribution.ts
 *   (sampleRanks, the same draws in the same order as the file paths), go to the server as two
 *   integer arrays (parameters, never SQL text); every later count reads the bounded records.
 * Each query re-derives the persons' numbers and ranks, so the caller runs them all on one
 * connection in ONE REPEATABLE READ transaction: one snapshot, the same records named by every
 * number (postgres.ts withPostgres's `snapshot`).
 *
 * The order (sql/counting.ts PersonRecords): a plain table's heap order (a table loaded in a
 * file's order bounds exactly as that file does), the records' texts for a view or a query.
 *
 * Counts here are exact statistics of the private data: never logged, never released.
 */
import type { Client } from 'pg';
import type { ColumnHistograms } from '../data/histograms.ts';
import type { Schema } from '../data/schema.ts';
import { DEFAULT_MISSING_MARKERS } from '../data/values.ts';
import { InputError } from '../errors.ts';
import {
  boundedRecordsSql,
  distinctPersonsSql,
  groupingSetsQuery,
  heavyPersonsSql,
  type PersonRecords,
  personColumn,
  personContributionsSql,
  type Relation,
  relationSql,
} from '../sql/counting.ts';
import { histogramsFromRows } from './histograms.ts';
import type { BoundedTable, HeavyPersons, PersonLabels, PersonTable } from './person-table.ts';
import { type PostgresSource, postgresRelation } from './postgres.ts';
import { type CountedTables, type CountOptions, tablesFromGroups } from './tables.ts';

/** What the person level's bounding reads of a source (person-table.ts's PersonTable, in part). */
export type BoundableTable = Pick<PersonTable, 'unit' | 'contributions' | 'heavy' | 'bound'>;

/**
 * The person table of `src`: `names` the released columns, `unit` the unit column (both among the
 * source's columns: release/database.ts checks them before the reservation).
 */
export async function postgresPersonTable(
  client: Client,
  src: PostgresSource,
  names: readonly string[],
  unit: string,
  opts: { readonly missingMarkers?: readonly string[] } = {},
): Promise<BoundableTable> {
  const rel = postgresRelation(src);
  const spec: PersonRecords = {
    columns: names,
    unit,
    markers: opts.missingMarkers ?? DEFAULT_MISSING_MARKERS,
    order: (await isPlainTable(client, src, rel)) ? 'physical' : 'content',
  };
  const run = async (text: string, values: unknown[] = []) => {
    try {
      return (await client.query({ text, values, rowMode: 'array' })).rows as unknown[][];
    } catch (err) {
      throw new InputError(
        `${src.display}: the database refused a query of the person level (${(err as Error).message}).`,
        { field: 'data' },
      );
    }
  };
  return {
    unit,
    contributions: async () => {
      const rows = await run(personContributionsSql(rel, spec, 'postgres'));
      return new Map(rows.map(([r, n]) => [Number(r), Number(n)]));
    },
    heavy: async (k) => {
      const rows = await run(heavyPersonsSql(rel, spec, k, 'postgres'));
      return {
        person: Int32Array.from(rows, (r) => Number(r[0])),
        rows: Int32Array.from(rows, (r) => Number(r[1])),
      };
    },
    bound: async (k, heavy: HeavyPersons, kept: readonly Int32Array[]) => {
      const persons: number[] = [];
      const ranks: number[] = [];
      heavy.person.forEach((p, i) => {
        for (const rank of kept[i]) {
          persons.push(p);
          ranks.push(rank);
        }
      });
      const keep = [persons, ranks];
      const bounded = boundedRecordsSql(rel, spec, k, 'postgres');
      const boundedRel: Relation = { kind: 'query', sql: bounded };
      const alias = (name: string): string => {
        const i = names.indexOf(name);
        if (i < 0) throw new Error(`internal: "${name}" is not a released column`);
        return personColumn(i);
      };
      // Every released column's histogram of the kept records, and their count, in one query:
      // discovery and the curator's report read them (one derivation of the bounded records
      // instead of one for the count and one per caller).
      const q = groupingSetsQuery(boundedRel, [...names.map((w) => [alias(w)]), []], 'postgres');
      const all = histogramsFromRows(
        names.map((w) => q.columns.indexOf(alias(w))),
        names,
        q.columns.length,
        await run(q.sql, keep),
      );
      const table: BoundedTable = {
        n: all.n,
        histograms: async (wanted): Promise<ColumnHistograms> => ({
          n: all.n,
          columns: new Map(
            wanted.map((w) => {
              const h = all.columns.get(w);
              if (!h) throw new Error(`internal: "${w}" is not a released column`);
              return [w, h];
            }),
          ),
        }),
        persons: async (labels: PersonLabels) => {
          // Every column's labels in one query. Labels travel as their numbers: a label may hold
          // a NUL (profile.ts's MISSING_KEY), which no PostgreSQL text can.
          const named = [...labels.keys()];
          const out = new Map<string, Map<string, number>>(named.map((name) => [name, new Map()]));
          const cols: number[] = [];
          const raws: string[] = [];
          const ids: number[] = [];
          const index = new Map<string, number>();
          named.forEach((name, col) => {
            for (const [raw, labelled] of labels.get(name)!) {
              for (const label of labelled) {
                let id = index.get(label);
                if (id === undefined) index.set(label, (id = index.size));
                cols.push(col);
                raws.push(raw);
                ids.push(id);
              }
            }
          });
          if (raws.length === 0) return out;
          const label = [...index.keys()];
          const sql = distinctPersonsSql(bounded, named.map(alias), 'postgres');
          for (const [col, id, count] of await run(sql, [...keep, cols, raws, ids])) {
            out.get(named[Number(col)])!.set(label[Number(id)], Number(count));
          }
          return out;
        },
        tables: async (
          schema: Schema,
          features: readonly (readonly number[])[],
          count: CountOptions = {},
        ): Promise<CountedTables> => {
          const source = (f: number) => alias(schema.columns[f].name);
          const q = groupingSetsQuery(boundedRel, [...features.map((fs) => fs.map(source)), []], 'postgres');
          return tablesFromGroups(schema, features, source, q, { rows: await run(q.sql, keep) }, count);
        },
      };
      return table;
    },
  };
}

/** Whether the source is a plain table (it has a heap order: ctid), not a view, a partitioned table or a query. */
async function isPlainTable(client: Client, src: PostgresSource, rel: Relation): Promise<boolean> {
  if (src.query !== undefined) return false;
  const result = await client.query({
    text: 'SELECT relkind::text FROM pg_catalog.pg_class WHERE oid = to_regclass($1)',
    values: [relationSql(rel, 'postgres')],
    rowMode: 'array',
  });
  return (result.rows as unknown[][])[0]?.[0] === 'r';
}
