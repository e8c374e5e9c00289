/**
 * The byte side of CSV reading: a Transform from file bytes to UTF-8 text that, in the same
 * pass, hashes the bytes (the dataset fingerprint), counts them (progress) and rejects bytes
 * that are not UTF-8 with the line and column where they occur.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import Papa from 'papaparse';
import { InputError } from '../errors.ts';
import { firstInvalidUtf8, leadingContinuationBytes } from './utf8.ts';

export type Delimiter = ',' | ';' | '\t';

export const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

const NEWLINE = 0x0a;

/**
 * The delimiter among `,` `;` and tab that splits the first rows of `sample` most consistently
 * (papaparse's guesser, which respects quotes); `,` when none does (a one-column table).
 */
export function detectDelimiter(sample: string): Delimiter {
  const probe = Papa.parse<string[]>(sample, {
    preview: 10,
    skipEmptyLines: true,
    delimitersToGuess: [...DELIMITERS],
  });
  const guessed = probe.meta.delimiter as Delimiter;
  const failed = probe.errors.some((e) => e.code === 'UndetectableDelimiter');
  return !failed && DELIMITERS.includes(guessed) ? guessed : ',';
}

export function describeDelimiter(d: Delimiter): string {
  return d === '\t' ? 'tab' : `'${d}'`;
}

/** Text held back for delimiter detection: this many line breaks, or this many characters. */
const DETECT_LINES = 11;
const DETECT_CHARS = 64 * 1024;

/** Text chunks out, bytes in; see the module comment. Readable side is in object mode (strings). */
export class CsvTextSource extends Transform {
  /** Given, or detected from the first rows (the text is held back until there are enough). */
  delimiter: Delimiter | undefined;
  bytesRead = 0;
  private readonly hash: Hash = createHash('sha256');
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /** Newline bytes before the current chunk and delimiter bytes since the last newline. */
  private newlinesBefore = 0;
  private delimitersInOpenLine = 0;
  /** Chunks and text held back until the delimiter is known. */
  private held: Buffer[] = [];
  private heldText = '';
  private heldLines = 0;

  constructor(
    private readonly file: string,
    delimiter?: Delimiter,
    private readonly signal?: AbortSignal,
  ) {
    super({ readableObjectMode: true });
    this.delimiter = delimiter;
  }

  /** SHA-256 hex of every byte seen; valid once the stream has ended. */
  fingerprint(): string {
    return this.hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    done(this.consume(chunk));
  }

  override _flush(done: TransformCallback): void {
    let rest: string;
    try {
      rest = this.decoder.decode();
    } catch {
      // A multi-byte character cut off by the end of the file.
      this.release('');
      done(this.utf8Error(this.newlinesBefore + 1, this.delimitersInOpenLine + 1, this.bytesRead - 1, -1));
      return;
    }
    this.release(rest);
    done();
  }

  /** Hashes, decodes and pushes one chunk; returns the error that stops reading, if any. */
  private consume(chunk: Buffer): Error | undefined {
    if (this.signal?.aborted) return this.signal.reason as Error;
    this.bytesRead += chunk.length;
    this.hash.update(chunk);
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      return this.invalidUtf8(chunk);
    }
    if (this.delimiter === undefined) {
      this.hold(chunk, text);
      return undefined;
    }
    this.countLines(chunk);
    if (text.length > 0) this.push(text);
    return undefined;
  }

  private hold(chunk: Buffer, text: string): void {
    this.held.push(chunk);
    this.heldText += text;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.heldLines++;
    if (this.heldLines >= DETECT_LINES || this.heldText.length >= DETECT_CHARS) this.release('');
  }

  /** Detects the delimiter from the held text (if still unknown), then pushes it and `more`. */
  private release(more: string): void {
    if (this.delimiter === undefined) {
      this.delimiter = detectDelimiter(this.heldText);
      for (const c of this.held) this.countLines(c);
    }
    const text = this.heldText + more;
    this.held = [];
    this.heldText = '';
    if (text.length > 0) this.push(text);
  }

  private countLines(chunk: Buffer): void {
    let last = -1;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) {
      this.newlinesBefore++;
      last = i;
    }
    if (last !== -1) this.delimitersInOpenLine = 0;
    this.delimitersInOpenLine += this.countDelimiters(chunk, last + 1, chunk.length);
  }

  private countDelimiters(chunk: Buffer, from: number, to: number): number {
    const code = (this.delimiter ?? ',').charCodeAt(0);
    let n = 0;
    for (let i = chunk.indexOf(code, from); i !== -1 && i < to; i = chunk.indexOf(code, i + 1)) n++;
    return n;
  }

  private invalidUtf8(chunk: Buffer): InputError {
    // Bytes continuing a character begun in the previous chunk are not the culprit; in the
    // first chunk there is no previous chunk, so a leading continuation byte is.
    const isFirstChunk = this.bytesRead === chunk.length;
    let at = firstInvalidUtf8(chunk, isFirstChunk ? 0 : leadingContinuationBytes(chunk));
    if (at === -1) at = 0;
    if (this.delimiter === undefined) {
      this.delimiter = detectDelimiter(this.heldText + new TextDecoder().decode(chunk.subarray(0, at)));
      for (const c of this.held) this.countLines(c);
    }
    let line = this.newlinesBefore + 1;
    let lineStart = 0;
    for (let i = chunk.indexOf(NEWLINE); i !== -1 && i < at; i = chunk.indexOf(NEWLINE, i + 1)) {
      line++;
      lineStart = i + 1;
    }
    const before = lineStart === 0 ? this.delimitersInOpenLine : 0;
    const column = before + this.countDelimiters(chunk, lineStart, at) + 1;
    return this.utf8Error(line, column, this.bytesRead - chunk.length + at, chunk[at]);
  }

  private utf8Error(line: number, column: number, offset: number, byte: number): InputError {
    const what =
      byte >= 0
        ? `invalid UTF-8 byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')}`
        : 'a truncated UTF-8 character';
    return new InputError(
      `${this.file}, line ${line}, column ${column}: ${what} at byte offset ${offset}; the file is not UTF-8 text. ` +
        'Re-save it as UTF-8 (in a spreadsheet: "CSV UTF-8").',
      { file: this.file, line, column },
    );
  }
}
