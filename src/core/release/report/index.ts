/**
 * The two HTML reports of a release, written beside its CSV by `synth`, `rap-studio report` and
 * the app's Export step alike:
 * - NAME.report.html (public): rendered from the manifest file alone (public-html.ts);
 * - NAME.REPORT.private.html (0600, the curator's only): fidelity, errors, merges, timings, the
 *   overall score (private-html.ts, from ReportData, data.ts).
 */
import { createHash } from 'node:crypto';
import { link, open, readFile, unlink } from 'node:fs/promises';
import { tempPathBeside, writeFileAtomic } from '../../data/atomic-write.ts';
import { releasedStem } from '../data-package.ts';
import { buildReportData, type ReportData, type ReportInput } from './data.ts';
import { renderPrivateReport } from './private-html.ts';
import { type Manifest, renderPublicReport } from './public-html.ts';

export { buildReportData, REPORT_DATA_FORMAT, type ReportData, SCORE_DEFINITION } from './data.ts';
export { renderPrivateReport } from './private-html.ts';
export { renderPublicReport } from './public-html.ts';

export interface ReportPaths {
  readonly publicHtml: string;
  readonly privateHtml: string;
}

/** `<csv without .csv>.report.html` and `<csv without .csv>.REPORT.private.html`. */
export function reportPathsFor(csvPath: string): ReportPaths {
  const stem = releasedStem(csvPath);
  return { publicHtml: `${stem}.report.html`, privateHtml: `${stem}.REPORT.private.html` };
}

/** The public report of a manifest as written (its bytes give the manifest's SHA-256). */
export function publicReportOf(manifestText: string): string {
  const sha = createHash('sha256').update(manifestText).digest('hex');
  return renderPublicReport(JSON.parse(manifestText) as Manifest, sha);
}

/** Creates `dest` only if nothing is there (temp file, fsync, hard link: EEXIST rather than replace). */
async function createExclusive(dest: string, text: string, mode: number): Promise<void> {
  const temp = tempPathBeside(dest);
  try {
    const h = await open(temp, 'wx', mode);
    try {
      await h.writeFile(text);
      await h.sync();
    } finally {
      await h.close();
    }
    await link(temp, dest);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Writes both reports: the public one from the manifest file at `manifestPath`, the private one
 * (0600) from `data`. `exclusive`: never replace an existing file (EEXIST is the caller's).
 */
export async function writeReleaseReports(
  paths: ReportPaths,
  manifestPath: string,
  data: ReportData,
  opts: { readonly exclusive?: boolean } = {},
): Promise<ReportPaths> {
  const publicHtml = publicReportOf(await readFile(manifestPath, 'utf8'));
  const privateHtml = renderPrivateReport(data);
  const write = (file: string, text: string, mode: number) =>
    opts.exclusive ? createExclusive(file, text, mode) : writeFileAtomic(file, text, { mode });
  await write(paths.publicHtml, publicHtml, 0o644);
  await write(paths.privateHtml, privateHtml, 0o600);
  return paths;
}

/**
 * The CLI's reports, after the release is committed: the report data is kept in the private JSON
 * report (rewritten 0600, `details`), so `rap-studio report RELEASE_ID` can draw it again, and
 * both HTML reports are written beside the CSV.
 */
export async function writeReportsBeside(
  f: ReportInput & { readonly spec: { readonly source: { readonly path: string } } },
  files: {
    readonly csvPath: string;
    readonly manifestPath: string;
    readonly reportJsonPath: string;
    /** Replace existing report files (the CLI's --force); else an existing file is left alone (EEXIST). */
    readonly replace?: boolean;
  },
): Promise<ReportPaths> {
  const manifest = JSON.parse(await readFile(files.manifestPath, 'utf8')) as Record<string, unknown>;
  const data = await buildReportData(f, f.spec.source.path, files.csvPath, manifest);
  const json = JSON.parse(await readFile(files.reportJsonPath, 'utf8')) as Record<string, unknown>;
  await writeFileAtomic(files.reportJsonPath, `${JSON.stringify({ ...json, details: data }, null, 2)}\n`, {
    mode: 0o600,
  });
  return writeReleaseReports(reportPathsFor(files.csvPath), files.manifestPath, data, {
    exclusive: files.replace !== true,
  });
}
