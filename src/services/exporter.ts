/**
 * The Export step: the rounded synthetic rows decoded to the input's columns, written atomically
 * as CSV with a release manifest JSON beside it, then the ledger commits the release with the
 * CSV's SHA-256. A write failure leaves the release reserved (its spend counted) and says the
 * file was not written; the curator can export again.
 *
 * The manifest is public: parameters, ρ/ε/δ, the ledger release id and hashes. The error
 * metrics are NOT in it (they compare with the exact private answers).
 */
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describeSchemaOrigin } from '../core/data/schema.ts';
import { InputError } from '../core/errors.ts';
import type { Ledger } from '../core/ledger/ledger.ts';
import { outputNotWritten } from '../core/release/messages.ts';
import type { WrittenCsv } from '../core/release/output.ts';
import { type Finished, writeAndCommit } from '../core/release/release.ts';
import { APP_VERSION } from '../core/version.ts';
import type { ExportOutcome, ExportView } from '../shared/api.ts';
import type { ServiceContext } from './context.ts';
import { type RunRecord, runView } from './runs.ts';

export const MANIFEST_FORMAT = 'rap-studio-release-manifest';

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

function manifest(run: RunRecord, f: Finished, csv: WrittenCsv) {
  const { request, plan, options } = f;
  return {
    format: MANIFEST_FORMAT,
    version: 1,
    releaseId: run.releaseId,
    createdAt: new Date().toISOString(),
    appVersion: APP_VERSION,
    mechanism: request.mechanism,
    privacy: { epsilon: options.epsilon, delta: options.delta, rho: plan.rho, accounting: 'zCDP' },
    parameters: { ...request.params, mode: options.mode },
    seedMode: f.spec.noise.mode,
    backend: f.result.report.backend,
    dataset: { name: run.dataset.fileName, sha256: f.facts.fingerprint, rows: f.facts.rows },
    schema: {
      sha256: request.schema.hash,
      origin: request.schema.origin,
      note: describeSchemaOrigin(f.spec.source.schema),
    },
    workload: { sha256: request.workload.hash, thresholds: f.spec.workload.thresholds.length },
    output: { file: basename(csv.path), sha256: csv.sha256, rows: csv.rows, columns: csv.header },
  };
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
      throw outputNotWritten('app', 'synthetic data', join(dir, name), run.releaseId, err);
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

/** Stage 5 of the release (write & commit), when the curator exports a finished run. */
export async function exportRun(
  ctx: ServiceContext,
  ledger: Ledger,
  run: RunRecord,
  fileName?: string,
): Promise<ExportOutcome> {
  const { state } = run;
  if (state.status === 'exported') return { written: true, ...state.exported };
  if (state.status !== 'finished') {
    throw new InputError(
      'This run has no synthetic data to export: it has not finished. Export a finished run.',
    );
  }
  const path = await destination(ctx, run, fileName);
  if (path === null) return { written: false, reason: 'cancelled' };
  const manifestPath = `${path.replace(/\.csv$/i, '')}.manifest.json`;
  const { finished } = state;
  const { csv } = await writeAndCommit(ledger, finished, {
    voice: 'app',
    csvPath: path,
    sidecar: {
      what: 'release manifest',
      path: manifestPath,
      removeCsvIfUnwritten: true,
      content: (written) => manifest(run, finished, written),
    },
  });
  const view: ExportView = {
    releaseId: run.releaseId,
    fileName: basename(path),
    path,
    manifestPath,
    sha256: csv.sha256,
    rows: csv.rows,
    downloadUrl: ctx.offerDownload ? ctx.offerDownload(path, basename(path)) : null,
    manifestUrl: ctx.offerDownload ? ctx.offerDownload(manifestPath, basename(manifestPath)) : null,
  };
  run.state = { status: 'exported', finished, exported: view };
  ctx.emit({ type: 'run-update', run: runView(run) });
  return { written: true, ...view };
}
