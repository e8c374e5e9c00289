/**
 * An SPSS system file (.sav) as records, through `sav-reader` (maintained, pure JavaScript, no
 * dependencies, no install script): the variable names first, then each case as text. A value
 * with a value label is its label (the labels are the column's declared categories:
 * `savDeclaredColumns`), another number its JavaScript text, system-missing the empty field,
 * strings trimmed. sav-reader reads the dictionary (the file in bounded chunks, `SAV_CHUNK_BYTES`);
 * our decoder (sav-cases.ts) the cases, through a bounded window of the file, handed on in chunks:
 * memory does not grow with the number of cases. A corrupt file is refused with a message naming it.
 */
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { InputError } from '../../errors.ts';
import type { RecordChunk } from '../records.ts';
import { CHUNK_RECORDS, unreadable } from '../records.ts';
import type { CategoricalColumn } from '../schema.ts';
import { Corrupt } from './binary.ts';
import { openBytes } from './labelled.ts';
import { type SavCaseLayout, SavCases, type SavCell } from './sav-cases.ts';

interface SavVar {
  readonly name: string;
  readonly type: number;
  /** sav-reader 2.0.8's (internal) layout of a string: its 8-byte continuation cells. */
  readonly __nb_string_contin_recs?: number;
  /** …and a very long string's further segments (variables of their own in the file). */
  readonly __child_string_sysvars?: readonly SavVar[];
}
interface SavMeta {
  readonly sysvars: readonly SavVar[];
  readonly header: { readonly compression?: { readonly bias: number } };
  /** The byte offset of the first case. */
  readonly firstRecordPosition: number;
  getValueLabels(name: string): readonly { val: number | string; label: string }[] | null;
}
interface SavReader {
  open(): Promise<void>;
  readonly meta: SavMeta;
  readNextRow(): Promise<Record<string, unknown> | null>;
  /** The library's byte reader; its `close` destroys the stream it reads (sav-reader 2.0.8). */
  readonly reader?: { close?: () => unknown };
}

/** SPSS's system-missing value: the most negative double. */
const SYSMIS = -Number.MAX_VALUE;

/**
 * Bytes per read of a .sav file. sav-reader buffers the stream it reads (Node's Readable.from: up
 * to 16 chunks ahead), so a case pass holds at most ~17 of these: 4 MiB, whatever the file's size.
 */
export const SAV_CHUNK_BYTES = 1 << 18;

/**
 * The file as a sequence of reads of `chunkBytes` each, for sav-reader. Each read is made one
 * ahead, and the file closed as soon as a read comes back empty, before the last chunk is handed
 * on: the library takes its stream's end as the end of the cases only when the stream has
 * ended by the time it asks past the last byte (an end still waiting on a read or a close is
 * "no data read even after wait", which it throws). A read error ends the sequence (the
 * library's stream has no error handler: an error event there would crash the process) and is
 * kept in `error`, which the reader reports after the cases end; the file is closed when the
 * sequence ends or is abandoned (the library's stream destroyed).
 */
class FileChunks implements AsyncIterable<Buffer> {
  error: unknown;
  constructor(
    private readonly file: string,
    private readonly chunkBytes: number,
  ) {}
  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      const opened = await open(this.file, 'r');
      handle = opened;
      const read = async () => {
        const buf = Buffer.allocUnsafe(this.chunkBytes);
        const { bytesRead } = await opened.read(buf, 0, buf.length, null);
        return buf.subarray(0, bytesRead);
      };
      for (let chunk = await read(); chunk.length > 0; ) {
        const ahead = await read();
        if (ahead.length === 0) {
          handle = undefined;
          await opened.close();
        }
        yield chunk;
        chunk = ahead;
      }
    } catch (err) {
      this.error = err;
    } finally {
      await handle?.close();
    }
  }
}

interface OpenSav {
  readonly sav: SavReader;
  /** Throws `unreadable` if a read of the file failed (then the cases ended early). */
  check(): void;
  close(): void;
}

async function openSav(file: string, chunkBytes = SAV_CHUNK_BYTES): Promise<OpenSav> {
  // sav-reader is CommonJS only (its package exports no ESM entry). Its buffer reader hands its
  // argument to Readable.from, which takes any async iterable: the file's chunks, read as the
  // cases are decoded. (Its own file reader asks its stream for 1 KiB reads it may not yet hold
  // and fails on small files.)
  const { SavBufferReader } = createRequire(import.meta.url)('sav-reader') as {
    SavBufferReader: new (b: AsyncIterable<Buffer>) => SavReader;
  };
  const source = new FileChunks(file, chunkBytes);
  const sav = new SavBufferReader(source);
  const close = () => {
    sav.reader?.close?.();
  };
  const check = () => {
    if (source.error !== undefined) throw unreadable(file, source.error);
  };
  try {
    await sav.open();
  } catch {
    close();
    check();
    throw damaged(file);
  }
  return { sav, check, close };
}

