/**
 * The app's services on a schema read off the data (issue 17): private discovery by default,
 * recorded as 'discovered'; a release over the domain as read, refused before any reservation
 * unless the curator ticks the override, and then recorded column by column as "domain not
 * differentially private"; and a seeded run, which the services never export as a release.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ColumnView, RunSettingsInput } from '../../../src/shared/api.ts';
import {
  QUICK_SETTINGS as BASE,
  type Harness,
  harness,
  ledgerReleases,
  sampleCsv,
  setSampleWorkload,
  settle,
} from './fixtures.ts';

let h: Harness | undefined;
const NOT_DP = 'domain not differentially private';

async function ready() {
  h = harness();
  const ds = await h.call('openDataset', { path: h.upload('shop.csv', sampleCsv()), header: 'yes' });
  await setSampleWorkload(h, ds.id);
  await h.call('setCap', { datasetId: ds.id, epsilon: '5' });
  return { h, ds };
}

async function runAndExport(hh: Harness, datasetId: string, settings: RunSettingsInput) {
  await hh.call('startRun', { datasetId, settings });
  const run = await settle(hh);
  expect(run.status).toBe('finished');
  const out = await hh.call('exportRun', { runId: run.runId });
  if (!out.written) throw new Error('not written');
  return {
    manifest: JSON.parse(readFileSync(out.manifestPath, 'utf8')),
    run,
    csv: readFileSync(out.path, 'utf8'),
  };
}

/** sup |F_a − F_b| over every value of either sample, by brute force. */
function bruteKs(a: readonly number[], b: readonly number[]): number {
  const F = (s: readonly number[], v: number) => s.filter((x) => x <= v).length / s.length;
  return Math.max(...[...a, ...b].map((v) => Math.abs(F(a, v) - F(b, v))));
}

describe('a release from a schema read off the data, in the app', () => {
  it('by default discovers every column privately; the ledger and the manifest say "discovered"', async () => {
    const { h, ds } = await ready();
    const { manifest } = await runAndExport(h, ds.id, BASE);
    expect(manifest.schema.origin).toBe('discovered');
    expect(manifest.schema.columns.map((c: { domain: string }) => c.domain)).toEqual(
      Array(3).fill('discovered privately'),
    );
    const [release] = ledgerReleases(h);
    expect(release.schema.origin).toBe('discovered');
    expect(release.mechanism).toBe('domain-discovery+rap-query');
  });

  it('as read, without the override: refused before any reservation, naming the columns and the ways out', async () => {
    const { h, ds } = await ready();
    const settings: RunSettingsInput = { ...BASE, domain: 'as-read' };
    const plan = await h.call('runPlan', { datasetId: ds.id, settings });
    expect(plan.blocker).toBe('domain');
    const refused = h.call('startRun', { datasetId: ds.id, settings });
    await expect(refused).rejects.toMatchObject({ name: 'InputError' });
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toContain(
      'shop.csv: the domain of columns "color", "size", "age" was read from the private data',
    );
    expect(message).toContain('declare these columns');
    expect(message).toContain('discover them privately');
    expect(message).toContain('"Release over a non-private domain"');
    expect(message).not.toContain(h.workDir); // the file's name, not the upload's path
    expect(ledgerReleases(h)).toEqual([]);
    expect((await h.call('runState', {}))?.status).toBeUndefined();
  });

  it('as read, with the override: released; the ledger ("inferred") and the manifest say not DP, column by column', async () => {
    const { h, ds } = await ready();
    const { manifest, run, csv } = await runAndExport(h, ds.id, {
      ...BASE,
      domain: 'as-read',
      allowNonPrivateDomain: true,
    });
    expect(manifest.schema.origin).toBe('inferred');
    expect(manifest.schema.columns).toEqual([
      { name: 'color', domain: NOT_DP },
      { name: 'size', domain: NOT_DP },
      { name: 'age', domain: NOT_DP },
    ]);
    expect(manifest.privacy.discovery).toBeNull();
    const [release] = ledgerReleases(h);
    expect(release).toMatchObject({
      status: 'committed',
      mechanism: 'rap-query',
      schema: { origin: 'inferred' },
    });
    expect(release.params.columns).toEqual(manifest.schema.columns);
    const state = await h.call('runState', {});
    expect(state?.warnings.join(' ')).toContain(`${NOT_DP} for "color", "size", "age"`);

    // The Results step: a numeric column's distribution, real against synthetic, on a fine grid.
    const d = (await h.call('marginalCompare', { runId: run.runId, features: ['age'] })).distribution;
    if (!d) throw new Error('no distribution for a numeric column');
    const real = Array.from({ length: 60 }, (_, i) => 18 + i);
    const synthetic = csv
      .trim()
      .split(/\r?\n/)
      .slice(1)
      .map((line) => Number(line.split(',')[2]))
      .filter((x) => Number.isFinite(x));
    expect(synthetic.length).toBeGreaterThan(0);
    expect(d.ks).toBeCloseTo(bruteKs(real, synthetic), 12);
    expect(d.x.length).toBeGreaterThan(50); // every distinct real age, and the synthetic quantiles
    expect([...d.x].sort((a, b) => a - b)).toEqual(d.x);
    for (const cdf of [d.real, d.synthetic]) {
      for (let i = 1; i < cdf.length; i++) expect(cdf[i]).toBeGreaterThanOrEqual(cdf[i - 1]);
    }
    expect(d.real.at(-1)).toBe(1);
    expect(d.real[d.x.indexOf(47)]).toBeCloseTo(30 / 60, 12);
  });
});

