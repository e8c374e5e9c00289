/**
 * Bounds-checked reads from a whole binary file (the Stata and SAS readers): every read past the
 * end, or a count that cannot fit in the bytes left, throws `Corrupt`, which the format's reader
 * turns into an InputError naming the file. Nothing here loops on a count read from the file.
 */

/** The file's bytes do not follow the format (damaged, truncated, or another kind of file). */
export class Corrupt extends Error {
  override readonly name = 'Corrupt';
}

export class Bytes {
  constructor(
    readonly buf: Buffer,
    readonly little: boolean,
  ) {}

  get length(): number {
    return this.buf.length;
  }

  /** Throws unless `length` bytes exist from `offset`. */
  need(offset: number, length: number, what = 'data'): void {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
      throw new Corrupt(`bad offset for ${what}`);
    }
    if (offset + length > this.buf.length) throw new Corrupt(`${what} runs past the end of the file`);
  }

  u8(o: number): number {
    this.need(o, 1);
    return this.buf[o];
  }
  i8(o: number): number {
    this.need(o, 1);
    return this.buf.readInt8(o);
  }
  u16(o: number): number {
    this.need(o, 2);
    return this.little ? this.buf.readUInt16LE(o) : this.buf.readUInt16BE(o);
  }
  i16(o: number): number {
    this.need(o, 2);
    return this.little ? this.buf.readInt16LE(o) : this.buf.readInt16BE(o);
  }
  u32(o: number): number {
    this.need(o, 4);
    return this.little ? this.buf.readUInt32LE(o) : this.buf.readUInt32BE(o);
  }
  i32(o: number): number {
    this.need(o, 4);
    return this.little ? this.buf.readInt32LE(o) : this.buf.readInt32BE(o);
  }
  /** An unsigned 64-bit count or offset; one beyond 2^53 cannot be a position in this file. */
  u64(o: number): number {
    this.need(o, 8);
    const v = this.little ? this.buf.readBigUInt64LE(o) : this.buf.readBigUInt64BE(o);
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
    this.need(o, 4);
    return this.little ? this.buf.readFloatLE(o) : this.buf.readFloatBE(o);
  }
  f64(o: number): number {
    this.need(o, 8);
    return this.little ? this.buf.readDoubleLE(o) : this.buf.readDoubleBE(o);
  }
  slice(o: number, length: number, what = 'data'): Buffer {
    this.need(o, length, what);
    return this.buf.subarray(o, o + length);
  }
  /** Whether the ASCII text `s` is at `o`. */
  has(o: number, s: string): boolean {
    return o >= 0 && o + s.length <= this.buf.length && this.buf.toString('latin1', o, o + s.length) === s;
  }
  /** Throws unless the ASCII text `s` is at `o`; returns the offset after it. */
  expect(o: number, s: string): number {
    if (!this.has(o, s)) throw new Corrupt(`expected ${s}`);
    return o + s.length;
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
