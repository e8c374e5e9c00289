/**
 * The app's export keeps the input's format where a writer exists: a release of a Parquet file
 * is exported as Parquet by default (a .csv input as CSV; a name the curator gives with .xlsx as
 * Excel), and the exported file reads back to the release's rows (the stored CSV, whose rows
 * the ledger's release holds), with the manifest naming its format, media type and SHA-256. After
 * a restart a Parquet export is offered from where it was written, never the stored CSV under its
 * name.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../src/core/data/csv.ts';
import { forkSpawner } from '../../../src/core/engine/process/client.ts';
import { withDuckDb } from '../../../src/core/sql/duckdb.ts';
import { dispatch } from '../../../src/services/dispatch.ts';
import { defaultExportName } from '../../../src/services/exporter.ts';
import { createServices } from '../../../src/services/services.ts';
import type { ApiArg, ApiMethod, ApiResult } from '../../../src/shared/api.ts';
import { isActiveStatus } from '../../../src/shared/constants.ts';
import { FAKE_CHILD, sampleCsv } from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rap-export-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(n: number, ledger = 'ledger.sqlite') {
  const workDir = join(dir, `work-${n}`);
  mkdirSync(join(workDir, 'uploads'), { recursive: true });
  const offered = new Map<string, string>();
  const services = createServices({
    mode: 'web',
    ledgerPath: join(dir, ledger),
    workDir,
    emit: () => {},
    offerDownload: (path, name) => {
      const url = `/download/${n}-${offered.size}-${name}`;
      offered.set(url, path);
      return url;
    },
    spawner: forkSpawner(FAKE_CHILD, { ...process.env, FAKE_ENGINE_MODE: 'done' }),
    log: () => {},
  });
  const call = <M extends ApiMethod>(m: M, arg: ApiArg<M>) =>
    dispatch(services, m, arg) as Promise<ApiResult<M>>;
  return { workDir, offered, call };
}

async function records(file: string): Promise<string[][]> {
  const out: string[][] = [];
  await readCsvRecords(file, (fields) => out.push(fields));
  return out;
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function finishedRun(app: ReturnType<typeof start>, upload: string) {
  const ds = await app.call('openDataset', { path: upload, header: 'yes' });
  await app.call('setWorkload', {
    datasetId: ds.id,
    role: 'main',
    thresholds: [{ features: ['color', 'size'], r: 2, weight: 1 }],
  });
  await app.call('setCap', { datasetId: ds.id, epsilon: '5' });
  await app.call('startRun', {
    datasetId: ds.id,
    settings: { epsilon: '1', rows: '10', rounds: '1', perRound: '5', mode: 'query' },
  });
  let run = await app.call('runState', {});
  for (let i = 0; run && isActiveStatus(run.status) && i < 400; i++) {
    await new Promise((r) => setTimeout(r, 50));
    run = await app.call('runState', {});
  }
  expect(run?.status).toBe('finished');
  return run!;
}

describe("the app's export format", () => {
  it('defaults to the input format where a writer exists, CSV otherwise', () => {
    expect(defaultExportName('shop.parquet')).toBe('shop-synthetic.parquet');
    expect(defaultExportName('shop.xlsx')).toBe('shop-synthetic.xlsx');
    for (const ext of ['csv', 'sav', 'dta', 'sas7bdat'])
      expect(defaultExportName(`shop.${ext}`)).toBe('shop-synthetic.csv');
  });

  it('a Parquet input is exported as Parquet holding the release rows; after a restart it is offered from where it was written', async () => {
    const first = start(1);
    const csv = join(dir, 'shop.csv');
    writeFileSync(csv, sampleCsv());
    const upload = join(first.workDir, 'uploads', 'shop.parquet');
    await withDuckDb(async (c) => {
      await c.run(`COPY (SELECT * FROM read_csv('${csv}', header = true)) TO '${upload}' (FORMAT parquet)`);
    });
    const run = await finishedRun(first, upload);
    const exported = await first.call('exportRun', { runId: run.runId });
    if (!exported.written) throw new Error('not written');
    expect(basename(exported.path)).toBe('shop-synthetic.parquet');
    expect(exported.sha256).toBe(sha(exported.path));
    const rows = await records(exported.path);
    expect(rows[0]).toEqual(['color', 'size', 'age']);
    expect(rows.length - 1).toBe(exported.rows);
    const manifest = JSON.parse(readFileSync(exported.manifestPath, 'utf8'));
    expect(manifest.output).toMatchObject({
      file: 'shop-synthetic.parquet',
      format: 'parquet',
      mediatype: 'application/vnd.apache.parquet',
      sha256: exported.sha256,
    });
    // The restart: offered from where it was written while it is there …
    const second = start(2);
    const again = await second.call('exportRun', { runId: run.runId });
    if (!again.written) throw new Error('not offered again');
    expect(second.offered.get(again.downloadUrl!)).toBe(exported.path);
    // … and not at all once it is gone (the store keeps the CSV, which is not these bytes).
    rmSync(first.workDir, { recursive: true, force: true });
    const third = start(3);
    const gone = await third.call('exportRun', { runId: run.runId });
    if (!gone.written) throw new Error('not offered again');
    expect(gone.downloadUrl).toBeNull();
  });

  it('a name the curator gives picks its format: .xlsx', async () => {
    // Its own ledger: the ledger would (rightly) take this CSV for a copy of the Parquet file above.
    const app = start(4, 'other.sqlite');
    const upload = join(app.workDir, 'uploads', 'shop.csv');
    writeFileSync(upload, sampleCsv());
    const run = await finishedRun(app, upload);
    const exported = await app.call('exportRun', { runId: run.runId, fileName: 'mine.xlsx' });
    if (!exported.written) throw new Error('not written');
    expect(basename(exported.path)).toBe('mine.xlsx');
    expect((await records(exported.path)).length - 1).toBe(exported.rows);
    expect(JSON.parse(readFileSync(exported.manifestPath, 'utf8')).output.format).toBe('xlsx');
  });
});
