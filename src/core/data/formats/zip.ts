/**
 * The parts of a ZIP archive (an .xlsx workbook) read by position: the central directory at the
 * file's end names each part with its offset and sizes, and a part's bytes are read and inflated
 * as a stream (Node's zlib), never the whole archive or a whole part in memory. Stored and
 * deflated parts (what every .xlsx writer makes); ZIP64 archives (over 4 GiB, beyond any Excel
 * sheet) and encrypted parts are refused. A part's CRC-32 is checked as its last byte passes.
 * Every fault in the bytes throws `Corrupt` (binary.ts), which the reader turns into an
 * InputError naming the file.
 */
import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';
import { Corrupt, readFileAt } from './binary.ts';

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  /** As the directory states it: a bound the reader enforces, not a trusted size. */
  readonly size: number;
  readonly localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** End-of-central-directory record: 22 bytes and a comment of at most 65,535. */
const EOCD_SEARCH = 22 + 0xffff;

/** Exactly `length` bytes from `offset` (binary.ts readFileAt), or Corrupt where the file ends first. */
function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = readFileAt(fd, offset, length);
  if (buf.length < length) throw new Corrupt('the archive ends early');
  return buf;
}

/** The archive's parts by name, from its central directory (`file` opened and closed here). */
export function zipEntries(file: string): Map<string, ZipEntry> {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tailStart = Math.max(0, size - EOCD_SEARCH);
    const tail = readAt(fd, tailStart, size - tailStart);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new Corrupt('not a ZIP archive (no central directory)');
    const count = tail.readUInt16LE(at + 10);
    const dirSize = tail.readUInt32LE(at + 12);
    const dirOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
      throw new Corrupt('a ZIP64 archive (over 4 GiB)');
    }
    if (dirOffset + dirSize > tailStart + at) throw new Corrupt('the central directory runs past its end');
    const dir = readAt(fd, dirOffset, dirSize);
    const entries = new Map<string, ZipEntry>();
    let p = 0;
    for (let k = 0; k < count; k++) {
      if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL)
        throw new Corrupt('a damaged central directory');
      const flags = dir.readUInt16LE(p + 8);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      if (p + 46 + nameLength > dir.length) throw new Corrupt('a damaged central directory');
      const entry: ZipEntry = {
        name: dir.toString('utf8', p + 46, p + 46 + nameLength),
        method: dir.readUInt16LE(p + 10),
        crc: dir.readUInt32LE(p + 16),
        compressedSize: dir.readUInt32LE(p + 20),
        size: dir.readUInt32LE(p + 24),
        localOffset: dir.readUInt32LE(p + 42),
      };
      if (flags & 1) throw new Corrupt(`an encrypted part (${entry.name})`);
      if (
        entry.compressedSize === 0xffffffff ||
        entry.size === 0xffffffff ||
        entry.localOffset === 0xffffffff
      ) {
        throw new Corrupt('a ZIP64 archive (over 4 GiB)');
      }
      entries.set(entry.name, entry);
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    closeSync(fd);
  }
}

/** Where a part's compressed bytes start (after its local header). */
function dataOffset(file: string, entry: ZipEntry): number {
  const fd = openSync(file, 'r');
  try {
    const local = readAt(fd, entry.localOffset, 30);
    if (local.readUInt32LE(0) !== LOCAL) throw new Corrupt(`a damaged local header (${entry.name})`);
    const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (start + entry.compressedSize > fstatSync(fd).size)
      throw new Corrupt(`${entry.name} runs past the end`);
    return start;
  } finally {
    closeSync(fd);
  }
}

/**
 * A part's bytes, inflated as they are read (about 64 KiB at a time); more than the directory's
 * size, or a CRC-32 that does not match, is a fault. Breaking out of the loop closes the file.
 */
export async function* zipPart(file: string, entry: ZipEntry): AsyncGenerator<Buffer> {
  if (entry.method !== 0 && entry.method !== 8) throw new Corrupt(`compression method ${entry.method}`);
  const start = dataOffset(file, entry);
  let crc = 0;
  let size = 0;
  const check = (chunk: Buffer) => {
    size += chunk.length;
    if (size > entry.size) throw new Corrupt(`${entry.name} is longer than its directory entry says`);
    crc = crc32(chunk, crc);
  };
  if (entry.compressedSize === 0) {
    if (entry.size !== 0) throw new Corrupt(`${entry.name} is empty`);
    return;
  }
  const raw = createReadStream(file, {
    start,
    end: start + entry.compressedSize - 1,
    highWaterMark: 1 << 16,
  });
  const bytes = entry.method === 0 ? raw : pipeline(raw, createInflateRaw(), () => {});
  try {
    for await (const chunk of bytes as AsyncIterable<Buffer>) {
      check(chunk);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof Corrupt) throw err;
    throw new Corrupt(`${entry.name}: ${(err as Error).message}`);
  } finally {
    raw.destroy();
    if (bytes !== raw) bytes.destroy();
  }
  if (size !== entry.size || crc >>> 0 !== entry.crc >>> 0) {
    throw new Corrupt(`${entry.name} does not match its checksum`);
  }
}
