/**
 * The Stata (.dta) and SAS (.sas7bdat) readers on files written by real writers (pandas'
 * `to_stata`, R haven / ReadStat; test/unit/formats/fixtures/make-fixtures.*): values, missing
 * values, text, dates and value labels as the writers stored them; a damaged file of each kind,
 * and every truncation of one, refused with an InputError naming the file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../errors.ts';
import { tempDir } from '../testing.ts';
import { fileDeclaredColumns } from './declarations.ts';
import { readFormatRecords } from './read.ts';
import { rdcDecompress, rleDecompress } from './sas7bdat.ts';
import { rdcCompress, rleCompress, type SasColumn, sasBytes } from './testing.ts';

const FIXTURES = fileURLToPath(new URL('../../../../test/unit/formats/fixtures/', import.meta.url));
const fixture = (name: string) => readFileSync(FIXTURES + name);

const dir = tempDir('rap-labelled-');
afterAll(() => dir.remove());

async function records(file: string): Promise<string[][]> {
  const out: string[][] = [];
  await readFormatRecords(file, (fields) => out.push(fields));
  return out;
}

/** people.csv, the table every people-* fixture holds, as records. */
const peopleCsv = () =>
  fixture('people.csv')
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(','));

describe('the same table from each writer and release', () => {
  it.each([
    'people-114.dta',
    'people-117.dta',
    'people-118.dta',
    'people-119.dta',
    'people-haven.dta',
    'people.sas7bdat',
  ])('%s reads as people.csv (names, integers, text, system missing as the empty field)', async (name) => {
    const file = dir.file(name, fixture(name));
    const got = await records(file);
    expect(got).toHaveLength(301);
    expect(got).toEqual(peopleCsv());
  });
});

describe('a Stata file of every column type (pandas; releases 114 to 119, both byte orders)', () => {
  const expected = [
    ['b', 'i', 'l', 'f', 'd', 's', 'note', 'when', 'region'],
    ['1', '300', '70000', '0.1', '1.25', 'abc', 'short', '2020-02-29', 'North'],
    ['-5', '-32000', '', '2.5', '', '', 'a'.repeat(3000), '1960-01-01', 'South'],
    ['', '7', '-2', '', '1e+300', 'ünï', '', '', ''],
    ['100', '', '2000000000', '-10000000000', '-0.5', 'x y', 'tail', '1899-12-31', 'North'],
  ];
  // The big-endian files have no strL column (note): pandas writes those wrongly.
  const withoutNote = expected.map((row) => row.filter((_, j) => j !== 6));

  it.each([
    ['typed-117.dta', expected],
    ['typed-118.dta', expected],
    ['typed-119.dta', expected],
    ['typed-114-msf.dta', withoutNote],
    ['typed-117-msf.dta', withoutNote],
    ['typed-118-msf.dta', withoutNote],
  ])('%s: every numeric type, str#, strL, a Stata date; missing values; labels applied', async (name, rows) => {
    const file = dir.file(name, fixture(name));
    expect(await records(file)).toEqual(rows);
  });

  it("value labels are the column's declared categories, in value order, with missing", async () => {
    const file = dir.file('typed-118.dta', fixture('typed-118.dta'));
    expect(await fileDeclaredColumns(file)).toEqual([
      {
        name: 'region',
        kind: 'categorical',
        categories: ['North', 'South', 'East'],
        missing: true,
        provenance: { source: 'declared' },
      },
    ]);
  });
});

describe('a SAS data set with dates (haven)', () => {
  it('numbers, missing, UTF-8 text, a DATE and a DATETIME column as date text', async () => {
    const file = dir.file('typed.sas7bdat', fixture('typed.sas7bdat'));
    expect(await records(file)).toEqual([
      ['x', 's', 'day', 'at'],
      ['1.5', 'abc', '2020-02-29', '2020-02-29T13:14:15'],
      ['', '', '1960-01-01', '1960-01-01T00:00:00'],
      ['-3', 'café', '', ''],
      ['10000000000', 'x y', '1899-12-31', '1999-12-31T23:59:59'],
    ]);
    expect(await fileDeclaredColumns(file)).toEqual([]);
  });
});

