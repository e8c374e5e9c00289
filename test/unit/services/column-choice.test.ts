/**
 * The app's column choice (issue 28, item 1) through the services: a column past the screens'
 * category limit never refuses the file; a run waits until the curator leaves it out, marks it
 * as the identifier or raises its limit (nothing reserved meanwhile); a column left out is not
 * in the plan's columns, and a workload naming it is refused with the column's name.
 */
import { describe, expect, it } from 'vitest';
import { QUICK_SETTINGS as BASE, type Harness, harness, ledgerReleases } from './fixtures.ts';

let h: Harness | undefined;
/** 1,200 rows: a unique visit code (1,200 distinct: past the 1,000 limit), ward, age. */
function visits(): string {
  const lines = ['visit_code,ward,age'];
  for (let i = 0; i < 1200; i++) lines.push(`V${10000 + i},${['A', 'B', 'C'][i % 3]},${20 + (i % 50)}`);
  return `${lines.join('\n')}\n`;
}

describe('column choice (app)', () => {
  it('opens a file with a column past the category limit; the run waits until it is decided', async () => {
    h = harness();
    const ds = await h.call('openDataset', { path: h.upload('visits.csv', visits()), header: 'yes' });
    expect(ds.overLimit).toEqual([{ column: 'visit_code', limit: 1000 }]);
    expect(ds.schema.columns.map((c) => c.name)).toEqual(['ward', 'age']);
    expect(ds.ignoredColumns).toEqual([]);
    await h.call('setCap', { datasetId: ds.id, epsilon: '5' });
    await h.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['ward', 'age'], r: 2, weight: 1 }],
    });
    const waiting = await h.call('runPlan', { datasetId: ds.id, settings: BASE });
    expect(waiting).toMatchObject({ affordable: false, blocker: 'domain' });
    expect(waiting.reason).toContain('"visit_code" (more than 1,000 distinct values)');
    await expect(h.call('startRun', { datasetId: ds.id, settings: BASE })).rejects.toThrow(
      /leave it out, mark it as the identifier of a person, or raise its category limit. Nothing was reserved/,
    );
    expect(ledgerReleases(h)).toEqual([]);

    // Left out: the plan goes ahead; raised: the column is on the screens.
    const leftOut = await h.call('runPlan', {
      datasetId: ds.id,
      settings: { ...BASE, exclude: ['visit_code'] },
    });
    expect(leftOut.blocker).toBeNull();
    const raised = await h.call('setCategoryLimit', {
      datasetId: ds.id,
      column: 'visit_code',
      limit: 10_000,
    });
    expect(raised.overLimit).toEqual([]);
    expect(raised.schema.columns.map((c) => c.name)).toEqual(['visit_code', 'ward', 'age']);
  });

  it('editing a column on the Schema step keeps the columns set aside, and the identifier chosen among them', async () => {
    h = harness();
    const ds = await h.call('openDataset', { path: h.upload('visits.csv', visits()), header: 'yes' });
    await h.call('setCap', { datasetId: ds.id, epsilon: '5' });
    await h.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['ward', 'age'], r: 2, weight: 1 }],
    });
    const settings = { ...BASE, unitColumn: 'visit_code' };
    expect((await h.call('runPlan', { datasetId: ds.id, settings })).blocker).toBeNull();
    // The column editor's Apply (an edit of ward): visit_code is still set aside, still the identifier.
    const edited = await h.call('setSchema', {
      datasetId: ds.id,
      schema: {
        columns: ds.schema.columns.map((c) =>
          c.name === 'ward' && c.kind === 'categorical' ? { ...c, categories: ['A', 'B', 'C'] } : c,
        ),
      },
    });
    expect(edited.overLimit).toEqual([{ column: 'visit_code', limit: 1000 }]);
    expect(edited.ignoredColumns).toEqual([]);
    const plan = await h.call('runPlan', { datasetId: ds.id, settings });
    expect(plan.blocker).toBeNull();
  });

  it('a column left out leaves the plan; a workload on it is refused, naming it', async () => {
    h = harness();
    const ds = await h.call('openDataset', { path: h.upload('visits.csv', visits()), header: 'yes' });
    await h.call('setCategoryLimit', { datasetId: ds.id, column: 'visit_code', limit: 10_000 });
    await h.call('setCap', { datasetId: ds.id, epsilon: '5' });
    await h.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['ward', 'age'], r: 2, weight: 1 }],
    });
    const plan = await h.call('runPlan', {
      datasetId: ds.id,
      settings: { ...BASE, exclude: ['visit_code'] },
    });
    expect(plan.columns.map((c) => c.name)).toEqual(['ward', 'age']);
    await h.call('setWorkload', {
      datasetId: ds.id,
      role: 'main',
      thresholds: [{ features: ['visit_code', 'ward'], r: 2, weight: 1 }],
    });
    const refused = await h.call('runPlan', {
      datasetId: ds.id,
      settings: { ...BASE, exclude: ['visit_code'] },
    });
    expect(refused.blocker).toBe('workload');
    expect(refused.reason).toContain('names the column "visit_code", which the column choice leaves out');
  });
});
