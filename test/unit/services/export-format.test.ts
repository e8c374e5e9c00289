/**
 * The app's export keeps the input's format where a writer exists: a release of a Parquet file
 * is exported as Parquet by default, of an SPSS file as SPSS (a .csv input as CSV; a name the
 * curator gives with .xlsx as Excel; a .dta name refused, before any byte is written, where a
 * column's name is not one Stata takes), and the exported file reads back to the release's rows (the stored CSV, whose rows
 * the ledger's release holds), with the manifest naming its format, media type and SHA-256. After
 * a restart a Parquet export is offered from where it was written, never the stored CSV under its
 * name.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../src/core/data/csv.ts';
import { savBytes } from '../../../src/core/data/formats/write-sav.ts';
import { withDuckDb } from '../../../src/core/sql/duckdb.ts';
import { defaultExportName } from '../../../src/services/exporter.ts';
import { finishedSampleRun, sampleCsv, webApp } from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rap-export-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = (n: number, ledger = 'ledger.sqlite') => webApp(dir, n, ledger);

async function records(file: string): Promise<string[][]> {
  const out: string[][] = [];
  await readCsvRecords(file, (fields) => out.push(fields));
  return out;
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe("the app's export format", () => {
  it('defaults to the input format where a writer exists, CSV otherwise', () => {
    expect(defaultExportName('shop.parquet')).toBe('shop-synthetic.parquet');
    expect(defaultExportName('shop.xlsx')).toBe('shop-synthetic.xlsx');
    expect(defaultExportName('shop.sav')).toBe('shop-synthetic.sav');
    expect(defaultExportName('shop.DTA')).toBe('shop-synthetic.dta');
    for (const ext of ['csv', 'sas7bdat'])
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
    const run = await finishedSampleRun(first, upload);
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

  it('an SPSS input is exported as SPSS holding the release rows', async () => {
    // Its own ledger, as below: the same table in another format reads as a copy to the ledger.
    const app = start(5, 'spss.sqlite');
    const upload = join(app.workDir, 'uploads', 'shop.sav');
    const [, ...rows] = sampleCsv()
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    writeFileSync(
      upload,
      savBytes(
        [
          { name: 'color', type: 'string' },
          { name: 'size', type: 'string' },
          { name: 'age', type: 'numeric' },
        ],
        rows.map(([color, size, age]) => [color, size, Number(age)]),
        { compressed: true },
      ),
    );
    const run = await finishedSampleRun(app, upload);
    const exported = await app.call('exportRun', { runId: run.runId });
    if (!exported.written) throw new Error('not written');
    expect(basename(exported.path)).toBe('shop-synthetic.sav');
    expect(exported.sha256).toBe(sha(exported.path));
    const back = await records(exported.path);
    expect(back[0]).toEqual(['color', 'size', 'age']);
    expect(back.length - 1).toBe(exported.rows);
    const manifest = JSON.parse(readFileSync(exported.manifestPath, 'utf8'));
    expect(manifest.output).toMatchObject({
      file: 'shop-synthetic.sav',
      format: 'sav',
      sha256: exported.sha256,
    });
  });

  it('a column name Stata cannot hold: the .dta export is refused naming it, nothing written; .csv exports', async () => {
    const app = start(6, 'names.sqlite');
    const upload = join(app.workDir, 'uploads', 'named.csv');
    const lines = sampleCsv().trim().split('\n');
    writeFileSync(upload, `${lines.map((l, i) => `${l},${i === 0 ? 'in' : i % 2}`).join('\n')}\n`);
    const run = await finishedSampleRun(app, upload);
    await expect(app.call('exportRun', { runId: run.runId, fileName: 'named.dta' })).rejects.toThrow(
      /named\.dta: "in" is a reserved word in Stata.*export as \.csv, \.parquet or \.xlsx/,
    );
    expect(existsSync(join(app.workDir, 'exports', run.runId, 'named.dta'))).toBe(false);
    const exported = await app.call('exportRun', { runId: run.runId, fileName: 'named.csv' });
    if (!exported.written) throw new Error('not written');
    expect((await records(exported.path))[0]).toEqual(['color', 'size', 'age', 'in']);
  });

  it('a name the curator gives picks its format: .xlsx', async () => {
    // Its own ledger: the ledger would (rightly) take this CSV for a copy of the Parquet file above.
    const app = start(4, 'other.sqlite');
    const upload = join(app.workDir, 'uploads', 'shop.csv');
    writeFileSync(upload, sampleCsv());
    const run = await finishedSampleRun(app, upload);
    const exported = await app.call('exportRun', { runId: run.runId, fileName: 'mine.xlsx' });
    if (!exported.written) throw new Error('not written');
    expect(basename(exported.path)).toBe('mine.xlsx');
    expect((await records(exported.path)).length - 1).toBe(exported.rows);
    expect(JSON.parse(readFileSync(exported.manifestPath, 'utf8')).output.format).toBe('xlsx');
  });
});
