/**
 * The app's column choice (the Schema step's release / leave out / identifier) applied to an
 * opened dataset as the release applies it (core/release/spec.ts, withColumnChoice and
 * workloadOverKept): the schema without the columns left out, the workload over the columns kept
 * (refused when it names one left out), and the columns the screens set aside for their category
 * limit, which a run waits on until the curator says what they are.
 */
import { type ColumnChoice, keepsColumn } from '../core/data/column-choice.ts';
import type { Schema } from '../core/data/schema.ts';
import { workloadOverKept } from '../core/release/spec.ts';
import type { Workload } from '../core/workload/types.ts';

/** The schema without the columns the choice leaves out. */
export function keptSchema(schema: Schema, choice: ColumnChoice | undefined): Schema {
  if (!choice) return schema;
  return { ...schema, columns: schema.columns.filter((c) => keepsColumn(choice, c.name)) };
}

/** A workload resolved against `schema`, as one over the columns the choice keeps. */
export function keptWorkload(workload: Workload, schema: Schema, choice: ColumnChoice | undefined): Workload {
  if (!choice) return workload;
  const names = schema.columns.map((c) => c.name);
  return workloadOverKept(
    workload,
    names,
    names.filter((n) => keepsColumn(choice, n)),
    'the workload',
  );
}

/** Columns set aside for their category limit that are neither left out nor the identifier. */
export function undecidedColumns(
  overLimit: readonly { readonly column: string; readonly limit: number }[],
  choice: ColumnChoice | undefined,
  unitColumn: string | undefined,
): { readonly column: string; readonly limit: number }[] {
  return overLimit.filter((o) => o.column !== unitColumn && (!choice || keepsColumn(choice, o.column)));
}

/** Why a run waits on those columns, and what to do (the Schema step offers the three choices). */
export function undecidedReason(
  fileName: string,
  undecided: readonly { readonly column: string; readonly limit: number }[],
): string {
  const list = undecided
    .map((o) => `"${o.column}" (more than ${o.limit.toLocaleString('en-US')} distinct values)`)
    .join(', ');
  return (
    `${fileName}: say what ${undecided.length === 1 ? 'column' : 'columns'} ${list} ${undecided.length === 1 ? 'is' : 'are'} ` +
    'on the Schema step: leave it out, mark it as the identifier of a person, or raise its category limit. Nothing was reserved.'
  );
}
