/**
 * Columns a file declares itself (public metadata, read before anything is reserved): SPSS and
 * Stata value labels become declared categories. The curator's own declarations win; a column the column
 * choice leaves out is not added.
 */
import { type ColumnChoice, keepsColumn } from '../column-choice.ts';
import type { Column, Schema } from '../schema.ts';
import { DTA } from './dta.ts';
import { tableFormat } from './format.ts';
import { labelledDeclaredColumns, labelledValueLabels } from './labelled.ts';
import { savDeclaredColumns, savValueLabels } from './sav.ts';

export async function fileDeclaredColumns(file: string): Promise<Column[]> {
  switch (tableFormat(file)) {
    case 'sav':
      return savDeclaredColumns(file);
    case 'dta':
      return labelledDeclaredColumns(file, DTA);
    default:
      return [];
  }
}

/** `schema` with the file's own declarations added for the columns it does not declare. */
export async function withFileDeclarations(
  file: string,
  schema: Schema,
  choice?: ColumnChoice,
): Promise<Schema> {
  const own = await fileDeclaredColumns(file);
  const declared = new Set(schema.columns.map((c) => c.name));
  const added = own.filter((c) => !declared.has(c.name) && keepsColumn(choice, c.name));
  return added.length === 0 ? schema : { ...schema, columns: [...schema.columns, ...added] };
}

/** A labelled column's codes and their labels (public metadata: the file's dictionary), in value order. */
export interface ValueLabelSet {
  readonly column: string;
  readonly labels: readonly { readonly value: number; readonly label: string }[];
}

/**
 * The file's value label sets whose labels are exactly a declared categorical column's categories
 * in `schema` (the file's own declaration, not one the curator replaced): a release written back
 * to SPSS or Stata can then hold that column as the file's codes with their labels. A set with a
 * label on two codes is left out (a category would have two codes).
 */
export async function fileValueLabels(file: string, schema: Schema): Promise<ValueLabelSet[]> {
  const format = tableFormat(file);
  if (format !== 'sav' && format !== 'dta') return [];
  const sets = format === 'sav' ? await savValueLabels(file) : await labelledValueLabels(file, DTA);
  return sets.filter((set) => {
    const column = schema.columns.find((c) => c.name === set.column);
    if (column?.kind !== 'categorical' || column.provenance?.source !== 'declared') return false;
    const labels = set.labels.map((l) => l.label);
    return (
      new Set(labels).size === labels.length &&
      labels.length === column.categories.length &&
      labels.every((l, i) => l === column.categories[i])
    );
  });
}
