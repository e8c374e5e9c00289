/**
 * The Export step: the rounded synthetic rows decoded to the input's columns, written atomically
 * as CSV with a release manifest JSON beside it, then the ledger commits the release with the
 * CSV's SHA-256. A write failure leaves the release reserved (its spend counted) and says the
 * file was not written; the curator can export again.
 *
 * The manifest is public: parameters, ρ/ε/δ, the ledger release id and hashes. The error
 * metrics are NOT in it (they compare with the exact private answers).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../core/data/atomic-write.ts';
import { writeCsv } from '../core/data/csv-write.ts';
import { decodedRows } from '../core/data/decode.ts';
import { describeSchemaOrigin } from '../core/data/schema.ts';
import { decodeRandom, OutputNotWrittenError, outputTable } from '../core/engine/process/release.ts';
import { InputError } from '../core/errors.ts';
import type { Ledger } from '../core/ledger/ledger.ts';
import { APP_VERSION } from '../core/version.ts';
import type { ExportOutcome, ExportView } from '../shared/api.ts';
import type { ServiceContext } from './context.ts';
import { type RunRecord, runView } from './runs.ts';

export const MANIFEST_FORMAT = 'rap-studio-release-manifest';

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function safeFileName(name: string): string {
  const clean =
    name
      .replace(/[^\w.\- ]/g, '_')
      .replace(/^\.+/, '')
      .slice(0, 120) || 'synthetic.csv';
  return /\.csv$/i.test(clean) ? clean : `${clean}.csv`;
}

export function defaultExportName(run: RunRecord): string {
  return `${run.dataset.fileName.replace(/\.[^.]*$/, '')}-synthetic.csv`;
}

function manifest(run: RunRecord, fileName: string, sha256: string, header: readonly string[]) {
  const { request, plan, options } = {
    request: run.prepared.request,
    plan: run.prepared.plan,
    options: run.prepared.options,
  };
  const result = run.result!;
  return {
    format: MANIFEST_FORMAT,
    version: 1,
    releaseId: run.releaseId,
    createdAt: new Date().toISOString(),
    appVersion: APP_VERSION,
    mechanism: request.mechanism,
    privacy: { epsilon: options.epsilon, delta: options.delta, rho: plan.rho, accounting: 'zCDP' },
    parameters: { ...request.params, mode: options.mode },
    seedMode: run.noise.mode,
    backend: result.report.backend,
    dataset: {
      name: run.dataset.fileName,
      sha256: run.prepared.facts.fingerprint,
      rows: run.prepared.facts.rows,
    },
    schema: {
      sha256: request.schema.hash,
      origin: request.schema.origin,
      note: describeSchemaOrigin(run.schema),
    },
    workload: { sha256: request.workload.hash, thresholds: run.workload.thresholds.length },
    output: { file: fileName, sha256, rows: result.synthetic.n, columns: header },
  };
}

function notWritten(what: string, file: string, releaseId: string, err: unknown): OutputNotWrittenError {
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new OutputNotWrittenError(
    `Could not write the ${what} to ${file} (${code}): the file was NOT written. ` +
      `Release ${releaseId} stays reserved and its privacy spend stays counted; ` +
      'choose another folder or free some space, then export again.',
  );
}

async function destination(
  ctx: ServiceContext,
  run: RunRecord,
  fileName: string | undefined,
): Promise<string | null> {
  const name = safeFileName(fileName ?? defaultExportName(run));
  if (ctx.mode === 'web') {
    const dir = join(ctx.workDir, 'exports', run.id);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      // A read-only or full export folder fails here, before any byte is written: say so.
      throw notWritten('synthetic data', join(dir, name), run.releaseId, err);
    }
    return join(dir, name);
  }
  if (!ctx.dialogs) throw new InputError('No save dialog is available in this mode.');
  return ctx.dialogs.saveFile({
    title: 'Export synthetic data',
    defaultName: name,
    filters: [{ name: 'CSV', extensions: ['csv'] }],
  });
}

export async function exportRun(
  ctx: ServiceContext,
  ledger: Ledger,
  run: RunRecord,
  fileName?: string,
): Promise<ExportOutcome> {
  if (run.exported) return { written: true, ...run.exported };
  if (run.status !== 'finished' || !run.result || !run.loaded) {
    throw new InputError(
      'This run has no synthetic data to export: it has not finished. Export a finished run.',
    );
  }
  const path = await destination(ctx, run, fileName);
  if (path === null) return { written: false, reason: 'cancelled' };
  const manifestPath = `${path.replace(/\.csv$/i, '')}.manifest.json`;
  const table = outputTable(run.loaded, run.result);
  const rows = decodedRows(table.schema, table.codes, run.result.synthetic.n, {
    random: decodeRandom(run.noise),
  });
  try {
    await writeCsv(path, table.header, rows);
  } catch (err) {
    throw notWritten('synthetic data', path, run.releaseId, err);
  }
  const sha256 = await sha256File(path);
  try {
    const text = `${JSON.stringify(manifest(run, basename(path), sha256, table.header), null, 2)}\n`;
    await writeFileAtomic(manifestPath, text);
  } catch (err) {
    await rm(path, { force: true });
    throw notWritten('release manifest', manifestPath, run.releaseId, err);
  }
  ledger.commit(run.releaseId, { sha256, path });
  const view: ExportView = {
    releaseId: run.releaseId,
    fileName: basename(path),
    path,
    manifestPath,
    sha256,
    rows: run.result.synthetic.n,
    downloadUrl: ctx.offerDownload ? ctx.offerDownload(path, basename(path)) : null,
    manifestUrl: ctx.offerDownload ? ctx.offerDownload(manifestPath, basename(manifestPath)) : null,
  };
  run.exported = view;
  run.status = 'exported';
  ctx.emit({ type: 'run-update', run: runView(run) });
  return { written: true, ...view };
}
