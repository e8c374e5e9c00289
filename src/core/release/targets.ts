/**
 * Where a release's files go (the CSV, its manifest and Data Package, the private report), checked BEFORE the budget is reserved: a release whose output
 * cannot be written must cost nothing. Refused (InputError, CLI exit 2): a folder that is
 * missing, not a folder or not writable; an output that is a directory; an output that is the
 * private input (also through another name: same file on disk); two outputs at one path; and an
 * existing file — unless the curator passes `replace` (the CLI's --force), which still never
 * replaces the input or the CSV of a committed release (the ledger holds its hash: replacing it
 * would leave the ledger pointing at a file that no longer holds the release).
 */
import { open, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { tempPathBeside } from '../data/atomic-write.ts';
import { fingerprintFile } from '../data/fingerprint.ts';
import { InputError } from '../errors.ts';
import { dataPackagePathFor } from './data-package.ts';
import { manifestPathFor } from './manifest.ts';
import { outputFormatOf, requireOutputFormat } from './output-format.ts';

/** One output of a release and what it is (messages name it). */
export interface OutputFile {
  readonly what:
    | 'synthetic CSV'
    | 'synthetic data'
    | 'release manifest'
    | 'data package'
    | 'private report'
    | 'public HTML report'
    | 'private HTML report';
  /** Absolute. */
  readonly path: string;
}

/** The release's outputs, checked: the CSV, its manifest, and (CLI) the private report. */
export interface CheckedOutputs {
  readonly csv: OutputFile;
  readonly manifest: OutputFile;
  /** The Data Package descriptor (data-package.ts). */
  readonly dataPackage: OutputFile;
  readonly report: OutputFile | null;
  /** Existing files at these paths may be replaced (checked: none is the input or a release). */
  readonly replace: boolean;
}

export interface OutputRequest {
  /** The private input file. */
  readonly input: string;
  readonly csv: string;
  readonly report?: string;
  readonly replace?: boolean;
  /** Files written after the commit (the CLI's HTML reports): checked by the same rules. */
  readonly later?: readonly OutputFile[];
  /** Whether a file with this SHA-256 or at this path is a committed release's CSV (the ledger's). */
  readonly isCommittedOutput?: (file: { readonly path: string; readonly sha256: string }) => boolean;
}

type Stats = Awaited<ReturnType<typeof stat>>;

async function statOrNull(file: string): Promise<Stats | null> {
  try {
    return await stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function refuse(out: OutputFile, what: string, fix: string): never {
  throw new InputError(`${out.what} ${out.path}: ${what}; ${fix}. Nothing was reserved.`, {
    file: out.path,
  });
}

/** The folder must exist, be a folder and be writable (a temp file is created there). */
async function checkFolder(out: OutputFile): Promise<void> {
  const dir = path.dirname(out.path);
  const s = await statOrNull(dir);
  if (!s) refuse(out, `the folder ${dir} does not exist`, 'create it or choose another path');
  if (!s.isDirectory()) refuse(out, `${dir} is not a folder`, 'choose another path');
  // Tried, not inferred from mode bits (root, ACLs, read-only mounts and immutable folders all
  // answer differently): a probe file is created and removed.
  const probe = tempPathBeside(out.path);
  try {
    const h = await open(probe, 'wx', 0o600);
    await h.close();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    refuse(out, `the folder ${dir} is not writable (${code})`, 'choose a folder you can write to');
  } finally {
    await rm(probe, { force: true });
  }
}

/** The same file on disk (device and inode), also through a link or another spelling. */
function sameFile(a: Stats | null, b: Stats | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}

/** The synthetic table's output (messages say "synthetic CSV" for a CSV, "synthetic data" otherwise). */
function releasedFile(file: string, format: string): OutputFile {
  return { what: format === 'csv' ? 'synthetic CSV' : 'synthetic data', path: file };
}

/** Checks every output path; throws an InputError naming the path and the fix. */
export async function checkOutputs(req: OutputRequest): Promise<CheckedOutputs> {
  const csvPath = path.resolve(req.csv);
  const csv = releasedFile(csvPath, outputFormatOf(csvPath) ?? 'csv');
  const manifest: OutputFile = { what: 'release manifest', path: manifestPathFor(csvPath) };
  const dataPackage: OutputFile = { what: 'data package', path: dataPackagePathFor(csvPath) };
  const report: OutputFile | null =
    req.report === undefined ? null : { what: 'private report', path: path.resolve(req.report) };
  const later = (req.later ?? []).map((o) => ({ ...o, path: path.resolve(o.path) }));
  const outputs = [csv, manifest, dataPackage, ...(report ? [report] : []), ...later];
  const input = path.resolve(req.input);
  const inputStats = await statOrNull(input);
  const inputReal = inputStats ? await realpath(input) : input;
  const seen = new Map<string, OutputFile>();
  // Outputs usually share a folder: each folder is checked (and its real path found) once.
  const folders = new Map<string, Promise<string>>();
  const realFolder = (out: OutputFile) => {
    const dir = path.dirname(out.path);
    let real = folders.get(dir);
    if (!real) folders.set(dir, (real = checkFolder(out).then(() => realpath(dir))));
    return real;
  };
  for (const out of outputs) {
    const real = path.join(await realFolder(out), path.basename(out.path));
    const other = seen.get(real);
    if (other) refuse(out, `it is also the ${other.what}'s path`, 'give each output its own path');
    seen.set(real, out);
    const s = await statOrNull(out.path);
    if (real === inputReal || sameFile(s, inputStats)) {
      refuse(
        out,
        'it is the private input file',
        'write the release elsewhere (the input is never replaced)',
      );
    }
    if (!s) continue;
    if (s.isDirectory()) refuse(out, 'it is a folder', 'give a file path');
    if (!req.replace) {
      refuse(out, 'the file already exists', 'choose another path, or pass --force to replace it');
    }
    if (!s.isFile()) refuse(out, 'it is not a regular file', 'choose another path');
    const sha256 = await fingerprintFile(out.path);
    if (req.isCommittedOutput?.({ path: out.path, sha256 })) {
      refuse(
        out,
        "it holds a committed release's CSV (the ledger records its hash)",
        'choose another path: a released file is never replaced, also not with --force',
      );
    }
  }
  // The released file's format follows its name (.csv, .parquet, .xlsx): any other is refused
  // here, after the path itself is checked (a folder is named as a folder).
  requireOutputFormat(csvPath);
  return { csv, manifest, dataPackage, report, replace: req.replace === true };
}

/**
 * The app's export: the curator chose the path in a save dialog (or web mode's private export
 * folder) after the release was paid for, so nothing is refused up front; the files are still
 * created exclusively (publish.ts), so an export never replaces anything.
 */
export function exportOutputs(csvPath: string): CheckedOutputs {
  const csv = path.resolve(csvPath);
  return {
    csv: releasedFile(csv, outputFormatOf(csv) ?? 'csv'),
    manifest: { what: 'release manifest', path: manifestPathFor(csv) },
    dataPackage: { what: 'data package', path: dataPackagePathFor(csv) },
    report: null,
    replace: false,
  };
}
