/**
 * The schema editor's provenance rule (the app's Schema step; docs/privacy.md, "Provenance"): a
 * column is DECLARED (used exactly, free) only when the curator supplied its whole domain — typed
 * or pasted afresh in the editor's "Declare…" (`declare: true`), imported from a schema file, or
 * declared before. A column read off the data stays read off the data however it is edited (one
 * edge moved, one category removed: its other values are still the data's), and needs discovery
 * or the non-DP override (confirming an inferred schema does not make it declared either).
 */
import { type Column, SCHEMA_VERSION, type Schema } from '../data/schema.ts';
import { parseSchemaJson } from '../data/schema-file.ts';
import { provenanceOf } from './not-dp.ts';

/** One edited column as the editor sends it: the schema file's column fields, and the "Declare…" mark. */
export interface EditedColumn {
  readonly name: string;
  readonly declare?: boolean;
}

/** The schema after the curator's edit of `previous`, each column's provenance by the rule above. */
export function editedSchema(edited: readonly EditedColumn[], previous: Schema): Schema {
  const fromData = previous.origin === 'inferred' || previous.confirmedFromInferred === true;
  const text = JSON.stringify({
    version: SCHEMA_VERSION,
    origin: 'declared',
    ...(fromData ? { confirmedFromInferred: true } : {}),
    columns: edited.map(({ declare: _, ...c }) => c),
  });
  const parsed = parseSchemaJson(text, 'the edited schema');
  if (!fromData) return parsed;
  const before = new Map(previous.columns.map((c) => [c.name, c]));
  const columns = parsed.columns.map((c, j): Column => {
    const old = before.get(c.name);
    const declared = !old || edited[j]?.declare === true || provenanceOf(previous, old).source === 'declared';
    return { ...c, provenance: declared ? { source: 'declared' } : { source: 'not-dp' } };
  });
  return { ...parsed, columns };
}