describe('SAS RDC decompression (the commands pandas and ReadStat read)', () => {
  it('literal bytes, short and long runs, short and long copies back', () => {
    const input = Buffer.from([
      0b0111_1000,
      0, // control word: items 2 … 5 are commands
      0x61, // literal 'a'
      0x02,
      0x62, // run of 5 'b'
      0x11,
      0x01,
      0x63, // run of 1 + 16 + 19 = 36 'c'
      0x40, // copy 4 bytes from 3 back ('ccc' then the first copied c)
      0x00,
      0x2b,
      0x02,
      0x00, // copy 16 + 0 bytes from 11 + 3 + 32 = 46 back: the row's first 16 bytes
    ]);
    const before = Buffer.concat([Buffer.from('a'), Buffer.alloc(5, 0x62), Buffer.alloc(36, 0x63)]);
    const grown = Buffer.concat([before, Buffer.from('cccc')]);
    expect(grown.length).toBe(46);
    const expected = Buffer.concat([grown, grown.subarray(0, 16)]);
    expect(rdcDecompress(input, expected.length)).toEqual(expected);
  });

  it('refuses a copy from before the row, an overrun and a short row', () => {
    expect(() => rdcDecompress(Buffer.from([0x80, 0x00, 0x30, 0x00]), 8)).toThrow(/outside/);
    expect(() => rdcDecompress(Buffer.from([0x80, 0x00, 0x0f, 0x41]), 4)).toThrow(/overruns/);
    expect(() => rdcDecompress(Buffer.from([0x00, 0x00, 0x41]), 4)).toThrow(/short/);
  });
});

describe('SAS RLE decompression (the commands ReadStat documents)', () => {
  it('copies, runs of a byte, of blanks, of @ and of zeros', () => {
    const input = Buffer.from([
      0x82,
      ...Buffer.from('abc'),
      0xc1,
      0x41, // 4 × 'A'
      0xe0, // 2 blanks
      0xf1, // 3 zeros
      0xd0, // 2 '@'
      0x60,
      0x01, // 18 blanks
      0x40,
      0x00,
      0x42, // 18 'B'
      0x70,
      0x00, // 17 zeros
      0x00,
      0x00,
      ...Buffer.alloc(64, 0x7a), // copy 64 'z'
    ]);
    const expected = Buffer.concat([
      Buffer.from('abcAAAA  '),
      Buffer.alloc(3),
      Buffer.from('@@'),
      Buffer.alloc(18, 0x20),
      Buffer.alloc(18, 0x42),
      Buffer.alloc(17),
      Buffer.alloc(64, 0x7a),
    ]);
    expect(rleDecompress(input, expected.length)).toEqual(expected);
  });

  it('refuses an unknown command, an overrun and a short row', () => {
    expect(() => rleDecompress(Buffer.from([0x30]), 4)).toThrow(/RLE command/);
    expect(() => rleDecompress(Buffer.from([0xc9, 0x41]), 4)).toThrow(/overruns/);
    expect(() => rleDecompress(Buffer.from([0xe0]), 4)).toThrow(/short/);
    expect(() => rleDecompress(Buffer.from([0x85, 0x41]), 8)).toThrow(/overruns/);
  });
});

describe('SAS layouts no writer here makes: 32/64-bit, little/big-endian, RLE rows, a mix page', () => {
  // Written by testing.ts `sasBytes`; pandas 1.5.3's read_sas reads the same 700 rows from each
  // of these layouts (checked once by hand when the writer was made).
  const columns: SasColumn[] = [
    { name: 'x', type: 'numeric', width: 8 },
    { name: 'short', type: 'numeric', width: 4 },
    { name: 'name', type: 'char', width: 12 },
    { name: 'day', type: 'numeric', width: 8, format: 'DATE' },
  ];
  const N = 700;
  const rows = Array.from({ length: N }, (_, i) => [
    i % 13 === 0 ? null : i * 1.5,
    i,
    i % 5 === 0 ? '' : ['Oslo', 'Lima', 'Pune', 'Bogotá'][i % 4],
    i % 7 === 0 ? null : 20_000 + i,
  ]);
  const iso = (days: number) => new Date(Date.UTC(1960, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);
  const expected = [
    ['x', 'short', 'name', 'day'],
    ...rows.map(([x, i, name, day]) => [
      x === null ? '' : String(x),
      String(i),
      String(name),
      day === null ? '' : iso(Number(day)),
    ]),
  ];

  it.each([
    { u64: false, little: true, rle: false },
    { u64: false, little: false, rle: false },
    { u64: true, little: true, rle: false },
    { u64: true, little: false, rle: false },
    { u64: false, little: true, rle: true },
    { u64: false, little: false, rle: true },
    { u64: true, little: true, rle: true },
    { u64: true, little: false, rle: true },
    { u64: false, little: true, rle: false, mix: true },
    { u64: false, little: false, rle: false, mix: true },
    { u64: true, little: true, rle: false, mix: true },
    { u64: true, little: false, rle: false, mix: true },
    { u64: false, little: true, rle: true, rdc: true },
    { u64: false, little: false, rle: true, rdc: true },
    { u64: true, little: true, rle: true, rdc: true },
    { u64: true, little: false, rle: true, rdc: true },
  ])('64-bit $u64, little-endian $little, RLE $rle, RDC $rdc, mix page $mix: every row, a 4-byte numeric, dates', async (layout) => {
    const name = `l-${layout.u64}-${layout.little}-${layout.rle}-${layout.rdc ?? false}-${layout.mix ?? false}.sas7bdat`;
    const file = dir.file(name, sasBytes(layout, columns, rows));
    expect(await records(file)).toEqual(expected);
  });

  it.each([
    ['RLE', rleCompress, rleDecompress],
    ['RDC', rdcCompress, rdcDecompress],
  ] as const)('%s: compressing then decompressing any row gives the row back', (_, compress, decompress) => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let trial = 0; trial < 300; trial++) {
      const row = Buffer.alloc(1 + (next() % 400));
      // Runs of blanks, zeros and other bytes between literal stretches.
      for (let i = 0; i < row.length; ) {
        const n = 1 + (next() % 40);
        const v = [0x20, 0x00, next() % 256][next() % 3];
        const literal = next() % 2 === 0;
        for (let k = 0; k < n && i < row.length; k++, i++) row[i] = literal ? next() % 256 : v;
      }
      expect(decompress(compress(row), row.length)).toEqual(row);
    }
  });
});

