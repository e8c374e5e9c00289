/**
 * An SPSS system file's cases decoded synchronously from the file read by position (binary.ts's
 * bounded window), after sav-reader has read the dictionary. sav-reader decodes each 8-byte cell
 * through several awaited promises (peek, command code, read): 300k cases × 10 variables took
 * ~80 CPU s, most of it the library's promises and their garbage (a CPU profile of
 * `rap-studio synth`); this loop reads the same cells with plain reads.
 *
 * The cells, as the PSPP documentation of the format lays them out (and as sav-reader 2.0.8
 * decodes them, whose records these equal): uncompressed, 8 bytes a cell (a little-endian double,
 * or 8 bytes of a string); bytecode-compressed, blocks of 8 command codes, each followed by the
 * cells its 253 codes announce: 0 padding (skipped), 1–251 the number `code − bias`, 252 the end
 * of the data, 253 a cell read as is, 254 a string cell of blanks, 255 system-missing. A string
 * variable spans its segments (a very long string, over 255 bytes, is several segments of up to
 * 255 bytes each), each of its own 8-byte cells; its text is the segments' text, trailing blanks
 * trimmed. Departures from sav-reader: a 252 code ends the cases (PSPP writes it at the end of
 * compressed data; the library read on past it and failed at the file's end, refusing the file), a
 * case cut short by the file's end is a fault (not missing values), and a string is decoded as
 * UTF-8 whole, its segments' bytes joined first (the library decoded each 8-byte cell alone: a
 * character across two cells, or two segments, was lost).
 */
import type { Bytes } from './binary.ts';
import { Corrupt } from './binary.ts';

/** A variable's cells: a number, or a string's segments (each of `cells` 8-byte cells). */
export type SavCell =
  | { readonly kind: 'number' }
  | { readonly kind: 'string'; readonly segments: readonly number[] };

export interface SavCaseLayout {
  readonly cells: readonly SavCell[];
  /** The bias of bytecode compression; absent: the file is not compressed. */
  readonly bias?: number;
  /** The byte offset of the first case (after the dictionary's termination record). */
  readonly start: number;
}

/** System-missing (and an absent value): `null`. A string variable's text, trimmed at its end. */
export type SavValue = number | string | null;

const BLANKS = Buffer.from('        ', 'latin1');

/** The cases of `bytes` from `layout.start`, one at a time; `next` is null past the last. */
export class SavCases {
  private pos: number;
  private readonly codes = new Uint8Array(8);
  /** The next command code's index in `codes`; 8: the block is used up. */
  private codeAt = 8;
  private ended = false;

  constructor(
    private readonly bytes: Bytes,
    private readonly layout: SavCaseLayout,
  ) {
    this.pos = layout.start;
  }

  /** The next case's values (one per variable), or null after the last case. */
  next(): SavValue[] | null {
    if (this.ended || !this.more()) return null;
    const { cells } = this.layout;
    const out: SavValue[] = new Array(cells.length);
    for (let j = 0; j < cells.length; j++) {
      const cell = cells[j];
      out[j] = cell.kind === 'number' ? this.number() : this.string(cell.segments);
    }
    return out;
  }

  /** Whether a case follows: bytes left (uncompressed), or a command code other than padding and 252. */
  private more(): boolean {
    if (this.layout.bias === undefined) return this.pos < this.bytes.length;
    for (;;) {
      if (this.codeAt === 8) {
        if (this.pos >= this.bytes.length) return false;
        this.block();
      }
      const code = this.codes[this.codeAt];
      if (code === 252) {
        this.ended = true;
        return false;
      }
      if (code !== 0) return true;
      this.codeAt++;
    }
  }

  private block(): void {
    const b = this.bytes.slice(this.pos, 8, 'command codes');
    this.codes.set(b);
    this.pos += 8;
    this.codeAt = 0;
  }

  /** The next command code other than padding (0); a case cut short by the file's end is a fault. */
  private code(): number {
    for (;;) {
      if (this.codeAt === 8) {
        if (this.pos >= this.bytes.length) throw new Corrupt('a case runs past the end of the file');
        this.block();
      }
      const code = this.codes[this.codeAt++];
      if (code !== 0) return code;
    }
  }

  private raw(): number {
    const x = this.bytes.f64(this.pos);
    this.pos += 8;
    return x;
  }

  private number(): number | null {
    const { bias } = this.layout;
    if (bias === undefined) return this.raw();
    if (this.ended) return null;
    const code = this.code();
    if (code < 252) return code - bias;
    if (code === 253) return this.raw();
    if (code === 252) this.ended = true; // the data end inside a case: its other values are missing
    return null; // 254 (a blank string cell where a number belongs), 255 system-missing
  }

  /** One 8-byte string cell: its bytes (blanks for 254 and for codes that do not belong to strings). */
  private stringCell(): Buffer {
    const code = this.layout.bias === undefined ? 253 : this.ended ? 252 : this.code();
    if (code === 253) {
      const b = this.bytes.slice(this.pos, 8, 'a string cell');
      this.pos += 8;
      return b;
    }
    if (code === 252) this.ended = true;
    return BLANKS;
  }

  private string(segments: readonly number[]): string {
    if (segments.length === 1 && segments[0] === 1) return this.stringCell().toString('utf8').trimEnd();
    // The segments' bytes, decoded as one text: a character may span two segments (or cells).
    const parts: Buffer[] = [];
    for (const n of segments) {
      const buf = Buffer.allocUnsafe(n * 8);
      for (let k = 0; k < n; k++) this.stringCell().copy(buf, k * 8);
      // A segment holds at most 255 bytes; its 256th is padding (as sav-reader and ReadStat cut it).
      parts.push(buf.length > 255 ? buf.subarray(0, 255) : buf);
    }
    return (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8').trimEnd();
  }
}
