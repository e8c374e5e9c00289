/**
 * Stage 5 of every release, CLI and app alike: write the synthetic CSV, its public manifest, its
 * Data Package (data-package.ts) and (CLI) the private report, then commit the release in the ledger with the CSV's SHA-256.
 *
 * One write policy: the ledger is asked for its head BEFORE any byte is written (a ledger that
 * cannot be read — locked, damaged, refused by its anchor — leaves nothing behind); each file is
 * written to a recorded temp file beside its destination (pending-writes.ts: a crash leaves no
 * hidden temp file after the next start), flushed, and then linked into place, which fails
 * rather than replace anything (`replace`, the CLI's --force, renames instead, over a file
 * targets.ts has checked is neither the input nor a released CSV). If a later step fails, the
 * files this call created are removed — except, in the CLI, the CSV, which is then the only copy
 * of what was paid for (the app keeps its copy in the result store and can export again). For
 * the same reason, when the CLI's release cannot be converted to the format its name asks for (a
 * value the format cannot hold), its CSV is kept beside it (`keepCsv`) and the message names it.
 * The release stays reserved (its spend counted) until the commit.
 */
import { link, rename, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { tempPathBeside, writeFileNew } from '../data/atomic-write.ts';
import { fingerprintFile } from '../data/fingerprint.ts';
import { InputError } from '../errors.ts';
import type { LedgerIdentity } from '../ledger/ledger.ts';
import type { ReleaseRecord } from '../ledger/types.ts';
import { dataPackageFor } from './data-package.ts';
import { outputNotWritten, type Voice } from './messages.ts';
import type { WrittenCsv } from './output.ts';
import { convertReleasedCsv, OUTPUT_MEDIA, outputFormatOf, writtenColumns } from './output-format.ts';
import type { PendingWrites } from './pending-writes.ts';
import type { CheckedOutputs, OutputFile } from './targets.ts';

type Awaitable<T> = T | Promise<T>;

/** What stage 5 needs of the ledger (the CLI's Ledger, or the app's ledger worker). */
export interface PublishLedger {
  identity(): Awaitable<LedgerIdentity>;
  commit(releaseId: string, output: { sha256: string; path?: string }): Awaitable<ReleaseRecord>;
}

export interface PublishInput {
  readonly releaseId: string;
  readonly voice: Voice;
  /** Writes the synthetic CSV to a new file at `temp` (exclusive create). */
  readonly fillCsv: (temp: string) => Promise<{ readonly rows: number; readonly header: readonly string[] }>;
  /** The manifest's fields fixed when the run finished (manifest.ts: manifestFields). */
  readonly manifestFields: Readonly<Record<string, unknown>>;
  /** The CLI's private report, written 0600 (null: none). */
  readonly report: ((csv: WrittenCsv) => unknown) | null;
}

export interface Published {
  readonly release: ReleaseRecord;
  readonly csv: WrittenCsv;
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly manifestPath: string;
}

/** The public manifest as written: the same fields from the CLI and the app. */
export function publicManifest(
  fields: Readonly<Record<string, unknown>>,
  head: LedgerIdentity,
  csv: WrittenCsv,
): Record<string, unknown> {
  return {
    ...fields,
    createdAt: new Date().toISOString(),
    // The ledger this release is recorded in, and its head before this release's commit event.
    ledger: { id: head.ledgerId, events: head.events, headHash: head.headHash },
    output: {
      file: basename(csv.path),
      ...OUTPUT_MEDIA[outputFormatOf(csv.path) ?? 'csv'],
      sha256: csv.sha256,
      rows: csv.rows,
      columns: csv.header,
    },
  };
}

export async function publish(
  ledger: PublishLedger,
  input: PublishInput,
  outputs: CheckedOutputs,
  pending: PendingWrites,
): Promise<Published> {
  const { releaseId, voice } = input;
  // Before any byte is written: a ledger that cannot answer leaves nothing behind.
  const head = await ledger.identity();
  const created: string[] = [];
  const place = async (out: OutputFile, fill: (temp: string) => Promise<void>) => {
    try {
      await placeFile(out.path, outputs.replace, pending, fill);
      created.push(out.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(voice, out.path, releaseId);
      const kept = err instanceof NotConverted ? err.kept : null;
      throw outputNotWritten(
        voice,
        writtenAs(out),
        out.path,
        releaseId,
        err instanceof NotConverted ? err.cause : err,
        kept,
      );
    }
  };
  const undo = async (keepCsv: boolean) => {
    for (const file of created) if (!(keepCsv && file === outputs.csv.path)) await rm(file, { force: true });
  };
  let shape: { readonly rows: number; readonly header: readonly string[] } | undefined;
  // The release is made as its CSV; a .parquet or .xlsx name gets that CSV converted
  // (output-format.ts), the CSV written to a second recorded temp file and removed after.
  const format = outputFormatOf(outputs.csv.path) ?? 'csv';
  await place(outputs.csv, async (temp) => {
    if (format === 'csv') {
      shape = await input.fillCsv(temp);
      return;
    }
    const asCsv = await pending.track(tempPathBeside(outputs.csv.path));
    try {
      shape = await input.fillCsv(asCsv.temp);
      try {
        await convertReleasedCsv(
          format,
          asCsv.temp,
          temp,
          writtenColumns(input.manifestFields, shape.header),
        );
      } catch (err) {
        throw new NotConverted(
          err,
          voice === 'cli' ? await keepCsv(asCsv.temp, outputs.csv.path, releaseId) : null,
        );
      }
    } finally {
      await asCsv.done();
    }
  });
  try {
    // The destination's path (fillCsv's result names the temp file it wrote).
    const csv: WrittenCsv = {
      rows: shape!.rows,
      header: shape!.header,
      path: outputs.csv.path,
      sha256: await fingerprintFile(outputs.csv.path),
    };
    const manifest = publicManifest(input.manifestFields, head, csv);
    await place(outputs.manifest, (temp) => writeFileNew(temp, json(manifest), { mode: 0o644 }));
    const dataPackage = dataPackageFor(manifest, csv, outputs.manifest.path);
    if (dataPackage) {
      await place(outputs.dataPackage, (temp) => writeFileNew(temp, json(dataPackage), { mode: 0o644 }));
    }
    const { report } = input;
    if (outputs.report && report) {
      await place(outputs.report, (temp) => writeFileNew(temp, json(report(csv)), { mode: 0o600 }));
    }
    const release = await ledger.commit(releaseId, { sha256: csv.sha256, path: csv.path });
    return { release, csv, manifest, manifestPath: outputs.manifest.path };
  } catch (err) {
    // The CLI keeps the CSV (its only copy; the message says it is not committed); the app has
    // its copy in the result store, so nothing of a failed export stays at the chosen name.
    await undo(voice === 'cli');
    throw err;
  }
}

/** A release's CSV that could not be converted to the format its name asks for. */
class NotConverted extends Error {
  constructor(
    override readonly cause: unknown,
    /** Where the CLI kept the release's CSV (null: the app, or no name could be taken). */
    readonly kept: string | null,
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/**
 * Keeps the CLI's release CSV (`temp`, which the conversion read) beside the destination: its
 * name with `.csv` (s.sav → s.csv), else `s.<release id>.csv`, linked, never over a file. null
 * where neither name can be taken.
 */
async function keepCsv(temp: string, dest: string, releaseId: string): Promise<string | null> {
  const stem = dest.slice(0, dest.length - extname(dest).length);
  for (const name of [`${stem}.csv`, `${stem}.${releaseId}.csv`]) {
    try {
      await link(temp, name);
      return name;
    } catch {
      // taken, or the folder refuses: the next name, then none
    }
  }
  return null;
}

function exists(voice: Voice, file: string, releaseId: string): InputError {
  const fix =
    voice === 'cli'
      ? `the synthetic CSV (if written) stays; release ${releaseId} stays reserved (counted) and is not committed`
      : `choose another name; release ${releaseId} stays reserved until it is exported`;
  return new InputError(
    `${file} already exists: an export never replaces a file (not the input, not another export's). ${fix}.`,
    { file },
  );
}

function writtenAs(out: OutputFile): string {
  return out.what === 'synthetic CSV' ? 'synthetic data' : out.what;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A recorded temp file beside `dest`, filled, then linked into place (or renamed with `replace`). */
async function placeFile(
  dest: string,
  replace: boolean,
  pending: PendingWrites,
  fill: (temp: string) => Promise<void>,
): Promise<void> {
  const write = await pending.track(tempPathBeside(dest));
  try {
    await fill(write.temp);
    if (replace) await rename(write.temp, dest);
    else await link(write.temp, dest);
  } finally {
    await write.done();
  }
}
