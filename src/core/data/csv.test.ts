import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import Papa from 'papaparse';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../errors.ts';
import {
  type CsvProgress,
  type CsvReadOptions,
  detectDelimiter,
  MAX_CSV_COLUMNS,
  readCsvRecords,
} from './csv.ts';
import { writeCsv } from './csv-write.ts';
import { fingerprintFile } from './fingerprint.ts';
import { tempDir } from './testing.ts';

const dir = tempDir();
afterAll(() => dir.remove());

interface Rec {
  line: number;
  fields: string[];
}

async function records(path: string, opts: CsvReadOptions = {}): Promise<Rec[]> {
  const out: Rec[] = [];
  await readCsvRecords(path, (fields, line) => out.push({ line, fields: [...fields] }), opts);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<InputError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

describe('readCsvRecords', () => {
  it('refuses a record with more than MAX_CSV_COLUMNS fields (a 1 MiB header holds ~500k), naming the line', async () => {
    const header = Array.from({ length: MAX_CSV_COLUMNS + 1 }, (_, i) => `c${i}`).join(',');
    const path = dir.file('wide.csv', `a,b\n1,2\n${header}\n`);
    const err = await failure(records(path));
    expect(err.message).toMatch(/line 3: 10001 fields; RAP Studio reads at most 10000 columns/);
    const ok = Array.from({ length: MAX_CSV_COLUMNS }, (_, i) => `c${i}`).join(',');
    expect(await records(dir.file('wide-ok.csv', `${ok}\n`))).toHaveLength(1);
  });

  it('handles BOM, CRLF, quoted fields with embedded newlines, blank lines; counts physical lines', async () => {
    const path = dir.file('mixed.csv', '\uFEFFa,b,c\r\n1,"x\r\ny, ""z""",3\r\n\r\n4, 5 ,6\r\n"7",8,9');
    expect(await records(path)).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', 'x\r\ny, "z"', '3'] },
      { line: 5, fields: ['4', '5', '6'] },
      { line: 6, fields: ['7', '8', '9'] },
    ]);
  });

  it('trims the space UCI files put after each delimiter, unless told not to', async () => {
    const path = dir.file('uci.csv', '39, State-gov, 77516\n50, ?, 83311\n');
    expect((await records(path)).map((r) => r.fields)).toEqual([
      ['39', 'State-gov', '77516'],
      ['50', '?', '83311'],
    ]);
    expect((await records(path, { trim: false }))[0].fields).toEqual(['39', ' State-gov', ' 77516']);
  });

  it.each([
    [';', 'a;b;c\n1;2,5;3\n4;5,5;6\n'],
    ['\t', 'a\tb\tc\n1\t2,5\t3\n4\t5;5\t6\n'],
    [',', 'a,b,c\n"1;2",2,3\n4,5,6\n'],
  ])('detects the delimiter %j', async (delimiter, text) => {
    const path = dir.file('delim.csv', text);
    const result = await readCsvRecords(path, () => {});
    expect(result.delimiter).toBe(delimiter);
    expect(detectDelimiter(text)).toBe(delimiter);
  });

  it('reports the summary: records, blank lines, size, fingerprint of the bytes', async () => {
    const text = 'a,b\n1,2\n\n3,4\n';
    const path = dir.file('summary.csv', text);
    const result = await readCsvRecords(path, () => {});
    expect(result).toEqual({
      file: path,
      delimiter: ',',
      totalBytes: text.length,
      records: 3,
      blankLines: 1,
      fingerprint: createHash('sha256').update(text).digest('hex'),
    });
    expect(await fingerprintFile(path)).toBe(result.fingerprint);
  });

  it('reports progress per chunk up to the whole file', async () => {
    const text = `a,b\n${'1,2\n'.repeat(1000)}`;
    const path = dir.file('progress.csv', text);
    const seen: CsvProgress[] = [];
    await readCsvRecords(path, () => {}, { chunkBytes: 256, onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.at(-1)).toEqual({ bytes: text.length, totalBytes: text.length, rows: 1001 });
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].bytes).toBeGreaterThanOrEqual(seen[i - 1].bytes);
      expect(seen[i].rows).toBeGreaterThanOrEqual(seen[i - 1].rows);
    }
  });

  it('stops when the signal aborts', async () => {
    const path = dir.file('abort.csv', `a,b\n${'1,2\n'.repeat(5000)}`);
    const controller = new AbortController();
    let seen = 0;
    const reading = readCsvRecords(
      path,
      () => {
        if (++seen === 10) controller.abort(new Error('stop'));
      },
      { chunkBytes: 1024, signal: controller.signal },
    );
    await expect(reading).rejects.toThrow('stop');
    expect(seen).toBeLessThan(5000);
  });

  it('rejects non-UTF-8 bytes naming line, column and offset', async () => {
    const bytes = Buffer.concat([
      Buffer.from('name;city\nAnna;Z'),
      Buffer.from([0xfc]),
      Buffer.from('rich\n'),
    ]);
    const path = dir.file('latin1.csv', bytes);
    const err = await failure(records(path));
    expect(err.message).toBe(
      `${path}, line 2, column 2: invalid UTF-8 byte 0xFC at byte offset 16; the file is not UTF-8 text. ` +
        'Re-save it as UTF-8 (in a spreadsheet: "CSV UTF-8").',
    );
    expect(err.where).toEqual({ file: path, line: 2, column: 2 });
  });

  it('names a bad byte at the very start of the file (a continuation byte with no lead)', async () => {
    const path = dir.file('png.csv', Buffer.concat([Buffer.from([0x89]), Buffer.from('PNG,x\n1,2\n')]));
    const err = await failure(records(path));
    expect(err.message).toContain(`${path}, line 1, column 1: invalid UTF-8 byte 0x89 at byte offset 0;`);
  });

  it('finds a bad byte far from the start, across chunk edges', async () => {
    const good = 'x,y,z\n'.repeat(3000);
    const bytes = Buffer.concat([Buffer.from(`${good}1,2,`), Buffer.from([0xe2, 0x28]), Buffer.from('\n')]);
    const path = dir.file('far.csv', bytes);
    const err = await failure(records(path, { chunkBytes: 100 }));
    expect(err.message).toContain(
      `${path}, line 3001, column 3: invalid UTF-8 byte 0xE2 at byte offset ${good.length + 4};`,
    );
  });

  it('accepts multi-byte characters split across chunk edges', async () => {
    const text = `a,b\n${'ü,日本😀\n'.repeat(200)}`;
    const path = dir.file('split.csv', text);
    const rows = await records(path, { chunkBytes: 7 });
    expect(rows).toHaveLength(201);
    expect(rows[200]).toEqual({ line: 201, fields: ['ü', '日本😀'] });
  });

  it('rejects a character cut off by the end of the file', async () => {
    const path = dir.file('cut.csv', Buffer.concat([Buffer.from('a,b\n1,'), Buffer.from([0xe6, 0x97])]));
    const err = await failure(records(path));
    expect(err.message).toBe(
      `${path}, line 2, column 2: a truncated UTF-8 character at byte offset 7; the file is not UTF-8 text. ` +
        'Re-save it as UTF-8 (in a spreadsheet: "CSV UTF-8").',
    );
  });

  it('fails fast on a 50 MB file with no line break', async () => {
    const path = dir.file('oneline.csv', Buffer.alloc(50 * 1024 * 1024, 'a'));
    let progressBytes = 0;
    const err = await failure(records(path, { onProgress: (p) => (progressBytes = p.bytes) }));
    expect(err.message).toBe(
      `${path}, line 1: a record is longer than 1048576 characters; ` +
        'this is not a CSV table, or a quote (") opened on this line is never closed.',
    );
    expect(progressBytes).toBeLessThan(4 * 1024 * 1024);
  });

  it('fails on a quote never closed, naming the line it opened on', async () => {
    const path = dir.file('quote.csv', `a,b\n1,2\n3,"oops\n${'5,6\n'.repeat(3000)}`);
    const err = await failure(records(path, { maxRecordChars: 1000, chunkBytes: 512 }));
    expect(err.message).toBe(
      `${path}, line 3: a record is longer than 1000 characters; ` +
        'this is not a CSV table, or a quote (") opened on this line is never closed.',
    );
  });

  it('reports an unclosed quote in a short file as such, with its line', async () => {
    const path = dir.file('short-quote.csv', 'a,b,c\n1,"x,3\n4,5,6\n');
    const err = await failure(records(path));
    expect(err.message).toBe(
      `${path}, line 2: a quote (") opened on this line is never closed, so the rest of the file ` +
        'would be one field; close the quote, or remove it (a quote inside a field is written "").',
    );
  });

  it('names a missing file', async () => {
    const path = `${dir.path}/nope.csv`;
    const err = await failure(records(path));
    expect(err.message).toBe(`${path}: cannot read the file (no such file); check the path.`);
  });

  it('stops on the first error thrown by the record handler', async () => {
    const path = dir.file('handler.csv', `a,b\n${'1,2\n'.repeat(100)}`);
    let calls = 0;
    const reading = readCsvRecords(path, () => {
      calls++;
      if (calls === 3) throw new InputError('bad row');
    });
    await expect(reading).rejects.toThrow('bad row');
    expect(calls).toBe(3);
  });

  it('reads back what writeCsv wrote, with the right line numbers (property)', async () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'b', ',', ';', '"', '\n', '\r\n', ' ', 'é', '\t'),
      maxLength: 6,
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 30 }),
        async (rows) => {
          const path = `${dir.path}/roundtrip-${run++}.csv`;
          await writeCsv(path, ['h1', 'h2', 'h3'], rows);
          const read = await records(path, { trim: false, delimiter: ',', chunkBytes: 64 });
          let line = 2;
          const expected = [{ line: 1, fields: ['h1', 'h2', 'h3'] }];
          for (const r of rows) {
            expected.push({ line, fields: [...r] });
            line += 1 + r.join('').split('\n').length - 1;
          }
          expect(read).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
    expect(readdirSync(dir.path).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('writeCsv', () => {
  it('holds at most 200,000 cells of a wide table at once (10,000 rows of 2,000 columns were 1.6 GB)', async () => {
    const spy = vi.spyOn(Papa, 'unparse');
    try {
      const width = 2000;
      const rows = Array.from({ length: 1000 }, (_, i) =>
        Array.from({ length: width }, (_, j) => String((i + j) % 7)),
      );
      const path = `${dir.path}/wide.csv`;
      await writeCsv(
        path,
        Array.from({ length: width }, (_, j) => `c${j}`),
        rows,
      );
      const batches = spy.mock.calls.map((c) => (c[0] as unknown[]).length);
      expect(batches.slice(1).every((b) => b * width <= 200_000)).toBe(true);
      expect(batches.slice(1).reduce((a, b) => a + b, 0)).toBe(1000);
      const back = await records(path);
      expect(back).toHaveLength(1001);
      expect(back[1000].fields).toEqual(rows[999]);
    } finally {
      spy.mockRestore();
    }
  });

  it('writes RFC 4180: CRLF, quotes only where needed, doubled inner quotes', async () => {
    const path = `${dir.path}/out.csv`;
    await writeCsv(
      path,
      ['name', 'note'],
      [
        ['a', 'plain'],
        ['b', 'has, comma'],
        ['c', 'say "hi"'],
        ['d', 'two\nlines'],
      ],
    );
    expect(readFileSync(path, 'utf8')).toBe(
      'name,note\r\na,plain\r\nb,"has, comma"\r\nc,"say ""hi"""\r\nd,"two\nlines"\r\n',
    );
  });

  it('leaves nothing behind when it cannot write', async () => {
    await expect(writeCsv(`${dir.path}/no-such-dir/out.csv`, ['a', 'b'], [])).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir.path).filter((f) => f.includes('out.csv.'))).toEqual([]);
  });

  it('keeps the old file whole when the rows fail midway', async () => {
    const path = dir.file('keep.csv', 'old\r\n');
    function* rows(): Generator<string[]> {
      for (let i = 0; i < 25_000; i++) yield [String(i), 'x'];
      throw new Error('generator broke');
    }
    await expect(writeCsv(path, ['i', 'x'], rows())).rejects.toThrow('generator broke');
    expect(readFileSync(path, 'utf8')).toBe('old\r\n');
    expect(readdirSync(dir.path).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
