import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../test/support/command.ts';
import { parseSchemaJson } from '../../core/data/schema-file.ts';
import { tempDir } from '../../core/data/testing.ts';
import { InputError } from '../../core/errors.ts';
import { register } from './schema.ts';

const dir = tempDir('rap-cli-schema-');
afterAll(() => dir.remove());

/** Runs `rap-studio …args` in process, capturing stdout and stderr. */
async function run(...args: string[]): Promise<{ out: string; err: string }> {
  const { stdout, stderr } = await runCommand(register, args);
  return { out: stdout, err: stderr };
}

const csv = dir.file('people.csv', 'age, city\n34, Paris\n51, ?\n29, Berlin\n');

describe('rap-studio schema infer', () => {
  it('prints the inferred schema and warns on stderr that it leaks', async () => {
    const { out, err } = await run('schema', 'infer', csv);
    const schema = parseSchemaJson(out, 'stdout');
    expect(schema.origin).toBe('inferred');
    expect(schema.columns).toEqual([
      { name: 'age', kind: 'categorical', categories: ['29', '34', '51'], missing: false },
      { name: 'city', kind: 'categorical', categories: ['Berlin', 'Paris'], missing: true },
    ]);
    expect(err).toContain(`warning: this schema was inferred from the private data in ${csv}`);
    expect(err).toContain('3 of 3 rows used (header row read, delimiter ",")');
  });

  it('writes --out atomically and takes the inference options', async () => {
    const out = `${dir.path}/schema.json`;
    const bare = dir.file('bare.csv', '1,a\n2,b\n3,a\n4,?\n');
    const result = await run(
      'schema',
      'infer',
      bare,
      '--out',
      out,
      '--no-header',
      '--columns',
      'n,c',
      '--bins',
      '3',
      '--numeric-category-limit',
      '2',
      '--missing',
      '?',
    );
    expect(result.out).toBe('');
    expect(result.err).toContain(`written to ${out}`);
    const schema = parseSchemaJson(readFileSync(out, 'utf8'), out);
    expect(schema.columns).toEqual([
      { name: 'n', kind: 'numeric', edges: [1, 2, 3, 4], integer: true, missing: false },
      { name: 'c', kind: 'categorical', categories: ['a', 'b'], missing: true },
    ]);
  });

  it('reports rejected rows by reason', async () => {
    const ragged = dir.file('ragged.csv', 'a,b\nx,1\ny\nz,2\n');
    const { err } = await run('schema', 'infer', ragged);
    expect(err).toContain('rejected rows:\n  1 rows: row has 1 fields, expected 2 (first at line 3)\n');
    // The release's one rule for such rows, stated where the curator sees them rejected.
    expect(err).toContain(
      'a release (rap-studio synth, the app) keeps a row with the wrong number of fields as a record with every value missing',
    );
  });

  it('fails with an InputError for bad input', async () => {
    const empty = dir.file('empty.csv', '');
    await expect(run('schema', 'infer', empty)).rejects.toThrow(InputError);
  });
});

describe('rap-studio schema check / confirm', () => {
  it('describes a schema and confirms an inferred one', async () => {
    const inferred = `${dir.path}/inferred.json`;
    await run('schema', 'infer', csv, '--out', inferred);
    const check = await run('schema', 'check', inferred);
    expect(check.out).toBe(
      'origin: inferred from the private data: it leaks which categories occur and the value ranges; declare or confirm it\n' +
        '2 columns, one-hot width 6\n' +
        '  age: categorical, 3 categories → 3 codes\n' +
        '  city: categorical, 2 categories, missing category → 3 codes\n',
    );
    const confirmed = `${dir.path}/confirmed.json`;
    const confirm = await run('schema', 'confirm', inferred, '-o', confirmed);
    expect(confirm.err).toContain('note: confirmed an inferred schema.');
    const schema = parseSchemaJson(readFileSync(confirmed, 'utf8'), confirmed);
    expect(schema.origin).toBe('declared');
    expect(schema.confirmedFromInferred).toBe(true);
  });
});

describe('rap-studio schema from-names / check (Frictionless)', () => {
  const names = dir.file(
    'shop.names',
    '| a codebook\n| Convert Unknown to "?"\nyes, no.\n\ncolour: red, green, blue.\nweight: continuous.\n',
  );

  it('writes a Table Schema from a codebook, and check describes it: declared columns and open fields', async () => {
    const out = `${dir.path}/shop.schema.json`;
    await run('schema', 'from-names', names, '--class-name', 'bought', '--out', out);
    const ts = JSON.parse(readFileSync(out, 'utf8'));
    expect(ts.fields.map((f: { name: string }) => f.name)).toEqual(['colour', 'weight', 'bought']);
    expect(ts.missingValues).toEqual(['?']);
    const { out: text } = await run('schema', 'check', out);
    expect(text).toContain('2 columns, one-hot width');
    expect(text).toContain('  colour: categorical, 3 categories, missing category → 4 codes\n');
    expect(text).toContain('  weight: number, no domain stated → discovered privately by a release\n');
  });

  it('check refuses a bad Table Schema naming the field', async () => {
    const bad = dir.file('bad.json', JSON.stringify({ fields: [{ name: 'a', type: 'geopoint' }] }));
    await expect(run('schema', 'check', bad)).rejects.toThrow(
      /fields\[0\] \("a"\)\.type: "geopoint" values cannot be released/,
    );
  });
});
