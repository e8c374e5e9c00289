/**
 * One rule for rows with the wrong number of fields, in the app as in `synth`: kept as records
 * with every value missing (n is the file's record count), listed as kept, never as rejected.
 */
import { describe, expect, it } from 'vitest';
import { type Harness, harness } from './fixtures.ts';

let h: Harness | undefined;
describe('rows of the wrong width (app)', () => {
  it('are kept with every value missing and listed as kept, not rejected', async () => {
    h = harness();
    const csv = 'a,b,c\nx,1,p\ny,2\nz,3,q,extra\nx,4,p\ny,5,q\n';
    const ds = await h.call('openDataset', { path: h.upload('r.csv', csv), header: 'yes' });
    expect(ds.rowsRead).toBe(5);
    expect(ds.rowsAccepted).toBe(5);
    expect(ds.rejected).toEqual([]);
    expect(ds.keptAsMissing).toEqual([
      { reason: 'row has 2 fields, expected 3 (kept, every value missing)', count: 1, firstLine: 3 },
      { reason: 'row has 4 fields, expected 3 (kept, every value missing)', count: 1, firstLine: 4 },
    ]);
  });
});
