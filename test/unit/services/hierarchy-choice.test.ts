/**
 * The Schema step's "hierarchical code" (issue 28) through the services: the run settings carry
 * the CLI's --hierarchy entries (`COLUMN=LEVELS`), parsed by the release spec's parseHierarchies
 * (same messages); the plan costs the column one share of discovery per level, and states its
 * top level's "(other)" bar; a run discovers it level by level (its released domain holds the
 * letters and categories, the ledger names the hierarchy), as `synth --hierarchy` does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunSettingsInput } from '../../../src/shared/api.ts';
import { type Harness, harness, ledgerReleases, settle } from './fixtures.ts';

let h: Harness | undefined;
/** 1,500 visits: ICD-10 codes under C34, I10 and J18, and a ward. */
function visits(): string {
  const codes = ['C34.10', 'C34.10', 'C34.90', 'I10', 'I10', 'J18.9'];
  const lines = ['dx,ward'];
  for (let i = 0; i < 1500; i++) lines.push(`${codes[i % codes.length]},${['A', 'B', 'C'][i % 3]}`);
  return `${lines.join('\n')}\n`;
}

const BASE: RunSettingsInput = {
  epsilon: '4',
  rows: '20',
  rounds: '1',
  perRound: '2',
  mode: 'query',
};

async function ready() {
  h = harness();
  const ds = await h.call('openDataset', { path: h.upload('visits.csv', visits()), header: 'yes' });
  await h.call('setCap', { datasetId: ds.id, epsilon: '10' });
  await h.call('setWorkload', {
    datasetId: ds.id,
    role: 'main',
    thresholds: [{ features: ['dx', 'ward'], r: 2, weight: 1 }],
  });
  return { h, ds };
}

describe('hierarchical codes in the app (the Schema step)', () => {
  it('costs the column a share per level in the plan and refuses bad levels with the CLI’s message', async () => {
    const { h, ds } = await ready();
    const plain = await h.call('runPlan', { datasetId: ds.id, settings: BASE });
    const marked = await h.call('runPlan', {
      datasetId: ds.id,
      settings: { ...BASE, hierarchy: ['dx=icd10'] },
    });
    expect(marked.blocker).toBeNull();
    const cost = (p: typeof plain, name: string) => {
      const c = p.columns.find((x) => x.name === name);
      if (c?.domain !== 'discovered' || !c.cost) throw new Error(`no cost for ${name}`);
      return c.cost;
    };
    // Two plain columns share discovery equally; with dx's three levels, 3 of 4 shares go to dx.
    expect(cost(plain, 'dx').rho).toBeCloseTo(cost(plain, 'ward').rho, 15);
    expect(cost(marked, 'dx').rho).toBeCloseTo(3 * cost(marked, 'ward').rho, 15);
    expect(cost(marked, 'dx').rho + cost(marked, 'ward').rho).toBeCloseTo(
      cost(plain, 'dx').rho + cost(plain, 'ward').rho,
      15,
    );
    // The letters' bar (a public histogram) is not a plain column's partition-selection bar.
    expect(cost(marked, 'dx').mergeBelow).not.toBeCloseTo(cost(marked, 'ward').mergeBelow, 3);

    const bad = await h.call('runPlan', {
      datasetId: ds.id,
      settings: { ...BASE, hierarchy: ['dx=1,x'] },
    });
    expect(bad.blocker).toBe('settings');
    expect(bad.problems).toContainEqual({
      field: 'hierarchy',
      message: expect.stringContaining('hierarchy of "dx": "x" is not a level'),
    });
    await expect(
      h.call('startRun', { datasetId: ds.id, settings: { ...BASE, hierarchy: ['dx=1,x'] } }),
    ).rejects.toThrow(/hierarchy of "dx"/);
    expect(ledgerReleases(h)).toEqual([]);
  });

  it('a run discovers the marked column level by level, as synth --hierarchy does', async () => {
    const { h, ds } = await ready();
    await h.call('startRun', { datasetId: ds.id, settings: { ...BASE, hierarchy: ['dx=icd10'] } });
    const run = await settle(h);
    expect(run.status).toBe('finished');
    const [release] = ledgerReleases(h);
    const discovery = release.params.discovery as { hierarchies: Record<string, string> };
    expect(discovery.hierarchies).toEqual({ dx: 'icd10' });
    const out = await h.call('exportRun', { runId: run.runId });
    if (!out.written) throw new Error('not written');
    // The released domain: the Data Package's Table Schema written beside the CSV.
    const pkg = JSON.parse(readFileSync(out.path.replace(/\.csv$/, '.datapackage.json'), 'utf8'));
    const field = pkg.resources[0].schema.fields.find((f: { name: string }) => f.name === 'dx');
    expect(field.constraints.enum).toEqual(expect.arrayContaining(['C', 'C34', 'I', 'I10', 'J', 'J18']));
    const domain = new Set<string>(field.constraints.enum);
    const rows = readFileSync(out.path, 'utf8').trim().split(/\r?\n/).slice(1);
    for (const r of rows) expect(domain.has(r.split(',')[0])).toBe(true);
  });
});
