/**
 * Columns whose domain was read off the private data without differential privacy, and the
 * refusal a release over them gets by default (before any reservation). The curator has two
 * ways out — declare those columns, or let RAP Studio discover them privately (the default) —
 * and an explicit override for those who accept the leak; the ledger event and the manifest
 * then say "domain not differentially private" for those columns.
 */
import type { Column, ColumnProvenance, Schema } from '../data/schema.ts';
import { InputError } from '../errors.ts';

/** The override's names, as the refusal gives them (the CLI's flag, the app's checkbox). */
export const NOT_DP_OVERRIDE =
  '--allow-non-private-domain (command line) or the checkbox "Release over a non-private domain" (app, Schema step)';

/** The words every artifact uses for such a column. */
export const NOT_DP_TEXT = 'domain not differentially private';

/** A column's provenance, with the schema's origin standing in for columns that carry none. */
export function provenanceOf(schema: Schema, column: Column): ColumnProvenance {
  if (column.provenance) return column.provenance;
  if (schema.origin === 'inferred' || schema.confirmedFromInferred) return { source: 'not-dp' };
  return { source: 'declared' };
}

/** Names of the columns whose domain is not differentially private. */
export function notDpColumns(schema: Schema): string[] {
  return schema.columns.filter((c) => provenanceOf(schema, c).source === 'not-dp').map((c) => c.name);
}

/** The default refusal, naming the columns and the two ways out (and the override). */
export function notDpRefusal(file: string, columns: readonly string[], overrideName: string): InputError {
  const list = columns.map((c) => `"${c}"`).join(', ');
  return new InputError(
    `${file}: the domain of ${columns.length === 1 ? 'column' : 'columns'} ${list} was read from the private ` +
      'data without differential privacy (categories seen, minimum and maximum), so a release over it would leak. ' +
      'Either declare these columns (a schema file, or edit them in the schema editor), or let RAP Studio ' +
      'discover them privately (the default when no schema is given; it spends a share of the budget). ' +
      `To release anyway, accepting the leak, use ${overrideName}.`,
    { file },
  );
}

/** One column's line in a ledger event or a public manifest. */
export interface ColumnProvenanceEntry {
  readonly name: string;
  readonly domain: 'declared' | 'discovered privately' | typeof NOT_DP_TEXT;
  /** zCDP cost and δ of discovering it (discovered columns only). */
  readonly rho?: number;
  readonly delta?: number;
}

/** Every column's provenance in the words the ledger and the manifest use. */
export function provenanceEntries(schema: Schema): ColumnProvenanceEntry[] {
  return schema.columns.map((c) => {
    const p = provenanceOf(schema, c);
    if (p.source === 'discovered')
      return { name: c.name, domain: 'discovered privately', rho: p.rho, delta: p.delta };
    return { name: c.name, domain: p.source === 'declared' ? 'declared' : NOT_DP_TEXT };
  });
}
