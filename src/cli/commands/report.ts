/**
 * `rap-studio report RELEASE_ID`: draws a release's two HTML reports again — the public one from
 * its manifest, the private one from the report data kept with the release (the CLI's
 * NAME.REPORT.private.json, or the app's result store beside the ledger). Reads no private data
 * and spends nothing; never replaces an existing file.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { Ledger } from '../../core/ledger/ledger.ts';
import { defaultLedgerPath } from '../../core/ledger/paths.ts';
import type { ReleaseRecord } from '../../core/ledger/types.ts';
import { manifestPathFor } from '../../core/release/manifest.ts';
import {
  REPORT_DATA_FORMAT,
  type ReportData,
  reportPathsFor,
  writeReleaseReports,
} from '../../core/release/report/index.ts';
import { findRelease } from '../release-id.ts';

interface ReportFlags {
  ledger?: string;
  outDir?: string;
  reportJson?: string;
  manifest?: string;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The kept report data: the given file, the CLI's JSON report beside the CSV, or the app's store. */
function reportData(release: ReleaseRecord, ledgerFile: string, given?: string): ReportData | undefined {
  const candidates = [
    ...(given ? [given] : []),
    ...(release.outputPath ? [`${release.outputPath.replace(/\.csv$/i, '')}.REPORT.private.json`] : []),
    path.join(path.dirname(ledgerFile), 'results', release.id, 'release.json'),
  ];
  for (const file of candidates) {
    const j = readJson(file);
    const d = (j?.details ?? j?.reportData) as ReportData | undefined;
    if (d?.format === REPORT_DATA_FORMAT && d.releaseId === release.id) return d;
  }
  return undefined;
}

async function reportCommand(id: string, flags: ReportFlags): Promise<void> {
  const ledgerFile = flags.ledger ?? defaultLedgerPath();
  const ledger = Ledger.open(ledgerFile, { onWarning: (m) => process.stderr.write(`warning: ${m}\n`) });
  let release: ReleaseRecord;
  try {
    release = findRelease(ledger, id);
  } finally {
    ledger.close();
  }
  if (release.status !== 'committed' || !release.outputPath) {
    throw new InputError(
      `Release ${release.id} is ${release.status}${release.status === 'committed' ? ' without a recorded output path' : ''}: ` +
        'only a committed release written to a file has reports.',
    );
  }
  const data = reportData(release, ledgerFile, flags.reportJson);
  if (!data) {
    throw new InputError(
      `No private report is kept for release ${release.id}: looked for ${release.outputPath.replace(/\.csv$/i, '')}.REPORT.private.json ` +
        "and the app's result store beside the ledger. Give the private JSON report with --report-json FILE.",
    );
  }
  const manifestPath = flags.manifest ?? manifestPathFor(release.outputPath);
  if (!existsSync(manifestPath)) {
    throw new InputError(`The release manifest ${manifestPath} is not there: give it with --manifest FILE.`, {
      file: manifestPath,
    });
  }
  const csvName = path.basename(release.outputPath);
  const dir = flags.outDir ? path.resolve(flags.outDir) : path.dirname(release.outputPath);
  const paths = reportPathsFor(path.join(dir, csvName));
  const taken = [paths.publicHtml, paths.privateHtml].filter((f) => existsSync(f));
  if (taken.length > 0) {
    throw new InputError(
      `${taken.join(' and ')} exist${taken.length === 1 ? 's' : ''} already: a report never replaces a file. ` +
        'Choose another folder with --out-dir DIR.',
      { file: taken[0] },
    );
  }
  try {
    await writeReleaseReports(paths, manifestPath, data, { exclusive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new InputError(
        `${paths.publicHtml} or ${paths.privateHtml} exists already: a report never replaces a file. ` +
          'Choose another folder with --out-dir DIR.',
      );
    }
    throw err;
  }
  process.stdout.write(
    `reports of release ${release.id}: ${paths.publicHtml} (public); ${paths.privateHtml} (private, yours only)\n`,
  );
}

export function register(program: Command): void {
  program
    .command('report')
    .description(
      "draw a release's HTML reports again (public: from its manifest; private: from its kept report)",
    )
    .argument('<release-id>', 'release id (or a unique prefix of it)')
    .option('--ledger <path>', `privacy budget ledger; default ${defaultLedgerPath()}`)
    .option('--out-dir <dir>', 'where to write the two HTML files; default beside the released CSV')
    .option('--report-json <file>', "the release's private JSON report; default beside the released CSV")
    .option('--manifest <file>', "the release's manifest; default beside the released CSV")
    .action((id: string, flags: ReportFlags) => reportCommand(id, flags));
}
