/**
 * The app's schema import takes a Frictionless Table Schema beside its own schema JSON: the fields
 * whose domain it states become declared columns (exact, free), the others stay as read and are
 * discovered privately at the release; the export writes the release's Data Package beside the CSV.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { releaseDataPackageJson } from '../../../src/core/release/data-package.ts';
import { type Harness, harness, sampleCsv, settle, startSampleRun } from './fixtures.ts';

let h: Harness | undefined;
const TABLE_SCHEMA = {
  fields: [
    {
      name: 'color',
      type: 'string',
      constraints: { enum: ['red', 'green', 'blue', 'violet'], required: true },
    },
    { name: 'size', type: 'string' },
    { name: 'age', type: 'integer' },
  ],
};

describe('importing a Table Schema in the app', () => {
  it('declares the stated fields, keeps the others for discovery, and the export writes a Data Package', async () => {
    h = harness();
    const ds = await h.call('openDataset', { path: h.upload('shop.csv', sampleCsv()), header: 'yes' });
    const view = await h.call('importSchema', {
      datasetId: ds.id,
      text: JSON.stringify(TABLE_SCHEMA),
      fileName: 'schema.json',
    });
    expect(view.schema.declaredColumns).toEqual(['color']);
    expect(view.schema.columns[0]).toMatchObject({
      name: 'color',
      categories: ['red', 'green', 'blue', 'violet'],
    });
    await startSampleRun(h, ds.id);
    const run = await settle(h);
    expect(run.status).toBe('finished');
    const out = await h.call('exportRun', { runId: run.runId });
    if (!out.written) throw new Error('not written');
    const manifest = JSON.parse(readFileSync(out.manifestPath, 'utf8'));
    expect(manifest.schema.columns.map((c: { domain: string }) => c.domain)).toEqual([
      'declared',
      'discovered privately',
      'discovered privately',
    ]);
    const dpPath = out.path.replace(/\.csv$/, '.datapackage.json');
    expect(existsSync(dpPath)).toBe(true);
    const dp = releaseDataPackageJson.parse(JSON.parse(readFileSync(dpPath, 'utf8')));
    expect(dp.resources[0].schema.fields[0].constraints?.enum).toEqual(['red', 'green', 'blue', 'violet']);
  });

  it('a field the table does not have is refused, naming it', async () => {
    h = harness();
    const ds = await h.call('openDataset', { path: h.upload('shop.csv', sampleCsv()), header: 'yes' });
    const text = JSON.stringify({ fields: [{ name: 'colour', constraints: { enum: ['red'] } }] });
    await expect(h.call('importSchema', { datasetId: ds.id, text, fileName: 'schema.json' })).rejects.toThrow(
      /schema\.json: field "colour" not in the table \(it has: color, size, age\)/,
    );
  });
});
