/**
 * The Export step: the release's synthetic CSV — decoded once when the run finished and kept in
 * the result store (finished-release-store.ts) — copied to where the curator chose, with a release manifest
 * beside it, then the ledger commits the release with the CSV's SHA-256. A write failure leaves
 * the release reserved (its spend counted) and says the file was not written; the curator can
 * export again.
 *
 * One export at a time per release, and never over an existing file: a second export of the
 * same release while one is under way gets the first one's outcome (one file, whose hash the
 * ledger holds); the CSV and the manifest are created exclusively (a temp file hard-linked into
 * place, which fails if the name exists), so an export never replaces the input, an existing
 * manifest, or a file another export is writing.
 *
 * The manifest is public: parameters, ρ/ε/δ, the ledger release id, the ledger's id and head, and
 * hashes. The error metrics are NOT in it (they compare with the exact private answers).
 */
import { constants, existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InputError } from '../core/errors.ts';
import { manifestFields as coreManifestFields } from '../core/release/manifest.ts';
import { outputNotWritten } from '../core/release/messages.ts';
import {
  type OutputFormat,
  outputColumnsProblem,
  outputFormatOf,
  releaseFormatFor,
} from '../core/release/output-format.ts';
import { PendingWrites, pendingDirFor } from '../core/release/pending-writes.ts';
import { publish } from '../core/release/publish.ts';
import type { Finished, LedgerPort } from '../core/release/release.ts';
import {
  REPORT_DATA_FORMAT,
  type ReportData,
  reportPathsFor,
  writeReleaseReports,
} from '../core/release/report/index.ts';
import { exportOutputs } from '../core/release/targets.ts';
import type { ExportOutcome, ExportView } from '../shared/api.ts';
import { defaultExportName } from '../shared/export-name.ts';
import type { ResultStore, StoredRelease } from './finished-release-store.ts';
import type { ServiceContext } from './service-context.ts';

export const MANIFEST_FORMAT = 'rap-studio-release-manifest';

const EXPORT_FILTERS: readonly { name: string; extensions: string[] }[] = [
  { name: 'CSV', extensions: ['csv'] },
  { name: 'Parquet', extensions: ['parquet'] },
  { name: 'Excel workbook', extensions: ['xlsx'] },
  { name: 'SPSS data file', extensions: ['sav'] },
  { name: 'Stata data file', extensions: ['dta'] },
];

function rank(filter: { readonly extensions: readonly string[] }, name: string): number {
  return filter.extensions[0] === outputFormatOf(name) ? 0 : 1;
}

/**
 * A file name the export may use: its extension picks the format (.csv, .parquet, .xlsx, .sav, .dta); a name
 * with none of these gets `format`'s (the input's, where a writer exists: output-format.ts).
 */
function safeFileName(name: string, format: OutputFormat): string {
  const clean =
    name
      .replace(/[^\w.\- ]/g, '_')
      .replace(/^\.+/, '')
      .slice(0, 120) || `synthetic.${format}`;
  return outputFormatOf(clean) ? clean : `${clean}.${format}`;
}

export { defaultExportName };

/** The manifest's fields fixed when the run finishes (stored with the release): see core/release/manifest.ts. */
export function manifestFields(
  run: { readonly releaseId: string; readonly datasetName: string },
  f: Finished,
): Record<string, unknown> {
  return { ...coreManifestFields(f, run.datasetName), releaseId: run.releaseId };
}

function exportName(stored: StoredRelease, asked: string | undefined): string {
  return safeFileName(
    asked ?? defaultExportName(stored.run.datasetName),
    releaseFormatFor(stored.run.datasetName),
  );
}

/**
 * An insecure-seed run is not a release: anyone who knows the seed can remove its noise. The app
 * never exports one as a release (the Export step's button is disabled with this reason; this is
 * the service's own refusal, for any caller). Its budget stays spent; Discard ends it in the
 * ledger. The CLI still writes seeded runs for tests and benchmarks, marked `notARelease` in the
 * manifest.
 */
export function seededNotExportable(releaseId: string): InputError {
  return new InputError(
    `Release ${releaseId} ran with an insecure seed: anyone who knows the seed can remove its noise, so it is ` +
      'NOT a differentially private release and the app does not export it. Discard it (its budget stays spent) ' +
      'and run again without a seed.',
  );
}

async function destination(
  ctx: ServiceContext,
  stored: StoredRelease,
  fileName: string | undefined,
): Promise<string | null> {
  const name = exportName(stored, fileName);
  if (ctx.mode === 'web') {
    const dir = join(ctx.workDir, 'exports', stored.run.runId);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      // A read-only or full export folder fails here, before any byte is written: say so.
      throw outputNotWritten('app', 'synthetic data', join(dir, name), stored.releaseId, err);
    }
    return join(dir, name);
  }
  if (!ctx.dialogs) throw new InputError('No save dialog is available in this mode.');
  return ctx.dialogs.saveFile({
    title: 'Export synthetic data',
    defaultName: name,
    // The default name's format first; the others can be chosen in the dialog.
    filters: [...EXPORT_FILTERS].sort((a, b) => rank(a, name) - rank(b, name)),
  });
}

/** The stored release's report data, when it has some. */
export function reportDataOf(stored: StoredRelease): ReportData | null {
  const d = stored.reportData as ReportData | undefined;
  return d?.format === REPORT_DATA_FORMAT ? d : null;
}

/**
 * The two HTML reports beside the exported CSV (public from the manifest just written; private
 * 0600), never over a file. The CSV and manifest are written and paid for: a report that cannot
 * be written is left out (null) rather than failing the export; `rap-studio report` draws it.
 */
