/**
 * Seeded mutations of a valid CSV for the loader fuzz test: byte flips, truncations, inserted
 * quotes, delimiters and line breaks, deleted and duplicated ranges, invalid UTF-8. The same
 * (seed, case) always gives the same bytes, so a failure reproduces from its numbers alone.
 * Test data, not privacy noise: a plain 32-bit PRNG (mulberry32) is what we want here.
 */
import { mulberry32 } from '../../support/prng.ts';

/** The seed of one case: distinct per case, derived from the run's seed. */
export function caseSeed(seed: number, index: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}

const COLORS = ['red', 'green', 'blue', '?'];
const SIZES = ['S', 'M', 'L'];

/** A valid small CSV: categorical, integer and decimal columns, quoted fields with commas and a line break. */
export function validCsv(rows = 30): string {
  const lines = ['color,size,age,income,note'];
  for (let i = 0; i < rows; i++) {
    const note = i % 7 === 0 ? '"says ""hi"", twice"' : i % 11 === 0 ? '"two\nlines"' : `n${i % 5}`;
    lines.push(
      `${COLORS[i % 4]},${SIZES[i % 3]},${18 + ((i * 7) % 60)},${(1000 + i * 37.5).toFixed(1)},${note}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

type Rng = () => number;
const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, xs.length)];

const INSERTS: readonly (readonly [string, Buffer])[] = [
  ['quote', Buffer.from('"')],
  ['two quotes', Buffer.from('""')],
  ['comma', Buffer.from(',')],
  ['semicolon', Buffer.from(';')],
  ['tab', Buffer.from('\t')],
  ['LF', Buffer.from('\n')],
  ['CRLF', Buffer.from('\r\n')],
  ['CR', Buffer.from('\r')],
  ['NUL', Buffer.from([0])],
  ['BOM', Buffer.from([0xef, 0xbb, 0xbf])],
  ['invalid UTF-8', Buffer.from([0xc3, 0x28])],
  ['lone continuation byte', Buffer.from([0x80])],
  ['quoted comma', Buffer.from('","')],
];

type Mutation = (b: Buffer, rng: Rng) => [string, Buffer];

const MUTATIONS: readonly Mutation[] = [
  (b, rng) => {
    if (b.length === 0) return ['flip (empty)', b];
    const at = int(rng, b.length);
    const mask = 1 + int(rng, 255);
    const out = Buffer.from(b);
    out[at] ^= mask;
    return [`flip byte ${at} ^ 0x${mask.toString(16)}`, out];
  },
  (b, rng) => {
    if (b.length === 0) return ['set (empty)', b];
    const at = int(rng, b.length);
    const v = int(rng, 256);
    const out = Buffer.from(b);
    out[at] = v;
    return [`set byte ${at} = 0x${v.toString(16)}`, out];
  },
  (b, rng) => {
    const at = int(rng, b.length + 1);
    return [`truncate at ${at}`, b.subarray(0, at)];
  },
  (b, rng) => {
    const at = int(rng, b.length + 1);
    const [name, bytes] = pick(rng, INSERTS);
    return [`insert ${name} at ${at}`, Buffer.concat([b.subarray(0, at), bytes, b.subarray(at)])];
  },
  (b, rng) => {
    const at = int(rng, b.length + 1);
    const len = 1 + int(rng, 40);
    return [`delete ${len} at ${at}`, Buffer.concat([b.subarray(0, at), b.subarray(at + len)])];
  },
  (b, rng) => {
    const at = int(rng, b.length + 1);
    const len = 1 + int(rng, 80);
    const piece = b.subarray(at, at + len);
    return [
      `duplicate ${len} at ${at}`,
      Buffer.concat([b.subarray(0, at + len), piece, b.subarray(at + len)]),
    ];
  },
];

/** 1 to 4 mutations of `base`, chosen by `seed`; the list says what was done, in order. */
export function mutate(base: Buffer, seed: number): { bytes: Buffer; ops: string[] } {
  const rng = mulberry32(seed);
  const count = 1 + int(rng, 4);
  let bytes = base;
  const ops: string[] = [];
  for (let i = 0; i < count; i++) {
    const [op, next] = pick(rng, MUTATIONS)(bytes, rng);
    ops.push(op);
    bytes = next;
  }
  return { bytes, ops };
}