describe('columns edited in the schema editor', () => {
  const edit = (
    columns: readonly ColumnView[],
    name: string,
    change: Partial<ColumnView> & { declare?: boolean },
  ) =>
    columns.map((c) => (c.name === name ? ({ ...c, ...change } as ColumnView & { declare?: boolean }) : c));

  it('an edited read-off column stays "read off the data": not declared, discovered or refused without the override', async () => {
    const { h, ds } = await ready();
    // One edge moved and one category removed: the other values are still the data's.
    const age = ds.schema.columns[2];
    if (age.kind !== 'numeric') throw new Error('age is numeric');
    let view = await h.call('setSchema', {
      datasetId: ds.id,
      schema: {
        columns: edit(ds.schema.columns, 'age', { edges: [0, ...age.edges.slice(1)] }),
      },
    });
    view = await h.call('setSchema', {
      datasetId: ds.id,
      schema: { columns: edit(view.schema.columns, 'color', { categories: ['blue', 'green'] }) },
    });
    expect(view.schema.declaredColumns).toEqual([]);
    const plan = await h.call('runPlan', { datasetId: ds.id, settings: BASE });
    expect(plan.columns.map((c) => [c.name, c.domain])).toEqual([
      ['color', 'discovered'],
      ['size', 'discovered'],
      ['age', 'discovered'],
    ]);
    const asRead = h.call('startRun', { datasetId: ds.id, settings: { ...BASE, domain: 'as-read' } });
    await expect(asRead).rejects.toMatchObject({ name: 'InputError' });
    expect(await asRead.catch((e: Error) => e.message)).toContain(
      'the domain of columns "color", "size", "age" was read from the private data',
    );
    expect(ledgerReleases(h)).toEqual([]);
  });

  it('a column whose whole domain the curator supplied ("Declare…") is declared (free, used exactly) and sent to the release as declared; the others are discovered', async () => {
    const { h, ds } = await ready();
    const read = ds.schema.columns;
    expect(ds.schema.declaredColumns).toEqual([]);
    // Applying values as read, or ticking only the missing box, declares nothing.
    let view = await h.call('setSchema', {
      datasetId: ds.id,
      schema: { columns: edit(read, 'size', { missing: true }) },
    });
    expect(view.schema.declaredColumns).toEqual([]);
    view = await h.call('setSchema', {
      datasetId: ds.id,
      schema: {
        columns: edit(view.schema.columns, 'age', { edges: [0, 40, 80, 120], integer: true, declare: true }),
      },
    });
    expect(view.schema.declaredColumns).toEqual(['age']);
    expect(view.schema.confirmedFromInferred).toBe(true);
    // A later edit of another column leaves it declared.
    view = await h.call('setSchema', {
      datasetId: ds.id,
      schema: {
        columns: edit(view.schema.columns, 'color', {
          categories: ['blue', 'green', 'red', 'violet'],
          declare: true,
        }),
      },
    });
    expect(view.schema.declaredColumns).toEqual(['color', 'age']);

    const plan = await h.call('runPlan', { datasetId: ds.id, settings: BASE });
    expect(plan.columns.map((c) => [c.name, c.domain])).toEqual([
      ['color', 'declared'],
      ['size', 'discovered'],
      ['age', 'declared'],
    ]);
    expect(plan.discovery?.columns).toBe(1);
    const size = plan.columns[1];
    if (size.domain !== 'discovered' || !size.cost) throw new Error('no cost for a discovered column');
    expect(size.cost.rho).toBeCloseTo(plan.discovery?.rhoDiscovery ?? Number.NaN, 12);

    const { manifest, csv } = await runAndExport(h, ds.id, BASE);
    expect(manifest.schema.origin).toBe('discovered');
    expect(manifest.schema.columns.map((c: { name: string; domain: string }) => [c.name, c.domain])).toEqual([
      ['color', 'declared'],
      ['size', 'discovered privately'],
      ['age', 'declared'],
    ]);
    const [release] = ledgerReleases(h);
    expect(release.schema.origin).toBe('discovered');
    expect(release.params.columns).toEqual(manifest.schema.columns);
    // Used exactly: the declared categories, no "(other)"; ages inside the declared bounds.
    const rows = csv
      .trim()
      .split(/\r?\n/)
      .slice(1)
      .map((l) => l.split(','));
    expect(rows.every((r) => ['blue', 'green', 'red', 'violet'].includes(r[0]))).toBe(true);
    expect(rows.every((r) => Number(r[2]) >= 0 && Number(r[2]) <= 120)).toBe(true);
  });

  it('an edited column that cannot hold a record: refused before any reservation, naming line, column and value', async () => {
    const { h, ds } = await ready();
    await h.call('setSchema', {
      datasetId: ds.id,
      schema: {
        columns: edit(ds.schema.columns, 'age', { edges: [20, 40, 80], integer: true, declare: true }),
      },
    });
    const refused = h.call('startRun', { datasetId: ds.id, settings: BASE });
    await expect(refused).rejects.toMatchObject({ name: 'InputError' });
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toContain(
      'shop.csv, line 2, column "age": the value "18" is outside its declared bounds [20, 80]. ' +
        '2 of the 60 records do not fit the declared domain, and nothing was reserved',
    );
    expect(message).toContain("widen the column's declared bounds");
    expect(message).not.toContain(h.workDir);
    expect(ledgerReleases(h)).toEqual([]);
  });
});

