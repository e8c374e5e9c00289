/**
 * `rap-studio schema …`: infer a schema from a CSV (with the leak warning), check a schema file,
 * confirm an inferred schema as the declared domain. Never prints data rows: only the schema
 * (which, when inferred, is itself derived from the data — hence the warning).
 */
import type { Command } from 'commander';
import { PRIVATE_FILE_MODE, writeFileAtomic } from '../../core/data/atomic-write.ts';
import type { HeaderMode } from '../../core/data/header.ts';
import { INFER_DEFAULTS, inferSchema } from '../../core/data/infer.ts';
import { layoutOf } from '../../core/data/onehot.ts';
import type { RejectedRows } from '../../core/data/rejections.ts';
import { describeSchemaOrigin, domainSize, type Schema } from '../../core/data/schema.ts';
import {
  confirmSchema,
  readDeclaredSchema,
  readSchemaFile,
  schemaToJson,
} from '../../core/data/schema-file.ts';
import { tableSchemaFromNames } from '../../core/data/uci-names.ts';
import { readTextFile } from '../../core/input/files.ts';
import { parseIntegerOption } from './workload.ts';

const commaList = (value: string): string[] => value.split(',').map((s) => s.trim());

interface InferFlags {
  out?: string;
  header?: boolean;
  columns?: string[];
  missing?: string[];
  maxCategories: number;
  bins: number;
  numericCategoryLimit: number;
}

/** Writes `text` to `out` atomically (with `mode` when new), or to stdout when no file is given. */
async function emit(text: string, out: string | undefined, mode?: number): Promise<void> {
  if (out === undefined) process.stdout.write(text);
  else await writeFileAtomic(out, text, { mode });
}

function rejectedLines(rejected: readonly RejectedRows[]): string {
  return rejected.map((r) => `  ${r.count} rows: ${r.reason} (first at line ${r.firstLine})\n`).join('');
}

async function inferCommand(data: string, flags: InferFlags): Promise<void> {
  const header: HeaderMode = flags.header ?? 'auto';
  const { schema, table, rejections } = await inferSchema(data, {
    header,
    columns: flags.columns,
    missingMarkers: flags.missing,
    maxCategories: flags.maxCategories,
    numericBins: flags.bins,
    numericCategoryLimit: flags.numericCategoryLimit,
  });
  // Read off the private data: readable by the owner alone.
  await emit(schemaToJson(schema), flags.out, PRIVATE_FILE_MODE);
  const accepted = table.rowsRead - rejections.total;
  process.stderr.write(
    `warning: this schema was inferred from the private data in ${data}: its categories and value ranges ` +
      'leak information about the rows. Review it, replace what you can by public knowledge, then run ' +
      '`rap-studio schema confirm`.\n' +
      `${schema.columns.length} columns, one-hot width ${layoutOf(schema).width}; ${accepted} of ${table.rowsRead} ` +
      `rows used (${table.hasHeader ? 'header row read' : 'no header row'}, delimiter ${JSON.stringify(table.delimiter)})` +
      (flags.out ? `; written to ${flags.out}` : '') +
      '\n' +
      (rejections.total > 0 ? `rejected rows:\n${rejectedLines(rejections.list())}` : '') +
      (rejections.list().some((r) => r.reason.startsWith('row has '))
        ? 'note: a release (rap-studio synth, the app) keeps a row with the wrong number of fields as a record ' +
          "with every value missing, so n is the file's record count; declare a missing category for the columns, " +
          'or fix the rows.\n'
        : ''),
  );
}

function describe(schema: Schema): string {
  const lines = schema.columns.map((c) => {
    const what =
      c.kind === 'categorical'
        ? `categorical, ${c.categories.length} categories`
        : `numeric${c.integer ? ' (integer)' : ''}, ${c.edges.length - 1} bins over [${c.edges[0]}, ${c.edges.at(-1)}]`;
    return `  ${c.name}: ${what}${c.missing ? ', missing category' : ''} → ${domainSize(c)} codes\n`;
  });
  return (
    `origin: ${describeSchemaOrigin(schema)}\n` +
    `${schema.columns.length} columns, one-hot width ${layoutOf(schema).width}\n` +
    lines.join('')
  );
}

export function register(program: Command): void {
  const schema = program
    .command('schema')
    .description('infer, check and confirm table schemas (public domains)');

  schema
    .command('infer')
    .description('infer a schema from a CSV (the result leaks information about the data: review it)')
    .argument('<data>', 'CSV file (delimiter , ; or tab)')
    .option('-o, --out <file>', 'write the schema JSON to this file (atomically) instead of stdout')
    .option('--header', 'the first row names the columns (default: guess)')
    .option('--no-header', 'the file has no header row: columns are column_1…column_N unless --columns')
    .option('--columns <names>', 'comma-separated column names', commaList)
    .option('--missing <markers>', "comma-separated missing-value markers (default '?,,NA')", commaList)
    .option(
      '--max-categories <n>',
      'most distinct values a text column may have',
      parseIntegerOption(1),
      INFER_DEFAULTS.maxCategories,
    )
    .option(
      '--bins <n>',
      'bins for a column inferred numeric',
      parseIntegerOption(1),
      INFER_DEFAULTS.numericBins,
    )
    .option(
      '--numeric-category-limit <n>',
      'a number column with at most n distinct values stays categorical',
      parseIntegerOption(0),
      INFER_DEFAULTS.numericCategoryLimit,
    )
    .action(inferCommand);

  schema
    .command('check')
    .description(
      'validate a schema file (ours, or a Frictionless Table Schema / datapackage.json) and describe it',
    )
    .argument('<schema>', 'schema JSON file')
    .action(async (file: string) => {
      const { schema: declared, open } = await readDeclaredSchema(file);
      process.stdout.write(describe(declared));
      // A Table Schema's fields that state only a type: a release discovers them privately.
      for (const f of open) {
        const format = f.temporal?.format ? `, format ${f.temporal.format}` : '';
        process.stdout.write(
          `  ${f.name}: ${f.type}${format}, no domain stated → discovered privately by a release\n`,
        );
      }
    });

  schema
    .command('from-names')
    .description(
      "a Frictionless Table Schema from a UCI .names codebook (public): its listed values are declared, 'continuous' attributes are discovered privately by a release",
    )
    .argument('<names>', 'the codebook, e.g. adult.names')
    .option('-o, --out <file>', 'write the Table Schema here (atomically) instead of stdout')
    .option('--class-name <name>', 'the name of the class column (the codebook does not name it)', 'class')
    .option('--missing <marker>', 'how the data writes an unknown value', '?')
    .action(async (file: string, flags: { out?: string; className: string; missing: string }) => {
      const ts = tableSchemaFromNames(await readTextFile(file, 'codebook'), file, {
        className: flags.className,
        missing: flags.missing,
      });
      await emit(`${JSON.stringify(ts, null, 2)}\n`, flags.out);
    });

  schema
    .command('confirm')
    .description('accept a (reviewed) schema as the declared public domain')
    .argument('<schema>', 'schema JSON file')
    .option('-o, --out <file>', 'write the confirmed schema here (atomically) instead of stdout')
    .action(async (file: string, flags: { out?: string }) => {
      const original = await readSchemaFile(file);
      await emit(schemaToJson(confirmSchema(original)), flags.out);
      if (original.origin === 'inferred') {
        process.stderr.write(
          'note: confirmed an inferred schema. It is now treated as public, but the categories and ranges it ' +
            'took from the data have already leaked; reports will say "confirmed from an inferred schema".\n',
        );
      }
    });
}