describe('damaged files are refused with an InputError naming the file and what to do', () => {
  const kinds: { name: string; title: string; advice: string; bytes?: Buffer }[] = [
    {
      name: 'people-117.dta',
      title: 'not a readable Stata data file (.dta)',
      advice: 'Save it again from Stata',
    },
    {
      name: 'people-114.dta',
      title: 'not a readable Stata data file (.dta)',
      advice: 'Save it again from Stata',
    },
    {
      name: 'people.sas7bdat',
      title: 'not a readable SAS data set (.sas7bdat)',
      advice: 'Save it again from SAS',
    },
    ...(['rle', 'rdc'] as const).map((kind) => ({
      name: `${kind}-${kind === 'rle' ? '32-be' : '64-le'}.sas7bdat`,
      title: 'not a readable SAS data set (.sas7bdat)',
      advice: 'Save it again from SAS',
      bytes: sasBytes(
        { u64: kind === 'rdc', little: kind === 'rdc', rle: true, rdc: kind === 'rdc' },
        [
          { name: 'n', type: 'numeric', width: 8 },
          { name: 's', type: 'char', width: 30 },
        ],
        Array.from({ length: 60 }, (_, i) => [i, i % 3 === 0 ? '' : `text ${i} text ${i}`]),
      ),
    })),
  ];

  it.each(kinds)('$name: not the format at all', async ({ name, title, advice }) => {
    const file = dir.file(`junk-${name}`, 'not a data file at all\n');
    const err = await readFormatRecords(file, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain(title);
    expect((err as Error).message).toContain(advice);
  });

  it.each(kinds)('$name: every truncation is refused (or a whole table read), never another error', async ({
    name,
    ...kind
  }) => {
    const bytes = kind.bytes ?? fixture(name);
    // Deterministic cut points: every 97th byte, the last 40 bytes one by one, and 0.
    const cuts = new Set([0]);
    for (let n = 1; n < bytes.length; n += 97) cuts.add(n);
    for (let n = Math.max(0, bytes.length - 40); n < bytes.length; n++) cuts.add(n);
    for (const n of cuts) {
      const file = dir.file(`cut-${n}-${name}`, bytes.subarray(0, n));
      const err = await readFormatRecords(file, () => {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (err === undefined) continue; // a cut after the last byte the reader needs
      expect(err, `cut at ${n}`).toBeInstanceOf(InputError);
      expect((err as Error).message).toContain(file);
    }
  });

  it.each(kinds)('$name: random byte damage never throws anything but an InputError', async ({
    name,
    ...kind
  }) => {
    const bytes = kind.bytes ?? fixture(name);
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let trial = 0; trial < 60; trial++) {
      const damaged = Buffer.from(bytes);
      for (let k = 0; k < 4; k++) damaged[next() % damaged.length] = next() % 256;
      const file = dir.file(`hit-${trial}-${name}`, damaged);
      const err = await readFormatRecords(file, () => {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (err !== undefined) expect(err, `trial ${trial}`).toBeInstanceOf(InputError);
    }
  });
});
