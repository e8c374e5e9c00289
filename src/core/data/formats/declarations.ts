/**
 * Columns a file declares itself (public metadata, read before anything is reserved): SPSS and
 * Stata value labels become declared categories. The curator's own declarations win; a column the column
 * choice leaves out is not added.
 */
import { type ColumnChoice, keepsColumn } from '../column-choice.ts';
import type { Column, Schema } from '../schema.ts';
import { DTA } from './dta.ts';
import { tableFormat } from './format.ts';
import { labelledDeclaredColumns } from './labelled.ts';
import { savDeclaredColumns } from './sav.ts';

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
