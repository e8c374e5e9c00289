/**
 * The SPSS reader read in bounded chunks of the file: the same records as the library's whole
 * read of the bytes (value labels, strings, system-missing), at every read size, across the
 * records' chunk boundary; a damaged or truncated file refused with a message naming it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../errors.ts';
import { CHUNK_RECORDS } from '../records.ts';
import { tempDir } from '../testing.ts';
import { fileDeclaredColumns } from './declarations.ts';
import { readFormatRecords } from './read.ts';
import { savChunks } from './sav.ts';
import { type SavVariable, savBytes } from './write-sav.ts';

const dir = tempDir('rap-sav-');
afterAll(() => dir.remove());

const VARS: SavVariable[] = [
  { name: 'age', type: 'numeric' },
  {
    name: 'sex',
    type: 'numeric',
    labels: [
      [1, 'male'],
      [2, 'female'],
    ],
  },
  { name: 'city', type: 'string' },
];
const row = (i: number): (number | string | null)[] => [
  i % 7 === 0 ? null : 20 + (i % 50) + (i % 3) / 2,
  i % 11 === 0 ? null : (i % 2) + 1,
  i % 5 === 0 ? '' : `c${i % 13}`,
];

/** What sav-reader makes of the whole file in memory (the reader before chunked reads), as text. */
async function wholeRead(file: string): Promise<string[][]> {
  const { SavBufferReader } = createRequire(import.meta.url)('sav-reader');
  const sav = new SavBufferReader(readFileSync(file));
  await sav.open();
  const vars: { name: string }[] = sav.meta.sysvars;
  const labels = vars.map(
    (v) =>
      new Map(
        ((sav.meta.getValueLabels(v.name) ?? []) as { val: number; label: string }[]).map((l) => [
          String(l.val),
          l.label.trim(),
        ]),
      ),
  );
  const out = [vars.map((v) => v.name)];
  for (let r = await sav.readNextRow(); r; r = await sav.readNextRow()) {
    out.push(
      vars.map((v, j) => {
        const x = r[v.name];
        if (x === null || x === undefined || x === -Number.MAX_VALUE) return '';
        const t = typeof x === 'string' ? x.trim() : String(x);
        return labels[j].get(t) ?? t;
      }),
    );
  }
  return out;
}

/** What a reader should make of `row(i)`: labels applied, system-missing empty. */
const expected = (i: number): string[] =>
  row(i).map((v, j) => (v === null ? '' : j === 1 ? (v === 1 ? 'male' : 'female') : String(v)));

async function chunked(file: string, chunkBytes?: number): Promise<string[][]> {
  const out: string[][] = [];
  for await (const chunk of savChunks(file, {}, chunkBytes)) out.push(...chunk.records);
  return out;
}

describe('an SPSS file read in chunks', () => {
  it('equals the whole read at every read size (a case split across reads), labels applied', async () => {
    const file = dir.file(
      'small.sav',
      savBytes(
        VARS,
        Array.from({ length: 40 }, (_, i) => row(i)),
      ),
    );
    const whole = await wholeRead(file);
    expect(whole[0]).toEqual(['age', 'sex', 'city']);
    expect(whole[1]).toEqual(['', '', '']);
    expect(whole[2]).toEqual(['21.5', 'female', 'c1']);
    expect(whole.slice(1)).toEqual(Array.from({ length: 40 }, (_, i) => expected(i)));
    for (const bytes of [1, 7, 8, 24, 1000, undefined]) expect(await chunked(file, bytes)).toEqual(whole);
  });

  it('a chunk boundary inside the data: every case once, in order, through the records loop', async () => {
    const n = CHUNK_RECORDS + 3;
    const file = dir.file(
      'boundary.sav',
      savBytes(
        VARS,
        Array.from({ length: n }, (_, i) => row(i)),
      ),
    );
    const seen: string[][] = [];
    const lines: number[] = [];
    const result = await readFormatRecords(file, (fields, line) => {
      seen.push(fields);
      lines.push(line);
    });
    expect(result.records).toBe(n + 1);
    expect(seen).toEqual([['age', 'sex', 'city'], ...Array.from({ length: n }, (_, i) => expected(i))]);
    expect(lines).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
  });

  const WIDE: SavVariable[] = [
    ...VARS,
    { name: 'note', type: 'string', width: 20 },
    { name: 'n', type: 'numeric' },
  ];
  const wideRow = (i: number): (number | string | null)[] => [
    ...row(i),
    i % 4 === 0 ? '' : `note ${i} of the case`.slice(0, 20),
    i % 9 === 0 ? null : (i % 300) - 120, // in and out of the compression codes' range (-99 … 151)
  ];
  const wideExpected = (i: number): string[] => [
    ...expected(i),
    i % 4 === 0 ? '' : `note ${i} of the case`.slice(0, 20),
    i % 9 === 0 ? '' : String((i % 300) - 120),
  ];

  it.each([
    false,
    true,
  ])('our case decoder equals sav-reader on strings over 8 bytes, numbers, missing values, labels (compressed: %s)', async (compressed) => {
    const n = 700;
    const file = dir.file(
      `wide-${compressed}.sav`,
      savBytes(
        WIDE,
        Array.from({ length: n }, (_, i) => wideRow(i)),
        { compressed },
      ),
    );
    const ours = await chunked(file);
    expect(ours).toEqual([WIDE.map((v) => v.name), ...Array.from({ length: n }, (_, i) => wideExpected(i))]);
    expect(await wholeRead(file)).toEqual(ours);
  });

  it('compressed data ended by a 252 code (as PSPP writes): the cases end there', async () => {
    // sav-reader reads a case past the code, then fails at the file's end: the file was refused.
    const n = 30;
    const file = dir.file(
      'pspp.sav',
      savBytes(
        WIDE,
        Array.from({ length: n }, (_, i) => wideRow(i)),
        { compressed: true, endCode: true },
      ),
    );
    expect(await chunked(file)).toEqual([
      WIDE.map((v) => v.name),
      ...Array.from({ length: n }, (_, i) => wideExpected(i)),
    ]);
    await expect(wholeRead(file)).rejects.toThrow();
  });

  it('a file cut inside its cases is refused with a message naming it', async () => {
    const whole = savBytes(
      VARS,
      Array.from({ length: 10 }, (_, i) => row(i)),
    );
    const file = dir.file('cut.sav', whole.subarray(0, whole.length - 5));
    const err = await readFormatRecords(file, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain('not a readable SPSS data file (.sav)');
  });

  it('value labels still become the declared categories', async () => {
    const file = dir.file('labels.sav', savBytes(VARS, [row(1)]));
    expect(await fileDeclaredColumns(file)).toEqual([
      {
        name: 'sex',
        kind: 'categorical',
        categories: ['male', 'female'],
        missing: true,
        provenance: { source: 'declared' },
      },
    ]);
  });

  it.each([
    ['not a .sav at all', Buffer.from('not read')],
    ['truncated inside its dictionary', savBytes(VARS, [row(1)]).subarray(0, 200)],
  ])('a damaged file (%s) is refused with a message naming it', async (_what, bytes) => {
    const file = dir.file('damaged.sav', bytes);
    const err = await readFormatRecords(file, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('not a readable SPSS data file (.sav)');
  });
});
