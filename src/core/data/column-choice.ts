/**
 * The curator's choice of the table's columns to release: only those listed (`--columns a,b,c`,
 * the app's "release") or all but those listed (`--exclude x,y`, the app's "leave out"). The
 * reader applies it as it parses (table.ts): a column left out is dropped from every record before
 * any code sees it, so nothing downstream (discovery, counts, encoding, the engine, the outputs)
 * ever reads its values, and it costs nothing. Names are public (the header's).
 */
import { InputError } from '../errors.ts';

export type ColumnChoice =
  | { readonly only: readonly string[]; readonly exclude?: undefined }
  | { readonly exclude: readonly string[]; readonly only?: undefined };

/**
 * A comma-separated list of column names, each trimmed (the CLI's flags), or the names as a list
 * (the app's, exact: a header name may hold a comma); blank entries and repeats refused.
 */
export function parseColumnList(label: string, text: string | readonly string[]): string[] {
  const names = typeof text === 'string' ? text.split(',').map((s) => s.trim()) : [...text];
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') {
      throw new InputError(
        `${label} must be column names separated by commas, got "${String(text)}" (an empty name)`,
      );
    }
    if (seen.has(name)) throw new InputError(`${label} lists the column "${name}" twice`);
    seen.add(name);
  }
  return names;
}

/** In words, for messages: which list named the column. */
function listName(choice: ColumnChoice): string {
  return choice.only ? 'the columns to release (--columns)' : 'the columns to leave out (--exclude)';
}

/**
 * Indices of the header's columns the choice keeps, in the header's order. Refuses a name that
 * is not in the header (naming the column and the header) and a choice that keeps fewer than two
 * columns (RAP needs at least two).
 */
export function keptColumnIndices(file: string, header: readonly string[], choice: ColumnChoice): number[] {
  const listed = choice.only ?? choice.exclude;
  for (const name of listed) {
    if (!header.includes(name)) {
      throw new InputError(
        `${file}: ${listName(choice)} name "${name}", which is not a column of the table ` +
          `(its header: ${header.join(', ')}); check the spelling.`,
        { file, column: name, field: 'columns' },
      );
    }
  }
  const named = new Set(listed);
  const kept: number[] = [];
  header.forEach((name, c) => {
    if (named.has(name) === (choice.only !== undefined)) kept.push(c);
  });
  if (kept.length < 2) {
    throw new InputError(
      `${file}: ${listName(choice)} leave ${kept.length} column${kept.length === 1 ? '' : 's'} to release; ` +
        'a release needs at least two.',
      { file, field: 'columns' },
    );
  }
  return kept;
}

/** The names of the header's columns the choice leaves out (none without a choice). */
export function excludedColumns(header: readonly string[], choice: ColumnChoice | undefined): string[] {
  if (!choice) return [];
  if (choice.exclude) return header.filter((h) => choice.exclude.includes(h));
  return header.filter((h) => !choice.only.includes(h));
}

/** Whether the choice keeps the named column (every column without a choice). */
export function keepsColumn(choice: ColumnChoice | undefined, name: string): boolean {
  if (!choice) return true;
  return choice.only ? choice.only.includes(name) : !choice.exclude.includes(name);
}

/** The same choice, with `name` kept as well (the person level's unit column: read, never released). */
export function alsoKeeping(choice: ColumnChoice, name: string): ColumnChoice {
  if (choice.only) return choice.only.includes(name) ? choice : { only: [...choice.only, name] };
  return { exclude: choice.exclude.filter((n) => n !== name) };
}