function damaged(file: string): InputError {
  return new InputError(
    `${file}: not a readable SPSS data file (.sav); the file is damaged or of another kind. Save it again from ` +
      'SPSS or PSPP, or export the table as CSV.',
    { file },
  );
}

function labelsOf(meta: SavMeta, name: string): Map<string, string> {
  const labels = meta.getValueLabels(name) ?? [];
  return new Map(labels.map((l) => [String(l.val), l.label.trim()]));
}

/** Where the cases start and how each variable's cells lie, from sav-reader's dictionary. */
function caseLayout(meta: SavMeta): SavCaseLayout {
  const cells = meta.sysvars.map((v): SavCell => {
    if (v.type === 0) return { kind: 'number' };
    const segments = [v, ...(v.__child_string_sysvars ?? [])].map(
      (s) => 1 + (s.__nb_string_contin_recs ?? 0),
    );
    return { kind: 'string', segments };
  });
  const bias = meta.header.compression?.bias;
  return { cells, start: meta.firstRecordPosition, ...(bias === undefined ? {} : { bias }) };
}

/**
 * The variable names, then each case: sav-reader reads the dictionary (from the file read in
 * chunks of `chunkBytes`), our decoder the cases (sav-cases.ts, the file read by position
 * through a bounded window): neither the file nor the cases already handed on are held.
 */
export async function* savChunks(
  file: string,
  _opts?: unknown,
  chunkBytes = SAV_CHUNK_BYTES,
): AsyncGenerator<RecordChunk> {
  const { sav, check, close } = await openSav(file, chunkBytes);
  close(); // the dictionary only: the cases are decoded below
  check();
  const vars = sav.meta.sysvars;
  const labels = vars.map((v) => labelsOf(sav.meta, v.name));
  const layout = caseLayout(sav.meta);
  yield { records: [vars.map((v) => v.name)] };
  const handle = openBytes(file);
  try {
    const cases = new SavCases(handle.bytes, layout);
    for (;;) {
      const records: string[][] = [];
      while (records.length < CHUNK_RECORDS) {
        let row: ReturnType<typeof cases.next>;
        try {
          row = cases.next();
        } catch (err) {
          if (err instanceof Corrupt) throw damaged(file);
          throw unreadable(file, err);
        }
        if (row === null) break;
        const record: string[] = new Array(row.length);
        for (let j = 0; j < row.length; j++) record[j] = text(row[j], labels[j]);
        records.push(record);
      }
      if (records.length > 0) yield { records };
      if (records.length < CHUNK_RECORDS) return;
    }
  } finally {
    handle.close();
  }
}

/** A value as the counting module's text: its label, else a number's JavaScript text; system-missing empty. */
function text(value: number | string | null, labels: ReadonlyMap<string, string>): string {
  if (value === null || value === SYSMIS) return '';
  const t = typeof value === 'string' ? value.trim() : String(value);
  return labels.size === 0 ? t : (labels.get(t) ?? t);
}

/**
 * The file's value labels as declared categorical columns (public metadata, not a function of
 * the rows): the labels in value order, and a missing category (system-missing is always
 * possible). A value without a label then does not fit: the release refuses it before reserving.
 */
export async function savDeclaredColumns(file: string): Promise<CategoricalColumn[]> {
  const { sav, close } = await openSav(file);
  close(); // the dictionary only: the cases are not read here
  const out: CategoricalColumn[] = [];
  for (const v of sav.meta.sysvars) {
    const labels = [...(sav.meta.getValueLabels(v.name) ?? [])].sort((a, b) =>
      typeof a.val === 'number' && typeof b.val === 'number'
        ? a.val - b.val
        : String(a.val).localeCompare(String(b.val)),
    );
    const categories = [...new Set(labels.map((l) => l.label.trim()))];
    if (categories.length < 2) continue;
    out.push({
      name: v.name,
      kind: 'categorical',
      categories,
      missing: true,
      provenance: { source: 'declared' },
    });
  }
  return out;
}

/**
 * The file's value labels with their codes (public metadata, as `savDeclaredColumns`): for each
 * numeric variable with labels, its (value, label) pairs in value order, labels trimmed.
 */
export async function savValueLabels(
  file: string,
): Promise<{ column: string; labels: { value: number; label: string }[] }[]> {
  const { sav, close } = await openSav(file);
  close(); // the dictionary only
  const out: { column: string; labels: { value: number; label: string }[] }[] = [];
  for (const v of sav.meta.sysvars) {
    if (v.type !== 0) continue;
    const labels = (sav.meta.getValueLabels(v.name) ?? [])
      .filter((l): l is { val: number; label: string } => typeof l.val === 'number')
      .map((l) => ({ value: l.val, label: l.label.trim() }))
      .sort((a, b) => a.value - b.value);
    if (labels.length > 0) out.push({ column: v.name, labels });
  }
  return out;
}
