/**
 * The result store: a finished release, kept on disk until the curator exports or discards it.
 * A release's budget is spent when it is reserved; the output must survive a crash, a restart,
 * or a fourth run, or what was paid for is lost.
 *
 * One folder per release, `<dir>/<releaseId>/` (0700), written whole or not at all (a temp
 * folder with every file fsynced, then renamed into place and the parent fsynced):
 * - `synthetic.csv` (0600): the decoded synthetic rows exactly as they will be exported. They
 *   are decoded once, when the run finishes, so every export of the release is byte-identical
 *   and its SHA-256 is known before any export (two exports can never disagree with the ledger);
 * - `release.json` (0600): what the list, the manifest and the Results step need — the run's
 *   public parameters, the manifest's fields, the engine's report (its error metrics compare
 *   with the exact private answers: curator-only diagnostics, never in a manifest) — and, once
 *   exported, where to;
 * - `manifest.json` (0600), once exported: the manifest exactly as exported, so that web mode can
 *   offer both files again after a restart (its export folder lives in the work folder, which a
 *   restart removes).
 * It holds only released (differentially private) data and curator-only diagnostics: never the
 * private rows. Only `discard` removes a release that has not been exported.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/data/atomic-write.ts';
import type { ExportView, RunView } from '../shared/api.ts';

export const STORED_FORMAT = 'rap-studio-stored-release';

/** What is kept of a finished release besides its CSV. */
export interface StoredRelease {
  readonly format: typeof STORED_FORMAT;
  readonly version: 1;
  readonly releaseId: string;
  readonly storedAt: string;
  /** The run as the app showed it when it finished (public parameters). */
  readonly run: RunView;
  readonly csv: {
    readonly file: 'synthetic.csv';
    readonly sha256: string;
    readonly rows: number;
    readonly header: readonly string[];
  };
  /** The manifest's fields fixed at run time (output and ledger head are added at export). */
  readonly manifest: Readonly<Record<string, unknown>>;
  /** The engine's report: curator-only diagnostics. */
  readonly report: unknown;
  /**
   * The private report's data (src/core/release/report/), drawn once when the release is stored:
   * what the Results step and the private HTML report show, again after a restart. Absent in
   * releases stored before reports were kept, or when it could not be drawn.
   */
  readonly reportData?: unknown;
  readonly exported: ExportView | null;
}

const RECORD = 'release.json';
const CSV = 'synthetic.csv';
const MANIFEST = 'manifest.json';
const ID = /^[A-Za-z0-9-]{1,100}$/;

async function fsyncPath(path: string): Promise<void> {
  const h = await open(path, 'r');
  try {
    await h.sync();
  } catch {
    // some file systems cannot fsync a folder; the rename is still atomic
  } finally {
    await h.close();
  }
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class ResultStore {
  constructor(readonly dir: string) {}

  private folder(releaseId: string): string {
    if (!ID.test(releaseId)) throw new Error(`result store: bad release id ${JSON.stringify(releaseId)}`);
    return join(this.dir, releaseId);
  }

  /** The stored CSV's path (read-only use: exports copy it). */
  csvPath(releaseId: string): string {
    return join(this.folder(releaseId), CSV);
  }

  /**
   * Stores a finished release: the rows are written to CSV once, hashed, and the folder appears
   * complete or not at all. Throws (ENOSPC, EACCES…) with nothing left behind.
   */
  async save(
    entry: Omit<StoredRelease, 'format' | 'version' | 'storedAt' | 'csv' | 'exported'>,
    /** Writes the decoded CSV (0600) at the given path; returns its row count and header. */
    writeCsvAt: (csvPath: string) => Promise<{ readonly rows: number; readonly header: readonly string[] }>,
    /** The report data of the CSV just written (a failure here only leaves it out). */
    describe?: (csvPath: string) => Promise<unknown>,
  ): Promise<StoredRelease> {
    const final = this.folder(entry.releaseId);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.tmp-${entry.releaseId}-${randomBytes(4).toString('hex')}`);
    await mkdir(temp, { mode: 0o700 });
    try {
      const csvPath = join(temp, CSV);
      const { rows, header } = await writeCsvAt(csvPath);
      const reportData = describe ? await describe(csvPath).catch(() => undefined) : undefined;
      const record: StoredRelease = {
        format: STORED_FORMAT,
        version: 1,
        ...entry,
        ...(reportData === undefined ? {} : { reportData }),
        storedAt: new Date().toISOString(),
        csv: { file: CSV, sha256: await sha256Of(csvPath), rows, header: [...header] },
        exported: null,
      };
      await writeFileAtomic(join(temp, RECORD), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
      await fsyncPath(temp);
      await rename(temp, final);
      await fsyncPath(this.dir);
      return record;
    } catch (err) {
      await rm(temp, { recursive: true, force: true });
      throw err;
    }
  }

  async get(releaseId: string): Promise<StoredRelease | undefined> {
    try {
      const rec = JSON.parse(await readFile(join(this.folder(releaseId), RECORD), 'utf8')) as StoredRelease;
      return rec.format === STORED_FORMAT ? rec : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every stored release, oldest first (half-written temp folders are skipped). */
  async list(): Promise<StoredRelease[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: StoredRelease[] = [];
    for (const name of names) {
      if (name.startsWith('.') || !ID.test(name)) continue;
      const rec = await this.get(name);
      if (rec) out.push(rec);
    }
    return out.sort((a, b) => a.storedAt.localeCompare(b.storedAt));
  }

  /** The exported manifest's copy (see keepManifest). */
  manifestPath(releaseId: string): string {
    return join(this.folder(releaseId), MANIFEST);
  }

  /** Keeps the manifest exactly as exported, beside the CSV it describes. */
  async keepManifest(releaseId: string, text: string): Promise<void> {
    await writeFileAtomic(this.manifestPath(releaseId), text, { mode: 0o600 });
  }

  /** Records where the release was exported (release.json rewritten atomically). */
  async markExported(releaseId: string, view: ExportView): Promise<StoredRelease> {
    const rec = await this.get(releaseId);
    if (!rec) throw new Error(`result store: no release ${releaseId}`);
    const next: StoredRelease = { ...rec, exported: view };
    await writeFileAtomic(join(this.folder(releaseId), RECORD), `${JSON.stringify(next, null, 2)}\n`, {
      mode: 0o600,
    });
    return next;
  }

  /** Removes a release's output for good (the curator's explicit "discard"). */
  async discard(releaseId: string): Promise<void> {
    await rm(this.folder(releaseId), { recursive: true, force: true });
  }
}
