import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprintAndCountRows, RecordCounter } from './file-facts.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rap-rowcount-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function write(text: string): string {
  const file = path.join(dir, `f${files++}.csv`);
  writeFileSync(file, text);
  return file;
}

const NAMES = ['a', 'b', 'c'];
// Cells that need quoting (commas, quotes, line breaks) as well as plain ones; never blank-only rows.
const cell = fc.oneof(
  fc.constantFrom('x', 'yes', '42', '3.5', '?'),
  fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', ',', '"', '\n', '\r\n', ' ') }),
);
const row = fc.array(cell, { minLength: 3, maxLength: 3 }).filter((r) => r.some((v) => v.trim() !== ''));

describe('fingerprintAndCountRows', () => {
  it('counts records like a CSV parser: quoted line breaks, CRLF, blank lines, header or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 30 }),
        fc.boolean(),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(40), { maxLength: 3 }),
        fc.boolean(),
        async (rows, header, newline, blanks, trailing) => {
          const table = header ? [NAMES, ...rows] : rows;
          if (table.length === 0) return;
          const lines = Papa.unparse(table, { newline, quotes: false }).split(newline);
          // Blank lines between records (a blank line inside a quoted cell would change the data).
          const safe = new Set(
            lines
              .map((_, i) => i)
              .filter((i) => (lines.slice(0, i).join('').match(/"/g) ?? []).length % 2 === 0),
          );
          for (const b of blanks) if (safe.has(b % lines.length)) lines.splice(b % lines.length, 0, '');
          const text = lines.join(newline) + (trailing ? newline : '');
          const file = write(text);
          const expectedRows = rows.length;
          if (expectedRows === 0) {
            await expect(fingerprintAndCountRows(file, NAMES)).rejects.toThrow(/no data rows/);
            return;
          }
          const facts = await fingerprintAndCountRows(file, NAMES);
          expect(facts.hasHeader).toBe(header);
          expect(facts.rows).toBe(expectedRows);
          expect(facts.fingerprint).toBe(createHash('sha256').update(text).digest('hex'));
          expect(facts.quotes).toBe(text.includes('"'));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('recognizes a header by the schema names (any order, extra columns, BOM, semicolons)', async () => {
    expect((await fingerprintAndCountRows(write('\uFEFFc;x;a;b\n1;2;3;4\n'), NAMES)).hasHeader).toBe(true);
    expect((await fingerprintAndCountRows(write('a,b\n1,2\n'), NAMES)).hasHeader).toBe(false);
  });

  it('names the file when it cannot be read', async () => {
    await expect(fingerprintAndCountRows(path.join(dir, 'nope.csv'), NAMES)).rejects.toThrow(
      /nope\.csv: cannot read the data file \(no such file\)/,
    );
  });
});

/** The byte-by-byte counter RecordCounter replaced: the brute force it must agree with. */
function byteLoopCount(chunks: readonly Uint8Array[]): { records: number; firstRecord: string } {
  let records = 0;
  let inQuote = false;
  let content = false;
  let first: number[] | undefined = [];
  let firstRecord = '';
  const end = () => {
    if (!content) return;
    records++;
    content = false;
    if (first) {
      firstRecord = Buffer.from(first)
        .toString('utf8')
        .replace(/^\uFEFF/, '');
      first = undefined;
    }
  };
  for (const chunk of chunks) {
    for (const b of chunk) {
      if (b === 0x22) {
        inQuote = !inQuote;
        content = true;
      } else if (b === 0x0a && !inQuote) {
        end();
        continue;
      } else if (b !== 0x20 && b !== 0x09 && b !== 0x0d) content = true;
      if (first && content && first.length < 1 << 20) first.push(b);
    }
  }
  end();
  return { records, firstRecord };
}

describe('RecordCounter (indexOf jumps) = the byte loop', () => {
  it('on random bytes of quotes, newlines, blanks and text, in random chunks', () => {
    const bytes = fc.array(fc.constantFrom(0x22, 0x0a, 0x20, 0x09, 0x0d, 0x61, 0x2c), { maxLength: 300 });
    fc.assert(
      fc.property(bytes, fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 20 }), (b, cuts) => {
        const all = Buffer.from(b);
        const chunks: Buffer[] = [];
        let at = 0;
        for (const c of cuts) {
          if (at >= all.length) break;
          chunks.push(all.subarray(at, at + c));
          at += c;
        }
        if (at < all.length) chunks.push(all.subarray(at));
        const counter = new RecordCounter();
        for (const c of chunks) counter.push(c);
        counter.endRecord();
        expect({ records: counter.records, firstRecord: counter.firstRecord }).toEqual(byteLoopCount(chunks));
      }),
      { numRuns: 3000 },
    );
  });
});