describe('a seeded run in the app', () => {
  it('is never exported as a release: the service refuses, the release stays reserved, Discard ends it', async () => {
    const { h, ds } = await ready();
    await h.call('startRun', { datasetId: ds.id, settings: { ...BASE, insecureSeed: '7' } });
    const run = await settle(h);
    expect(run).toMatchObject({ status: 'finished', seedMode: 'insecure-seed' });
    await expect(h.call('exportRun', { runId: run.runId })).rejects.toThrow(
      `Release ${run.releaseId} ran with an insecure seed: anyone who knows the seed can remove its noise, so it is NOT a differentially private release and the app does not export it.`,
    );
    // Also by another name, and again: nothing is written, nothing committed.
    await expect(h.call('exportRun', { runId: run.runId, fileName: 'x.csv' })).rejects.toThrow(
      /insecure seed/,
    );
    expect(ledgerReleases(h).map((r) => [r.status, r.seedMode])).toEqual([['reserved', 'insecure-seed']]);
    expect((await h.call('pendingReleases', {})).map((p) => p.seedMode)).toEqual(['insecure-seed']);
    await h.call('discardRun', { runId: run.runId, confirm: 'discard' });
    expect(ledgerReleases(h).map((r) => r.status)).toEqual(['aborted']);
  });
});
