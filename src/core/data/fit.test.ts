import { afterAll, describe, expect, it } from 'vitest';
import { checkDeclaredFit } from './fit.ts';
import type { Column } from './schema.ts';
import { tempDir } from './testing.ts';

const dir = tempDir('rap-fit-');
afterAll(() => dir.remove());

const city: Column = { name: 'city', kind: 'categorical', categories: ['Oslo', 'Lima'], missing: false };
const age: Column = { name: 'age', kind: 'numeric', edges: [0, 50, 100], integer: true, missing: true };

describe('checkDeclaredFit: every record against the declared columns, before any reservation', () => {
  it('a file that fits: every record counted, no misfit (undeclared columns are not looked at)', async () => {
    const file = dir.file('fits.csv', 'age,city,note\n3,Oslo,anything\n?,Lima,\n100,Oslo,x\n');
    expect(await checkDeclaredFit(file, [age, city])).toEqual({ records: 3, misfits: 0, first: null, ragged: 0 });
  });

  it.each([
    [
      'a category not declared',
      'age,city\n3,Oslo\n4,Pune\n5,Rome\n',
      { line: 3, value: 'Pune', problem: 'category' },
      2,
    ],
    [
      'a missing value and no missing category',
      'age,city\n3,Oslo\n4,?\n',
      { line: 3, value: '?', problem: 'missing' },
      1,
    ],
    [
      'a number outside the bounds',
      'age,city\n3,Oslo\n101,Lima\n',
      { line: 3, value: '101', problem: 'range' },
      1,
    ],
    [
      'text in a numeric column',
      'age,city\nold,Oslo\n',
      { line: 2, value: 'old', problem: 'not-a-number' },
      1,
    ],
  ])('%s: the first misfit (line, column, value) and the count', async (_, text, first, misfits) => {
    const file = dir.file('misfit.csv', text);
    const check = await checkDeclaredFit(file, [age, city]);
    expect(check.misfits).toBe(misfits);
    expect(check.first).toMatchObject({ ...first, ragged: false });
  });

  it('a row of the wrong width counts as a record, missing everywhere, and is flagged ragged', async () => {
    const file = dir.file('ragged.csv', 'age,city\n3,Oslo\n4\n');
    const check = await checkDeclaredFit(file, [age, city]);
    expect(check).toMatchObject({ records: 2, misfits: 1 });
    expect(check.first).toMatchObject({ line: 3, problem: 'missing', ragged: true });
    expect(check.first?.column.name).toBe('city');
  });
});
