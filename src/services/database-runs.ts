/**
 * A release from a database source through the app's services (no file and no row in the app):
 * the same release pipeline as `synth --data postgres://…` / `--sql` (runs.ts startDatabase,
 * core/release/database.ts), with what is honest for a source the app holds no rows of:
 *
 * - a column is declared by the curator (its whole domain, database-schema.ts: used exactly, free)
 *   or discovered privately at release (no schema is read off rows the app never sees);
 * - columns left out (`settings.exclude`, the file's column choice) are never read, and the
 *   workload over the columns kept (columns.ts keptWorkload, as for a file);
 * - the workload's thresholds name the source's columns (the catalogue's; no row read);
 * - the budget is the database dataset's in the ledger, its identity keyed with the ledger's key
 *   (databaseFacts), set here as setCap sets a file's.
 *
 * - one person, several rows (`settings.unitColumn`, the Schema step's "identifier"): the unit
 *   column is no column of the release and no column of the workload (as for a file); the person
 *   level itself is the release pipeline's (core/release/database.ts), which says what it supports.
 *
 * - a date or time format stated for a column to discover (`temporal`) and hierarchical codes
 *   (`settings.hierarchy`): the spec's fields a file's Schema step sets (database-plan.ts), which
 *   the release pipeline checks before anything is reserved.
 *
 * The password stays on the source object in memory (database-service.ts databaseSource).
 */
import { randomUUID } from 'node:crypto';
import { type PostgresSource, tableColumns, withPostgres } from '../core/counting/postgres.ts';
import { provisionalSchema } from '../core/discovery/raw-source.ts';
import { InputError } from '../core/errors.ts';
import { parseDelta, parseEpsilon } from '../core/input/numbers.ts';
import { defaultDelta } from '../core/privacy/accounting.ts';
import { databaseDatasetName, databaseFacts } from '../core/release/database.ts';
import { workloadWithoutUnit } from '../core/release/person.ts';
import { dataSource, releaseSpec } from '../core/release/spec.ts';
import type { Services } from './api-services.ts';
import type { AppState } from './app-state.ts';
import { keptWorkload } from './columns.ts';
import { statedDatabaseFormats, withStatedFormats } from './database-plan.ts';
import { declaredDatabaseSchema } from './database-schema.ts';
import { databaseSource } from './database-service.ts';
import { budgetFromTotals } from './ledger-views.ts';
import { runView } from './runs.ts';
import { parseSettings } from './settings.ts';
import { resolveWorkload } from './workloads.ts';

export type DatabaseRunService = Pick<Services, 'setDatabaseCap' | 'startDatabaseRun'>;

/** The ledger's key (the worker sends it as bytes); it keys a database source's identity. */
async function ledgerKey(state: AppState): Promise<Buffer> {
  return Buffer.from(await state.ledger.sourceKey());
}

/** The name a run, its screens and its default export name use: the ledger's name as one word. */
export function databaseRunName(src: PostgresSource): string {
  return databaseDatasetName(src).replace(/[^\w-]+/g, '_');
}

export function databaseRunService(state: AppState): DatabaseRunService {
  return {
    async setDatabaseCap({ source, epsilon, delta, unitColumn }) {
      const src = databaseSource(source);
      const eps = parseEpsilon('The cap ε', epsilon);
      const { header, facts } = await databaseFacts(src, [], await ledgerKey(state), undefined, true);
      const d =
        delta === undefined || delta.trim() === ''
          ? defaultDelta(Math.max(2, facts.rows))
          : parseDelta('The cap δ', delta);
      // The unit is fixed with the cap: per person (the column) or per row (docs/privacy.md).
      const unit = unitColumn === undefined || unitColumn.trim() === '' ? undefined : unitColumn;
      if (unit !== undefined && !header.includes(unit)) {
        throw new InputError(
          `${src.location}: no column named "${unit}" (its columns: ${header.join(', ')}): choose the column ` +
            'that identifies a person.',
          { field: 'unitColumn', column: unit },
        );
      }
      const known = await state.ledger.ensureDataset({
        fingerprint: facts.fingerprint,
        name: databaseDatasetName(src),
        rows: facts.rows,
        columns: [...header],
        chosen: false,
      });
      await state.ledger.setCap(known.fingerprint, eps, d, unit);
      return budgetFromTotals(await state.ledger.totals(known.fingerprint));
    },

    async startDatabaseRun({ source, thresholds, schema, settings, temporal }) {
      const src = databaseSource(source);
      const { parsed, problems } = parseSettings(settings);
      if (!parsed) throw new InputError(problems[0].message, { field: problems[0].field });
      const formats = statedDatabaseFormats(src.location, temporal);
      if (thresholds.length === 0) {
        throw new InputError('The workload has no thresholds: add some over the source’s columns.');
      }
      // The columns from the catalogue (no row read); the workload is checked against their names.
      const names = await withPostgres(src, (client) => tableColumns(client, src));
      const unit = parsed.unit;
      if (unit && !names.includes(unit.column)) {
        throw new InputError(
          `${src.location}: no column named "${unit.column}" (its columns: ${names.join(', ')}): choose the column ` +
            'that identifies a person.',
          { field: 'unitColumn', column: unit.column },
        );
      }
      // The release's columns: the source's, without the unit column (never released), through the choice.
      const all = provisionalSchema(names, []);
      const resolved = resolveWorkload(thresholds, all, src.location);
      const released = unit ? names.filter((n) => n !== unit.column) : names;
      const workload = keptWorkload(
        unit ? workloadWithoutUnit(resolved, names.indexOf(unit.column), unit.column) : resolved,
        provisionalSchema(released, []),
        parsed.columns,
      );
      const declared = declaredDatabaseSchema(src.location, names, schema);
      const spec = releaseSpec(parsed, {
        source: {
          ...withStatedFormats(
            dataSource({
              path: src.location,
              schema: declared,
              undeclared: 'discover',
              ...(parsed.hierarchies && { hierarchies: parsed.hierarchies }),
            }),
            formats,
          ),
          postgres: src,
        },
        datasetName: databaseDatasetName(src),
        workload,
        columns: names.length,
        ...(unit && { unit }),
        allowNonPrivateDomain: false,
      });
      const dataset = {
        id: randomUUID(),
        fileName: databaseRunName(src),
        path: src.location,
        database: true,
      } as const;
      return runView(await state.runs().startDatabase(dataset, spec, await ledgerKey(state)));
    },
  };
}
