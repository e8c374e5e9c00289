/**
 * An SPSS system file (.sav) as records, through `sav-reader` (maintained, pure JavaScript, no
 * dependencies, no install script): the variable names first, then each case as text. A value
 * with a value label is its label (the labels are the column's declared categories:
 * `savDeclaredColumns`), another number its JavaScript text, system-missing the empty field,
 * strings trimmed. The file's bytes are read into memory whole (the package's streaming reader
 * fails on small files), its cases decoded one at a time and handed on in chunks (no array of
 * every case). A corrupt file is refused with a message naming it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { InputError } from '../../errors.ts';
import type { RecordChunk } from '../records.ts';
import { CHUNK_RECORDS } from '../records.ts';
import type { CategoricalColumn } from '../schema.ts';

interface SavVar {
  readonly name: string;
  readonly type: number;
}
interface SavMeta {
  readonly sysvars: readonly SavVar[];
  getValueLabels(name: string): readonly { val: number | string; label: string }[] | null;
}
interface SavReader {
  open(): Promise<void>;
  readonly meta: SavMeta;
  readNextRow(): Promise<Record<string, unknown> | null>;
}

/** SPSS's system-missing value: the most negative double. */
const SYSMIS = -Number.MAX_VALUE;

async function openSav(file: string): Promise<SavReader> {
  const bytes = await readFile(file);
  // sav-reader is CommonJS only (its package exports no ESM entry).
  const { SavBufferReader } = createRequire(import.meta.url)('sav-reader') as {
    SavBufferReader: new (b: Buffer) => SavReader;
  };
  const sav = new SavBufferReader(bytes);
  try {
    await sav.open();
  } catch {
    throw damaged(file);
  }
  return sav;
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

/**
 * The variable names, then each case, read one at a time (`readNextRow`): the library holds the
 * file's bytes, never the cases already handed on.
 */
export async function* savChunks(file: string): AsyncGenerator<RecordChunk> {
  const sav = await openSav(file);
  const vars = sav.meta.sysvars;
  const labels = vars.map((v) => labelsOf(sav.meta, v.name));
  yield { records: [vars.map((v) => v.name)] };
  for (;;) {
    const records: string[][] = [];
    while (records.length < CHUNK_RECORDS) {
      let row: Record<string, unknown> | null;
      try {
        row = await sav.readNextRow();
      } catch {
        throw damaged(file);
      }
      if (row === null || row === undefined) break;
      records.push(
        vars.map((v, j) => {
          const value = row[v.name];
          if (value === null || value === undefined || value === SYSMIS) return '';
          const text = typeof value === 'string' ? value.trim() : String(value);
          return labels[j].get(text) ?? text;
        }),
      );
    }
    if (records.length > 0) yield { records };
    if (records.length < CHUNK_RECORDS) return;
  }
}

/**
 * The file's value labels as declared categorical columns (public metadata, not a function of
 * the rows): the labels in value order, and a missing category (system-missing is always
 * possible). A value without a label then does not fit: the release refuses it before reserving.
 */
export async function savDeclaredColumns(file: string): Promise<CategoricalColumn[]> {
  const sav = await openSav(file);
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
