/**
 * The Stata and SAS parsers read a file through a bounded window (binary.ts): with a window far
 * smaller than a row or a page, moved at almost every read, every fixture parses to the same
 * names, labels and rows as from the whole file in memory, and a read past the end is Corrupt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ByteFile, Bytes, Corrupt } from './binary.ts';
import { parseDta } from './dta.ts';
import { parseSas7bdat } from './sas7bdat.ts';

const FIXTURES = fileURLToPath(new URL('../../../../test/unit/formats/fixtures/', import.meta.url));

/** A file source over `buf` that counts its reads and the most bytes one read returned. */
function counted(buf: Buffer) {
  const stats = { reads: 0, largest: 0 };
  const source: ByteFile = {
    length: buf.length,
    read(offset, length) {
      stats.reads++;
      const out = Buffer.from(buf.subarray(offset, offset + length));
      stats.largest = Math.max(stats.largest, out.length);
      return out;
    },
  };
  return { source, stats };
}

const parsers = { dta: parseDta, sas7bdat: parseSas7bdat } as const;
const fixtures = readdirSync(FIXTURES).filter((f) => /\.(dta|sas7bdat)$/.test(f));

describe('a parser reading through a small window', () => {
  it.each(fixtures)('%s: the same table as from the whole file', (name) => {
    const parse = parsers[name.endsWith('.dta') ? 'dta' : 'sas7bdat'];
    const whole = readFileSync(FIXTURES + name);
    const expected = parse(whole);
    const { source, stats } = counted(whole);
    const windowed = parse(new Bytes(source, true, 32));
    expect(windowed.names).toEqual(expected.names);
    expect(windowed.labels).toEqual(expected.labels);
    expect([...windowed.rows()]).toEqual([...expected.rows()]);
    expect(stats.reads).toBeGreaterThan(1);
    // Each read is the window or one field, row or page: never the file (unless it is that small).
    expect(stats.largest).toBeLessThan(Math.max(whole.length, 32 * 1024));
  });

  it('a read past the end of the file is Corrupt, inside or across a window', () => {
    const { source } = counted(Buffer.alloc(100, 1));
    const b = new Bytes(source, true, 16);
    expect(b.u32(96)).toBe(0x01010101);
    expect(() => b.u32(97)).toThrow(Corrupt);
    expect(() => b.slice(90, 20)).toThrow(Corrupt);
    expect(b.slice(0, 100).length).toBe(100);
  });
});
