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
import { InputError } from '../core/errors.ts';
import type { Ledger } from '../core/ledger/ledger.ts';
import { manifestPathFor, releaseManifest } from '../core/release/manifest.ts';
import { outputNotWritten } from '../core/release/messages.ts';
import { writeAndCommit } from '../core/release/release.ts';
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

/**
 * An insecure-seed run is never exported as a release: its file says so in its name (whatever
 * name is asked for), and its manifest carries `notARelease`.
 */
export function defaultExportName(run: RunRecord): string {
  return `${run.dataset.fileName.replace(/\.[^.]*$/, '')}-synthetic.csv`;
}

function exportName(run: RunRecord, asked: string | undefined): string {
  const name = safeFileName(asked ?? defaultExportName(run));
  if (run.prepared.spec.noise.mode !== 'insecure-seed') return name;
  return name.replace(/\.csv$/i, '-insecure-seed-NOT-A-RELEASE.csv');
}

async function destination(
  ctx: ServiceContext,
  run: RunRecord,
  fileName: string | undefined,
): Promise<string | null> {
  const name = exportName(run, fileName);
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
  const manifestPath = manifestPathFor(path);
  const { finished } = state;
  const { csv } = await writeAndCommit(ledger, finished, {
    voice: 'app',
    csvPath: path,
    sidecars: [
      {
        what: 'release manifest',
        path: manifestPath,
        removeCsvIfUnwritten: true,
        content: (written) => releaseManifest(finished, written, run.dataset.fileName),
      },
    ],
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