async function writeReports(
  ctx: ServiceContext,
  stored: StoredRelease,
  csvPath: string,
  manifestPath: string,
): Promise<ExportView['reports']> {
  const data = reportDataOf(stored);
  if (!data) return null;
  try {
    const paths = await writeReleaseReports(reportPathsFor(csvPath), manifestPath, data, { exclusive: true });
    const offer = (p: string) => (ctx.offerDownload ? ctx.offerDownload(p, basename(p)) : null);
    return {
      publicPath: paths.publicHtml,
      privatePath: paths.privateHtml,
      publicUrl: offer(paths.publicHtml),
      privateUrl: offer(paths.privateHtml),
    };
  } catch (err) {
    ctx.log?.(`export of ${stored.releaseId}: reports not written (${(err as Error).message})`);
    return null;
  }
}

/**
 * An export asked for again. Web mode's download links live in the host's memory and its export
 * folder in the work folder, both gone after a restart: the files are offered again from the
 * result store, which keeps the CSV (the bytes the ledger's hash names) and the manifest as
 * exported. Elsewhere the exported files are where the curator saved them.
 */
function offeredAgain(ctx: ServiceContext, store: ResultStore, exported: ExportView): ExportView {
  if (!ctx.offerDownload) return exported;
  const manifest = existsSync(store.manifestPath(exported.releaseId))
    ? store.manifestPath(exported.releaseId)
    : existsSync(exported.manifestPath)
      ? exported.manifestPath
      : null;
  // The store keeps the release as CSV: a Parquet, Excel, SPSS or Stata export is offered from where it was
  // written, while it is there (the stored CSV under its name would not be the bytes the ledger names).
  const csvExport = (outputFormatOf(exported.fileName) ?? 'csv') === 'csv';
  const data = csvExport
    ? store.csvPath(exported.releaseId)
    : existsSync(exported.path)
      ? exported.path
      : null;
  return {
    ...exported,
    downloadUrl: data === null ? null : ctx.offerDownload(data, exported.fileName),
    manifestUrl: manifest === null ? null : ctx.offerDownload(manifest, basename(exported.manifestPath)),
  };
}

/** Exports in flight, by release: a second request waits for the first and gets its outcome. */
const inFlight = new Map<string, Promise<ExportOutcome>>();

/** Stage 5 of the release (write & commit) for a release kept in the result store. */
export function exportStored(
  ctx: ServiceContext,
  ledger: LedgerPort,
  store: ResultStore,
  stored: StoredRelease,
  fileName?: string,
): Promise<ExportOutcome> {
  if (stored.run.seedMode === 'insecure-seed') return Promise.reject(seededNotExportable(stored.releaseId));
  const running = inFlight.get(stored.releaseId);
  if (running) return running;
  const p = exportOnce(ctx, ledger, store, stored, fileName).finally(() => inFlight.delete(stored.releaseId));
  inFlight.set(stored.releaseId, p);
  return p;
}

async function exportOnce(
  ctx: ServiceContext,
  ledger: LedgerPort,
  store: ResultStore,
  given: StoredRelease,
  fileName: string | undefined,
): Promise<ExportOutcome> {
  // Re-read: an export that finished a moment ago has recorded where it went.
  const stored = (await store.get(given.releaseId)) ?? given;
  if (stored.exported) return { written: true, ...offeredAgain(ctx, store, stored.exported) };
  const path = await destination(ctx, stored, fileName);
  if (path === null) return { written: false, reason: 'cancelled' };
  const { releaseId } = stored;
  // A column name the chosen format cannot hold (SPSS, Stata): said before any byte is written.
  const problem = outputColumnsProblem(path, stored.csv.header);
  if (problem) {
    throw new InputError(
      `${basename(path)}: ${problem}. The released columns keep their names: export as .csv, .parquet or ` +
        `.xlsx instead. Release ${releaseId} stays reserved until it is exported.`,
      { file: path },
    );
  }
  // The one stage 5 (core/release/publish.ts), the CLI's too: the ledger asked first, each file
  // created exclusively, the ledger commit last; a failure leaves nothing at the chosen name.
  const published = await publish(
    ledger,
    {
      releaseId,
      voice: 'app',
      fillCsv: async (temp) => {
        await copyFile(store.csvPath(releaseId), temp, constants.COPYFILE_EXCL);
        return { rows: stored.csv.rows, header: stored.csv.header };
      },
      manifestFields: stored.manifest,
      report: null,
    },
    exportOutputs(path),
    new PendingWrites(pendingDirFor(ctx.ledgerPath)),
  );
  const { csv, manifestPath } = published;
  // Committed: a report that cannot be written is left out (the release is paid for and written).
  const reports = await writeReports(ctx, stored, path, manifestPath);
  // Kept beside the stored CSV (best effort): after a restart web mode offers both again.
  await readFile(manifestPath, 'utf8')
    .then((text) => store.keepManifest(releaseId, text))
    .catch(() => undefined);
  const view: ExportView = {
    releaseId,
    fileName: basename(path),
    path,
    manifestPath,
    sha256: csv.sha256,
    rows: csv.rows,
    downloadUrl: ctx.offerDownload ? ctx.offerDownload(path, basename(path)) : null,
    manifestUrl: ctx.offerDownload ? ctx.offerDownload(manifestPath, basename(manifestPath)) : null,
    reports,
  };
  await store.markExported(releaseId, view).catch(() => undefined);
  return { written: true, ...view };
}
