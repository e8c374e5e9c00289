/**
 * Bounds-checked reads from a binary file (the Stata and SAS readers), through a bounded window
 * onto the file (`Bytes`): every read past the end, or a count that cannot fit in the bytes left,
 * throws `Corrupt`, which the format's reader turns into an InputError naming the file. Nothing
 * here loops on a count read from the file.
 */
import { readSync } from 'node:fs';

/** The file's bytes do not follow the format (damaged, truncated, or another kind of file). */
export class Corrupt extends Error {
  override readonly name = 'Corrupt';
}

/** A file read by position, synchronously (the parsers' reads are synchronous). */
export interface ByteFile {
  readonly length: number;
  /** Up to `length` bytes from `offset` (fewer only at the end of the file). */
  read(offset: number, length: number): Buffer;
}

/**
 * Up to `want` bytes of the open file `fd` from `offset`, read by position until they are all in
 * or the file ends (fewer only at its end): ByteFile.read of an open file (labelled.ts), and the
 * ZIP directory's reads (zip.ts).
 */
export function readFileAt(fd: number, offset: number, want: number): Buffer {
  const buf = Buffer.allocUnsafe(want);
  let got = 0;
  while (got < want) {
    const n = readSync(fd, buf, got, want - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * A file read through a bounded window: a read outside it moves the window there (at least
 * WINDOW_BYTES, or the read's own length), so a parser walking the file holds about one window
 * of it, never the whole file. Over a Buffer (tests, a file already in memory) the window is the
 * buffer and never moves.
 */
export const WINDOW_BYTES = 1 << 20;

export class Bytes {
  private window: Buffer;
  private base = 0;
  readonly length: number;

  constructor(
    private readonly source: Buffer | ByteFile,
    readonly little: boolean,
    /** The least a moved window holds (tests move it often with a small one). */
    private readonly windowBytes = WINDOW_BYTES,
  ) {
    this.window = Buffer.isBuffer(source) ? source : Buffer.alloc(0);
    this.length = source.length;
  }

  /** The same bytes read in another byte order. */
  withOrder(little: boolean): Bytes {
    return new Bytes(this.source, little, this.windowBytes);
  }

  /** Throws unless `length` bytes exist from `offset`. */
  need(offset: number, length: number, what = 'data'): void {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
      throw new Corrupt(`bad offset for ${what}`);
    }
    if (offset + length > this.length) throw new Corrupt(`${what} runs past the end of the file`);
  }

  /** The window index of `offset`, after checking `length` bytes exist there and are in the window. */
  private at(offset: number, length: number, what = 'data'): number {
    this.need(offset, length, what);
    const i = offset - this.base;
    if (i >= 0 && i + length <= this.window.length) return i;
    const source = this.source as ByteFile; // a Buffer source's window is the whole file
    const want = Math.min(Math.max(length, this.windowBytes), this.length - offset);
    const read = source.read(offset, want);
    if (read.length < length) throw new Corrupt(`${what} runs past the end of the file`);
    this.window = read;
    this.base = offset;
    return 0;
  }

  // Each read takes its index first: `at` may move the window to a new buffer.
  u8(o: number): number {
    const i = this.at(o, 1);
    return this.window[i];
  }
  i8(o: number): number {
    const i = this.at(o, 1);
    return this.window.readInt8(i);
  }
  u16(o: number): number {
    const i = this.at(o, 2);
    return this.little ? this.window.readUInt16LE(i) : this.window.readUInt16BE(i);
  }
  i16(o: number): number {
    const i = this.at(o, 2);
    return this.little ? this.window.readInt16LE(i) : this.window.readInt16BE(i);
  }
  u32(o: number): number {
    const i = this.at(o, 4);
    return this.little ? this.window.readUInt32LE(i) : this.window.readUInt32BE(i);
  }
  i32(o: number): number {
    const i = this.at(o, 4);
    return this.little ? this.window.readInt32LE(i) : this.window.readInt32BE(i);
  }
  /** An unsigned 64-bit count or offset; one beyond 2^53 cannot be a position in this file. */
  u64(o: number): number {
    const i = this.at(o, 8);
    const v = this.little ? this.window.readBigUInt64LE(i) : this.window.readBigUInt64BE(i);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Corrupt('a 64-bit count out of range');
    return Number(v);
  }
  /** An unsigned integer of 1, 2, 4 or 8 bytes. */
  uint(o: number, width: number): number {
    switch (width) {
      case 1:
        return this.u8(o);
      case 2:
        return this.u16(o);
      case 4:
        return this.u32(o);
      case 8:
        return this.u64(o);
      default:
        throw new Corrupt(`integer width ${width}`);
    }
  }
  f32(o: number): number {
    const i = this.at(o, 4);
    return this.little ? this.window.readFloatLE(i) : this.window.readFloatBE(i);
  }
  f64(o: number): number {
    const i = this.at(o, 8);
    return this.little ? this.window.readDoubleLE(i) : this.window.readDoubleBE(i);
  }
  /** `length` bytes from `o` (a view: valid after the window moves, as a moved window is a new buffer). */
  slice(o: number, length: number, what = 'data'): Buffer {
    const i = this.at(o, length, what);
    return this.window.subarray(i, i + length);
  }
  /** Whether the ASCII text `s` is at `o`. */
  has(o: number, s: string): boolean {
    return o >= 0 && o + s.length <= this.length && this.slice(o, s.length).toString('latin1') === s;
  }
  /** Throws unless the ASCII text `s` is at `o`; returns the offset after it. */
  expect(o: number, s: string): number {
    if (!this.has(o, s)) throw new Corrupt(`expected ${s}`);
    return o + s.length;
  }
  /** `length` bytes from `o` as Latin-1 text. */
  latin1(o: number, length: number): string {
    return this.slice(o, length).toString('latin1');
  }
}

/** Decodes text (a TextDecoder for the file's encoding). */
export interface Decoder {
  decode(bytes: Uint8Array): string;
}

/** Text up to the first NUL byte. */
export function cString(b: Buffer, decoder: Decoder): string {
  const end = b.indexOf(0);
  return decoder.decode(end < 0 ? b : b.subarray(0, end));
}

/**
 * A float32's shortest decimal text (what Stata and NumPy print): 0.1f is `0.1`, not the
 * double 0.10000000149011612 it widens to.
 */
export function float32Text(x: number): string {
  for (let p = 1; p <= 9; p++) {
    const y = Number(x.toPrecision(p));
    if (Math.fround(y) === x) return String(y);
  }
  return String(x);
}

const MS_PER_DAY = 86_400_000;
/** 1960-01-01 (the Stata and SAS epoch) in days since 1970-01-01. */
const EPOCH_1960_DAYS = -3653;

/** Days since 1960-01-01 as `YYYY-MM-DD` (a date the release's date handling reads). */
export function date1960(days: number): string | undefined {
  const ms = (Math.floor(days) + EPOCH_1960_DAYS) * MS_PER_DAY;
  const d = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(d.getTime())) return undefined;
  const iso = d.toISOString();
  return /^\d{4}-/.test(iso) ? iso.slice(0, 10) : undefined;
}

/** Seconds since 1960-01-01T00:00:00 as `YYYY-MM-DDTHH:MM:SS` (fractions of a second dropped). */
export function datetime1960(seconds: number): string | undefined {
  const ms = (Math.floor(seconds) + EPOCH_1960_DAYS * 86_400) * 1000;
  const d = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(d.getTime())) return undefined;
  const iso = d.toISOString();
  return /^\d{4}-/.test(iso) ? iso.slice(0, 19) : undefined;
}
