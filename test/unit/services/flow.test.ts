/**
 * The services end to end with a fake engine process: the privacy order (reserve before the
 * engine sees data), cancel, crash, export (and its failure), the ledger views, the web-mode
 * path guard. The real engine runs in the e2e test.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UPLOAD_ONLY_MESSAGE } from '../../../src/services/upload-guard.ts';
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
async function ready(engine = 'done', opts: Parameters<typeof harness>[0] = {}) {
  // The desktop app opens only files its dialog returned: pick the file first there.
  let pickedPath = '';
  const dialogs = opts.dialogs && { ...opts.dialogs, openFile: async () => pickedPath };
  h = harness({ engine, ...opts, dialogs });
  const path = h.upload('shop.csv', sampleCsv());
  pickedPath = path;
  if (opts.mode === 'electron') await h.call('pickFile', { purpose: 'data' });
  const ds = await h.call('openDataset', { path, header: 'yes' });
  await setSampleWorkload(h, ds.id);
  return { h, ds, path };
}

describe('datasets and schema', () => {
  it('in web mode opens uploads only', async () => {
    h = harness();
    const outside = join(h.dir, 'elsewhere.csv');
    writeFileSync(outside, sampleCsv());
    await expect(h.call('openDataset', { path: outside })).rejects.toMatchObject({
      message: UPLOAD_ONLY_MESSAGE,
    });
    const traversal = join(h.workDir, 'uploads', '..', '..', 'elsewhere.csv');
    await expect(h.call('openDataset', { path: traversal })).rejects.toMatchObject({
      message: UPLOAD_ONLY_MESSAGE,
    });
    await expect(h.call('openDataset', { path: '/etc/hostname' })).rejects.toMatchObject({
      message: UPLOAD_ONLY_MESSAGE,
    });
    await expect(h.call('openDataset', { path: h.upload('ok.csv', sampleCsv()) })).resolves.toMatchObject({
      rowsRead: 60,
    });
  });

  it('loads, previews and counts, with an inferred schema and no ledger record', async () => {
    const { ds } = await ready();
    expect(ds).toMatchObject({
      rowsRead: 60,
      rowsAccepted: 60,
      hasHeader: true,
      header: ['color', 'size', 'age'],
    });
    expect(ds.preview.rows.length).toBe(60);
    expect(ds.preview.rows[0]).toEqual(['red', 'S', '18']);
    expect(ds.schema.origin).toBe('inferred');
    expect(ds.budget.registered).toBe(false);
    const hist = await h!.call('histogram', { datasetId: ds.id, column: 'size' });
    expect(hist.labels).toEqual(['L', 'M', 'S', 'XL']);
    expect(hist.counts).toEqual([15, 15, 15, 15]);
    expect(h!.events.some((e) => e.type === 'load-progress')).toBe(true);
  });

  it('applies an edited schema: rows outside the new domain are rejected and counted', async () => {
    const { ds } = await ready();
    const columns = ds.schema.columns.map((c) =>
      c.name === 'color' ? { ...c, categories: ['blue', 'red'] } : c,
    );
    await h!.call('setWorkload', { datasetId: ds.id, role: 'main', thresholds: [] });
    const edited = await h!.call('setSchema', { datasetId: ds.id, schema: { columns } });
    expect(edited.schema).toMatchObject({ origin: 'declared', confirmedFromInferred: true });
    expect(edited.rowsAccepted).toBe(40);
    expect(edited.rejected.reduce((s, r) => s + r.count, 0)).toBe(20);
    const exported = await h!.call('exportSchema', { datasetId: ds.id });
    const again = await h!.call('importSchema', {
      datasetId: ds.id,
      text: exported.text,
      fileName: exported.fileName,
    });
    expect(again.schema.columns).toEqual(edited.schema.columns);
  });

  it('refuses a schema edit that would break the workload, naming the threshold', async () => {
    const { ds } = await ready();
    const columns = ds.schema.columns.map((c) => (c.name === 'size' ? { ...c, name: 'sz' } : c));
    await expect(h!.call('setSchema', { datasetId: ds.id, schema: { columns } })).rejects.toMatchObject({
      message: expect.stringContaining('unknown feature "size"'),
    });
  });
});

describe('workloads', () => {
  it('gives the default workload: every 2-way marginal, plus 3-way with the target; weight 1', async () => {
    const { ds } = await ready();
    const names = (await h!.call('defaultThresholds', { datasetId: ds.id })).map((t) => t.features.join('+'));
    expect(names).toContain('color+size');
    const d = names.length;
    const withTarget = await h!.call('defaultThresholds', { datasetId: ds.id, target: 'color' });
    const triples = withTarget.filter((t) => t.features.length === 3);
    expect(withTarget.length - triples.length).toBe(d);
    expect(triples.every((t) => t.features.includes('color') && t.r === 3 && t.weight === 1)).toBe(true);
    await expect(h!.call('defaultThresholds', { datasetId: ds.id, target: 'nope' })).rejects.toThrow(/nope/);
  });

  it('builds, validates, exports and imports thresholds', async () => {
    const { ds } = await ready();
    const subsets = await h!.call('allSubsets', {
      datasetId: ds.id,
      features: ['color', 'size', 'age'],
      k: 2,
      r: 1,
      weight: 2,
    });
    expect(subsets.map((t) => t.features)).toEqual([
      ['color', 'size'],
      ['color', 'age'],
      ['size', 'age'],
    ]);
    const view = await h!.call('setWorkload', { datasetId: ds.id, role: 'main', thresholds: [...subsets] });
    expect(view.thresholds.map((t) => t.queries)).toEqual([12, 3 * 10, 4 * 10]);
    expect(view.totalQueries).toBe('82');
    const random = await h!.call('randomThresholds', {
      datasetId: ds.id,
      k: 2,
      r: 2,
      size: 3,
      dist: 'zipf',
      seed: 1,
      weight: 1,
    });
    expect(random).toHaveLength(3);
    await expect(
      h!.call('setWorkload', {
        datasetId: ds.id,
        role: 'main',
        thresholds: [{ features: ['color', 'zip'], r: 1, weight: 1 }],
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining('unknown feature "zip"') });
    await expect(
      h!.call('setWorkload', {
        datasetId: ds.id,
        role: 'main',
        thresholds: [{ features: ['color', 'size'], r: 3, weight: 1 }],
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining('r = 3 is outside 1..2') });
    const file = await h!.call('exportWorkload', { datasetId: ds.id, role: 'main' });
    const back = await h!.call('importWorkload', {
      datasetId: ds.id,
      role: 'eval',
      text: file.text,
      fileName: file.fileName,
    });
    expect(back.thresholds.map((t) => t.features)).toEqual(view.thresholds.map((t) => t.features));
  });
});

describe('drifted evaluation workloads', () => {
  it('draws from the main workload’s feature frequencies, γ = 0 staying on its features', async () => {
    const { ds } = await ready();
    const o = { datasetId: ds.id, k: 2, r: 1, size: 1, seed: 3, weight: 1 };
    const kept = await h!.call('driftedThresholds', { ...o, drift: 0 });
    expect(kept).toEqual([{ features: ['color', 'size'], r: 1, weight: 1 }]);
    const moved = await h!.call('driftedThresholds', { ...o, drift: 1 });
    expect(moved).toHaveLength(1);
    for (const t of moved) expect(t.features).toContain('age');
    await expect(h!.call('driftedThresholds', { ...o, drift: 1.5 })).rejects.toMatchObject({
      message: expect.stringContaining('Invalid argument for driftedThresholds at "drift"'),
    });
    await h!.call('setWorkload', { datasetId: ds.id, role: 'main', thresholds: [] });
    await expect(h!.call('driftedThresholds', { ...o, drift: 0.5 })).rejects.toMatchObject({
      message: 'The workload has no thresholds yet: a drifted evaluation workload starts from it.',
    });
  });
});

describe('runs', () => {
  it('refuses without a cap: nothing reserved', async () => {
    const { ds } = await ready();
    const plan = await h!.call('runPlan', { datasetId: ds.id, settings: SETTINGS });
    expect(plan.blocker).toBe('no-cap');
    await expect(h!.call('startRun', { datasetId: ds.id, settings: SETTINGS })).rejects.toMatchObject({
      name: 'BudgetRefusedError',
    });
    expect(ledgerReleases(h!)).toEqual([]);
  });

  it('passes table mode progress (the measured thresholds and σ) to the run view', async () => {
    const { ds } = await ready();
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: { epsilon: '1', rows: '10', mode: 'table' } });
    const run = await settle(h!);
    expect(run.status).toBe('finished');
    expect(run.history.filter((p) => p.selectedThresholds)).not.toHaveLength(0);
    for (const p of run.history) expect(p).toMatchObject({ selectedThresholds: [0], sigma: 0.01 });
  });

  it('reserves before the engine runs, finishes, exports and commits with the output hash', async () => {
    const { ds, path } = await ready();
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    const started = await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    expect(started.status).toBe('loading');
    expect(ledgerReleases(h!).map((r) => [r.id, r.status])).toEqual([[started.releaseId, 'reserved']]);
    const run = await settle(h!);
    expect(run.status).toBe('finished');
    expect(run.history.length).toBeGreaterThan(0);
    const results = await h!.call('results', { runId: run.runId });
    expect(results.thresholds).toHaveLength(1);
    const marginal = await h!.call('marginalCompare', { runId: run.runId, features: ['color', 'size'] });
    // The run discovered its domain privately (the schema was inferred): the cells are the
    // discovered categories' product, whatever they are on this small file.
    expect(marginal.real).toHaveLength(marginal.labels[0].length * marginal.labels[1].length);
    expect(marginal.synthetic).toHaveLength(marginal.real.length);
    expect(marginal.real.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);

    const out = await h!.call('exportRun', { runId: run.runId });
    if (!out.written) throw new Error('not written');
    const csv = readFileSync(out.path, 'utf8');
    expect(csv.split('\r\n')[0]).toBe(readFileSync(path, 'utf8').split('\n')[0]);
    const manifest = JSON.parse(readFileSync(out.manifestPath, 'utf8'));
    expect(manifest).toMatchObject({
      releaseId: run.releaseId,
      output: { sha256: out.sha256 },
      privacy: { epsilon: 1 },
    });
    expect(JSON.stringify(manifest)).not.toMatch(
      /presentError|all0Error|perThresholdError|relativeErrorProfile/,
    );
    const [release] = ledgerReleases(h!);
    expect(release).toMatchObject({ status: 'committed', outputSha256: out.sha256 });
    expect((await h!.call('runState', {}))?.status).toBe('exported');
    const overview = await h!.call('ledgerOverview', {});
    expect(overview.datasets[0].releases[0]).toMatchObject({
      status: 'committed',
      cumulativeRho: release.rho,
    });
    expect(await h!.call('ledgerVerify', {})).toMatchObject({ ok: true });
    const session = await h!.call('session', {});
    expect(session.dataset?.budget.releases).toBe(1);
    expect(session.run?.status).toBe('exported');
  });

  it('cancel ends the engine, marks the release aborted and keeps it counted', async () => {
    const { ds } = await ready('slow');
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    const until = Date.now() + 10_000;
    while ((await h!.call('runState', {}))?.status !== 'running' && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    await h!.call('cancelRun', {});
    const run = await settle(h!);
    expect(run.status).toBe('cancelled');
    expect(run.error?.message).toContain('spend stays counted');
    expect(ledgerReleases(h!)[0]).toMatchObject({ status: 'aborted', abortReason: 'cancelled' });
    const plan = await h!.call('runPlan', { datasetId: ds.id, settings: SETTINGS });
    expect(plan.budget.releases).toBe(1);
    expect(plan.blocker).toBeNull();
  });

  it('an engine crash fails the run, not the app, and aborts the release', async () => {
    const { ds } = await ready('crash');
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    const run = await settle(h!);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/engine process ended unexpectedly \(exit code 7\)/i);
    expect(ledgerReleases(h!)[0]).toMatchObject({ status: 'aborted' });
    expect((await h!.call('appInfo', {})).mode).toBe('web');
  });

  it('the engine over its memory limit: the run fails saying so, the release is aborted and counted', async () => {
    process.env.RAP_STUDIO_ENGINE_HEAP_MB = '64';
    try {
      const { ds } = await ready('oom');
      await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
      await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
      const run = await settle(h!, 60_000);
      expect(run.status).toBe('failed');
      expect(run.error?.message).toMatch(/out of memory.*its limit is 64 MiB.*spend stays counted/i);
      expect(ledgerReleases(h!)[0]).toMatchObject({
        status: 'aborted',
        abortReason: 'engine process ran out of memory',
      });
      expect((await h!.call('appInfo', {})).mode).toBe('web');
    } finally {
      delete process.env.RAP_STUDIO_ENGINE_HEAP_MB;
    }
  });

  it('an export that cannot be written says so and leaves the release reserved; a retry commits', async () => {
    let target = '/nonexistent-dir/out.csv';
    const { ds } = await ready('done', {
      mode: 'electron',
      dialogs: { openFile: async () => null, saveFile: async () => target },
    });
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    const run = await settle(h!);
    await expect(h!.call('exportRun', { runId: run.runId })).rejects.toMatchObject({
      name: 'OutputNotWrittenError',
      message: expect.stringContaining('the file was NOT written'),
    });
    expect(ledgerReleases(h!)[0].status).toBe('reserved');
    target = join(h!.dir, 'out.csv');
    const out = await h!.call('exportRun', { runId: run.runId });
    expect(out).toMatchObject({ written: true, path: target, downloadUrl: null });
    expect(ledgerReleases(h!)[0].status).toBe('committed');
  });

  it('desktop app: openDataset opens only a path the file dialog returned', async () => {
    await ready('done', {
      mode: 'electron',
      dialogs: { openFile: async () => null, saveFile: async () => null },
    });
    const other = h!.upload('other.csv', sampleCsv());
    await expect(h!.call('openDataset', { path: other })).rejects.toThrow(
      /only a file chosen in the file dialog/,
    );
    await expect(h!.call('openDataset', { path: '/etc/passwd' })).rejects.toThrow(/only a file chosen/);
  });

  it('an export never replaces a file: not the input, not an existing manifest', async () => {
    let target = '';
    const { ds, path: input } = await ready('done', {
      mode: 'electron',
      dialogs: { openFile: async () => null, saveFile: async () => target },
    });
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    const run = await settle(h!);
    const before = readFileSync(input, 'utf8');
    target = input;
    await expect(h!.call('exportRun', { runId: run.runId })).rejects.toThrow(
      /already exists: an export never replaces a file/,
    );
    expect(readFileSync(input, 'utf8')).toBe(before);
    target = join(h!.dir, 'taken.csv');
    writeFileSync(join(h!.dir, 'taken.manifest.json'), '{"mine":true}');
    await expect(h!.call('exportRun', { runId: run.runId })).rejects.toThrow(
      /taken\.manifest\.json already exists/,
    );
    expect(existsSync(target)).toBe(false); // the CSV written before the manifest failed is removed
    expect(ledgerReleases(h!)[0].status).toBe('reserved');
    target = join(h!.dir, 'free.csv');
    expect(await h!.call('exportRun', { runId: run.runId })).toMatchObject({ written: true, path: target });
  });

  it('a finished release waits in the result store; discarding it says the budget stays spent', async () => {
    const { ds } = await ready();
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    const run = await settle(h!);
    expect((await h!.call('pendingReleases', {})).map((p) => p.releaseId)).toEqual([run.releaseId]);
    const out = await h!.call('discardRun', { runId: run.runId, confirm: 'discard' });
    expect(out.message).toMatch(/discarded\. Its privacy budget stays spent/);
    expect(await h!.call('pendingReleases', {})).toEqual([]);
    expect(ledgerReleases(h!)[0]).toMatchObject({
      status: 'aborted',
      abortReason: 'output discarded by the curator',
    });
    await expect(h!.call('exportRun', { runId: run.runId })).rejects.toThrow(/has not finished/);
  });

  it('a cancelled save dialog writes nothing', async () => {
    const { ds } = await ready('done', {
      mode: 'electron',
      dialogs: { openFile: async () => null, saveFile: async () => null },
    });
    await h!.call('setCap', { datasetId: ds.id, epsilon: '3' });
    await h!.call('startRun', { datasetId: ds.id, settings: SETTINGS });
    const run = await settle(h!);
    expect(await h!.call('exportRun', { runId: run.runId })).toEqual({ written: false, reason: 'cancelled' });
    expect(ledgerReleases(h!)[0].status).toBe('reserved');
  });
});
