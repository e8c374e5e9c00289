/**
 * A database release's plan before Run, and the settings a database source shares with a file's
 * Schema step: the app holds no row of a database source, so what the file's Schema step reads
 * off the file's schema comes here from the catalogue (the columns' names) and the curator.
 *
 * - Each released column's domain at release and its cost (planDatabaseRun): declared (free) or
 *   discovered privately (its ρ and δ and its share of the run's ρ, and the "(other)" bar), from
 *   the same split the release spends (settings.ts columnCosts, as the Privacy step's plan), at the
 *   typed ε and δ. δ left blank is the release's default (`defaultDelta`, the δ field's
 *   placeholder): 1/n² from the table's row count (public, as a file's record count; one COUNT in
 *   the database), or the person level's constant.
 * - A date or time format stated for a column to discover (statedDatabaseFormats): the spec's
 *   `discover.formats`, as the CLI states a Table Schema's date field's (statedFormats).
 * - A hierarchical code (`settings.hierarchy`, the CLI's --hierarchy): parsed by parseSettings,
 *   given to dataSource as the file's are; its levels take their shares here as at release.
 */

import { type PostgresSource, tableColumns, tableRows, withPostgres } from '../core/counting/postgres.ts';
import { keepsColumn } from '../core/data/column-choice.ts';
import { temporalPatternProblem } from '../core/data/formats.ts';
import type { ColumnFormat } from '../core/discovery/formats.ts';
import { InputError } from '../core/errors.ts';
import { defaultDelta } from '../core/privacy/accounting.ts';
import { PERSON_DEFAULT_DELTA } from '../core/release/person.ts';
import type { DataSource } from '../core/release/release.ts';
import { statedFormats } from '../core/release/spec.ts';
import type { DatabasePlanArg, DatabasePlanView, FieldProblem, TemporalView } from '../shared/api.ts';
import type { Services } from './api-services.ts';
import { declaredDatabaseSchema } from './database-schema.ts';
import { databaseSource } from './database-service.ts';
import { columnCosts, parseSettings } from './settings.ts';

export type DatabasePlanService = Pick<Services, 'planDatabaseRun'>;

/**
 * The stated formats as the spec carries them (statedFormats: `MM/DD/YYYY` as strftime), each
 * pattern checked as the release checks it (planRawSource), naming the column. The release
 * refuses a format on a column it does not discover (declared, left out, or not in the source).
 */
export function statedDatabaseFormats(
  location: string,
  temporal: Readonly<Record<string, TemporalView>> | undefined,
): Record<string, ColumnFormat> {
  const fields = Object.entries(temporal ?? {}).map(([name, t]) => ({ name, temporal: t }));
  const formats = statedFormats(fields);
  for (const [name, f] of Object.entries(formats)) {
    const problem = f.temporal ? temporalPatternProblem(f.temporal) : undefined;
    if (problem) {
      throw new InputError(`${location}: column "${name}": ${problem}.`, { field: 'temporal', column: name });
    }
  }
  return formats;
}

/** The source with the stated formats among its columns to discover (the CLI's way, synth.ts). */
export function withStatedFormats(source: DataSource, formats: Record<string, ColumnFormat>): DataSource {
  if (Object.keys(formats).length === 0) return source;
  return { ...source, discover: { ...source.discover, formats } };
}

/** The plan from the catalogue's names (and, per row, the row count: the default δ). */
export async function databasePlan(
  src: PostgresSource,
  arg: Omit<DatabasePlanArg, 'source'>,
): Promise<DatabasePlanView> {
  const { parsed, problems } = parseSettings(arg.settings);
  const fieldProblems: FieldProblem[] = [...problems];
  try {
    statedDatabaseFormats(src.location, arg.temporal);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    fieldProblems.push({ field: 'temporal', message: err.message });
  }
  // The default δ (the field's placeholder, and δ when it is blank) needs the row count unless
  // the release is per person (a constant); counted once per plan, typed δ or not.
  const perPerson = (arg.settings.unitColumn ?? '').trim() !== '';
  const { names, rows } = await withPostgres(src, async (client) => ({
    names: await tableColumns(client, src),
    rows: perPerson ? 0 : await tableRows(client, src),
  }));
  const declared = new Set(
    declaredDatabaseSchema(src.location, names, arg.schema).columns.map((c) => c.name),
  );
  // The released columns: the source's through the choice, without the person's identifier.
  const unit = parsed?.unit?.column;
  const released = names.filter((n) => n !== unit && keepsColumn(parsed?.columns, n));
  const mode = released.every((n) => declared.has(n)) ? 'declared' : 'discover';
  const fallback = perPerson ? PERSON_DEFAULT_DELTA : defaultDelta(Math.max(2, rows));
  const delta = parsed ? (parsed.delta ?? fallback) : null;
  const budget =
    parsed && delta !== null && fieldProblems.length === 0 ? { epsilon: parsed.epsilon, delta } : null;
  const { columns, discovery } = columnCosts(released, declared, mode, budget, parsed?.hierarchies);
  return {
    problems: fieldProblems,
    epsilon: parsed?.epsilon ?? null,
    delta,
    defaultDelta: fallback,
    columns,
    discovery,
  };
}

export function databasePlanService(): DatabasePlanService {
  return {
    async planDatabaseRun({ source, ...rest }) {
      return databasePlan(databaseSource(source), rest);
    },
  };
}
