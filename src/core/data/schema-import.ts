/**
 * A schema file imported over an open table's schema (the app's Schema step): a rap-studio schema
 * file replaces the schema; a Frictionless Table Schema or Data Package (table-schema.ts) declares
 * the fields whose domain it states — those columns become declared (exact, free) — and leaves the others as they are (read
 * off the data: discovered privately at the release, like every undeclared column).
 */
import { InputError } from '../errors.ts';
import type { Schema } from './schema.ts';
import { parseDeclaredSchema } from './schema-file.ts';
import { isFrictionless } from './table-schema.ts';

export function importedSchema(text: string, file: string, current: Schema): Schema {
  const { schema, open } = parseDeclaredSchema(text, file);
  if (!isFrictionlessText(text)) return schema;
  const declared = new Map(schema.columns.map((c) => [c.name, c]));
  const names = new Set(current.columns.map((c) => c.name));
  const absent = [...declared.keys(), ...open.map((f) => f.name)].filter((n) => !names.has(n));
  if (absent.length > 0) {
    throw new InputError(
      `${file}: ${absent.length === 1 ? 'field' : 'fields'} ${absent.map((n) => `"${n}"`).join(', ')} ` +
        `not in the table (it has: ${[...names].join(', ')}); rename the field, or leave it out of the Table Schema.`,
      { file },
    );
  }
  return { ...current, columns: current.columns.map((c) => declared.get(c.name) ?? c) };
}

function isFrictionlessText(text: string): boolean {
  try {
    return isFrictionless(JSON.parse(text));
  } catch {
    return false;
  }
}
