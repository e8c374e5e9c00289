/**
 * A UCI `.names` codebook (e.g. adult.names) as a Frictionless Table Schema: the public list of
 * each attribute's values, which a curator declares instead of discovering (declared columns are
 * exact and free; none of their categories can fall to "(other)").
 *
 * The format: `|` starts a comment; `name: v1, v2, ….` lists a nominal attribute's values and
 * `name: continuous.` a numeric one; a line of values without a name (`>50K, <=50K.`) is the class,
 * the table's last column by UCI convention. A numeric attribute has no stated range, so it is an
 * open `number` field (a release discovers its bounds privately); every field may be missing,
 * written `missing` (`?` in UCI files: "Convert Unknown to "?"").
 */
import { InputError } from '../errors.ts';
import type { TableSchemaJson } from './table-schema.ts';

export interface NamesOptions {
  /** The class column's name (the codebook does not name it); default "class". */
  readonly className?: string;
  /** The marker of a missing value; default "?". */
  readonly missing?: string;
}

const ATTRIBUTE = /^([^:|]+):\s*(.*?)\s*$/;

function values(list: string): string[] {
  return list
    .replace(/\.\s*$/, '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The codebook's text → a Table Schema; `file` names it in errors. */
export function tableSchemaFromNames(text: string, file: string, opts: NamesOptions = {}): TableSchemaJson {
  const fields: TableSchemaJson['fields'] = [];
  let classValues: string[] | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/\|.*$/, '').trim();
    if (line === '') return;
    const m = ATTRIBUTE.exec(line);
    if (!m) {
      if (classValues !== undefined || fields.length > 0) {
        throw new InputError(
          `${file}, line ${i + 1}: expected "name: values." (a second unnamed line of values?)`,
          {
            file,
            line: i + 1,
          },
        );
      }
      classValues = values(line);
      return;
    }
    const name = m[1].trim();
    const body = m[2];
    if (/^continuous\.?$/i.test(body)) {
      fields.push({ name, type: 'number', format: 'default' });
      return;
    }
    const list = values(body);
    if (list.length === 0)
      throw new InputError(`${file}, line ${i + 1}: attribute "${name}" lists no values`, {
        file,
        line: i + 1,
      });
    fields.push({ name, type: 'string', format: 'default', constraints: { enum: list } });
  });
  if (classValues !== undefined) {
    fields.push({
      name: opts.className ?? 'class',
      type: 'string',
      format: 'default',
      constraints: { enum: classValues },
    });
  }
  if (fields.length === 0) throw new InputError(`${file}: no attributes ("name: values.") found`, { file });
  return { fields, missingValues: [opts.missing ?? '?'] };
}
