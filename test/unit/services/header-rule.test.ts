/**
 * The header rule in the app (a CSV and an Excel sheet alike): a first row taken for the header
 * by a guess is asked about, and no run starts (nothing reserved) until the curator answers; "no"
 * gives the public names column_1…column_N, and the exported CSV and manifest carry no value of
 * that row.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { xlsxBytes } from '../../../src/core/data/formats/testing.ts';
import { QUICK_SETTINGS as BASE, type Harness, harness, ledgerReleases, settle } from './fixtures.ts';

let h: Harness | undefined;
/** Headerless and all text: its first record looks like a header (no cell recurs below). */
function headerlessRows(): string[][] {
  const rows = [['Jane Roe', 'HIV positive', 'Springfield']];
  const names = ['Ann', 'Bob', 'Cy'];
  const status = ['negative', 'unknown'];
  const towns = ['Oslo', 'Lima', 'Pune', 'Riga'];
  for (let i = 0; i < 80; i++) rows.push([names[i % 3], status[i % 2], towns[i % 4]]);
  return rows;
}

/** The same table as a CSV and as an Excel sheet: a sheet's first row is asked about as a CSV's. */
const HEADERLESS = [
  {
    file: 'people.csv',
    bytes: () =>
      `${headerlessRows()
        .map((r) => r.join(','))
        .join('\n')}\n`,
  },
  { file: 'people.xlsx', bytes: () => xlsxBytes(headerlessRows()) },
];

describe('the header rule (app)', () => {
  it.each(
    HEADERLESS,
  )('$file: asks when line 1 was guessed to be the header; refuses to run until answered; "no" names the columns column_N', async ({
    file,
    bytes,
  }) => {
    h = harness();
    const ds = await h.call('openDataset', { path: h.upload(file, bytes()), name: file });
    expect(ds.hasHeader).toBe(true);
    expect(ds.headerGuessed).toBe(true);
    await h.call('setCap', { datasetId: ds.id, epsilon: '5' });
    await h.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['Jane Roe', 'Springfield'], r: 2, weight: 1 }],
    });
    const plan = await h.call('runPlan', { datasetId: ds.id, settings: BASE });
    expect(plan).toMatchObject({ affordable: false, blocker: 'header' });
    expect(plan.reason).toContain('Does line 1 name the columns?');
    const refused = h.call('startRun', { datasetId: ds.id, settings: BASE });
    await expect(refused).rejects.toMatchObject({ name: 'InputError' });
    expect(await refused.catch((e: Error) => e.message)).toMatch(
      /line 1 was taken for the column names by a guess.*Nothing was reserved/,
    );
    expect(ledgerReleases(h)).toEqual([]);

    const answered = await h.call('setHeader', { datasetId: ds.id, header: 'no' });
    expect(answered.id).toBe(ds.id);
    expect(answered.headerGuessed).toBe(false);
    expect(answered.header).toEqual(['column_1', 'column_2', 'column_3']);
    expect(answered.rowsRead).toBe(81);
    await h.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['column_1', 'column_3'], r: 2, weight: 1 }],
    });
    expect((await h.call('runPlan', { datasetId: ds.id, settings: BASE })).blocker).not.toBe('header');
    await h.call('startRun', { datasetId: ds.id, settings: BASE });
    const run = await settle(h);
    expect(run.status).toBe('finished');
    // Exported as CSV (a sheet's release would be a sheet by default) to read its header row.
    const out = await h.call('exportRun', { runId: run.runId, fileName: 'synthetic.csv' });
    if (!out.written) throw new Error('not written');
    const csv = readFileSync(out.path, 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('column_1,column_2,column_3');
    const manifest = readFileSync(out.manifestPath, 'utf8');
    for (const text of [csv, manifest]) {
      expect(text).not.toContain('Jane Roe');
      expect(text).not.toContain('HIV positive');
    }
  });

  it('"yes" keeps the names and lets the run start; an explicit choice at open is not asked about', async () => {
    h = harness();
    const path = h.upload('shop.csv', 'color,size\nred,S\nblue,M\nred,L\nblue,S\n');
    const ds = await h.call('openDataset', { path });
    expect(ds.headerGuessed).toBe(true);
    const yes = await h.call('setHeader', { datasetId: ds.id, header: 'yes' });
    expect(yes.headerGuessed).toBe(false);
    expect(yes.header).toEqual(['color', 'size']);
    const explicit = await h.call('openDataset', { path, header: 'yes' });
    expect(explicit.headerGuessed).toBe(false);
  });
});
