/**
 * The app's dataset picker (issue 26, item 10): a new file that looks like a dataset the ledger
 * knows (same columns, a similar record count) is never given a budget silently. The plan names
 * the look-alikes and blocks Run ('dataset'); a run without a choice is refused before anything
 * is reserved; choosing the known dataset spends its budget; choosing "new" gives the file its own.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type Harness,
  harness,
  ledgerReleases,
  QUICK_SETTINGS as SETTINGS,
  sampleCsv,
  setSampleWorkload,
  settle,
} from './fixtures.ts';

let h: Harness | undefined;
async function open(hh: Harness, name: string, text: string) {
  const ds = await hh.call('openDataset', { path: hh.upload(name, text), header: 'yes' });
  await setSampleWorkload(hh, ds.id);
  return ds;
}

describe('the dataset picker', () => {
  it('a re-saved copy: Run blocked, refused unchosen, spends the known budget when chosen', async () => {
    h = harness();
    const original = await open(h, 'shop.csv', sampleCsv());
    await h.call('setCap', { datasetId: original.id, epsilon: '3' });
    const copy = await open(h, 'shop-resaved.csv', `${sampleCsv()}\n`);

    const plan = await h.call('runPlan', { datasetId: copy.id, settings: SETTINGS });
    expect(plan.blocker).toBe('dataset');
    expect(plan.ledgerMatches).toEqual([{ name: 'shop.csv', rows: 60 }]);
    await expect(h.call('startRun', { datasetId: copy.id, settings: SETTINGS })).rejects.toMatchObject({
      message: expect.stringMatching(/same column names and a similar number of records as "shop\.csv"/),
    });
    expect(ledgerReleases(h)).toHaveLength(0);

    const spend = { ...SETTINGS, ledgerDataset: { spend: 'shop.csv' } };
    const chosen = await h.call('runPlan', { datasetId: copy.id, settings: spend });
    expect(chosen.blocker).toBeNull();
    expect(chosen.budget.capEpsilon).toBeCloseTo(3, 9);
    await h.call('startRun', { datasetId: copy.id, settings: spend });
    await settle(h);
    const releases = ledgerReleases(h);
    expect(releases).toHaveLength(1);
    expect(releases[0].datasetFingerprint).toBe(createHash('sha256').update(sampleCsv()).digest('hex'));
  });

  it('"a new dataset": the copy gets a dataset of its own, under a name no known dataset has', async () => {
    h = harness();
    const original = await open(h, 'shop.csv', sampleCsv());
    await h.call('setCap', { datasetId: original.id, epsilon: '3' });
    const copy = await open(h, 'shop.csv', `${sampleCsv()}\n`);
    const asNew = { ...SETTINGS, ledgerDataset: { new: true as const } };
    expect((await h.call('runPlan', { datasetId: copy.id, settings: asNew })).blocker).toBe('no-cap');
    const budget = await h.call('setCap', { datasetId: copy.id, epsilon: '1', ledgerDataset: { new: true } });
    expect(budget.capEpsilon).toBeCloseTo(1, 9);
    const plan = await h.call('runPlan', { datasetId: copy.id, settings: asNew });
    expect(plan.ledgerMatches).toEqual([]); // known now
    expect(plan.budget.capEpsilon).toBeCloseTo(1, 9);
  });
});
