/**
 * Bad input and output faults through the real CLI (`node bin/rap-studio.mjs synth`), for the
 * cases test/unit/cli does not cover: data files that are empty, binary, one 50 MB line, or all
 * ragged rows; ragged rows among good ones; a cap already spent; an output folder that is
 * read-only; a full disk. Each asserts the exact message and what the ledger holds afterwards.
 *
 * A data file that cannot be loaded is refused before the ledger reserves anything (the CLI
 * validates the file for the curator first), and a full disk never leaves a truncated output
 * in place (atomic writes loop until every byte is written or the write fails).
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  type Fixture,
  makeFixture,
  runCli,
  setCap,
  synthArgs,
  withLedger,
} from '../support/cli.ts';
import {
  diskFullUnavailable,
  makeReadOnly,
  mountTinyDisk,
  readOnlyUnavailable,
} from '../support/fs-faults.ts';
import { garbage } from './fixtures.ts';
import { ledgerCounts } from './harness.ts';

let fx: Fixture;
beforeAll(() => {
  fx = makeFixture();
  writeFileSync(path.join(fx.dir, 'empty.csv'), '');
  writeFileSync(path.join(fx.dir, 'data.xlsx'), garbage(64 * 1024));
  writeFileSync(path.join(fx.dir, 'data.txt'), garbage(64 * 1024));
  writeFileSync(path.join(fx.dir, 'one-line.csv'), 'x'.repeat(50 * 1024 * 1024));
  writeFileSync(path.join(fx.dir, 'all-ragged.csv'), 'a,b,c,d\n1,2\n0,1\n');
  writeFileSync(path.join(fx.dir, 'ragged.csv'), 'a,b,c,d\n1,2,1,1\n0,1\n1,1,1,1\n2,3,1,4\n0,0,0,0\n');
});
afterAll(() => fx?.cleanup());

/** synthArgs with another data file (and its own ledger and outputs). */
function synthOn(data: string, ledger: string, extra: readonly string[] = []): string[] {
  const args = synthArgs(ledger, [...extra]);
  args[args.indexOf('--data') + 1] = data;
  return args;
}

const lastLine = (r: CliResult) => r.stderr.trimEnd().split('\n').pop() ?? '';
const inDir = (name: string) => path.join(fx.dir, name);

describe('synth on data files that cannot be loaded: exit 2, the exact message, nothing released', () => {
  const CASES: [string, string, string][] = [
    [
      'binary garbage',
      'data.txt',
      'data.txt, line 1, column 1: invalid UTF-8 byte 0xF7 at byte offset 9; the file is not UTF-8 text. Re-save it as UTF-8 (in a spreadsheet: "CSV UTF-8").',
    ],
    [
      'binary garbage named as a workbook',
      'data.xlsx',
      'data.xlsx: not a readable Excel workbook (.xlsx); the file is damaged or of another kind. Open and save it again in Excel, or export the sheet as CSV.',
    ],
    [
      'a 50 MB single-line file',
      'one-line.csv',
      'one-line.csv, line 1: a record is longer than 1048576 characters; this is not a CSV table, or a quote (") opened on this line is never closed.',
    ],
    [
      'every row ragged',
      'all-ragged.csv',
      'all-ragged.csv: none of the 2 data rows could be loaded; most were rejected for: row has 2 fields, expected 4 (kept, every value missing) (2 rows, first at line 2).',
    ],
  ];
  it('an empty file: refused before the ledger is touched', async () => {
    const ledger = inDir('ledger-empty.sqlite');
    const r = await runCli(synthOn('empty.csv', ledger, ['--budget-epsilon', '3', '--confirm-cap']), fx.dir);
    expect(r.stderr).toBe('rap-studio: empty.csv: the data file has no data rows.\n');
    expect(r.code).toBe(2);
    expect(ledgerCounts(ledger)).toMatchObject({ events: 0, datasets: 0, releases: 0 });
    expect(existsSync(inDir('out.csv'))).toBe(false);
  });

  it.each(CASES)('%s', async (_name, data, message) => {
    const ledger = inDir(`ledger-${data}.sqlite`);
    const r = await runCli(
      synthOn(data, ledger, ['--budget-epsilon', '3', '--confirm-cap', '--out', `${data}.out.csv`]),
      fx.dir,
    );
    expect(r.code).toBe(2);
    expect(lastLine(r)).toBe(`rap-studio: ${message}`);
    expect(existsSync(inDir(`${data}.out.csv`))).toBe(false);
    expect(ledgerCounts(ledger).releases).toBe(0);
  });
});

describe('synth with some ragged rows: refused before any reservation, since n is fixed', () => {
  it('names the first ragged line and says what to do; nothing is reserved', async () => {
    const ledger = inDir('ledger-ragged.sqlite');
    const r = await runCli(
      synthOn('ragged.csv', ledger, ['--budget-epsilon', '3', '--confirm-cap', '--out', 'ragged.out.csv']),
      fx.dir,
    );
    expect(r.code).toBe(2);
    expect(lastLine(r)).toContain(
      'ragged.csv, line 3, column "a": the row has the wrong number of fields (kept as missing in every column), ' +
        'and the declared column has no category for missing values. 1 of the 5 records do not fit the declared ' +
        'domain, and nothing was reserved',
    );
    expect(ledgerCounts(ledger).releases).toBe(0);
  });
});

describe('synth when the cap is already spent', () => {
  it('exit 3 with the remaining budget, and nothing new in the ledger', async () => {
    const ledger = inDir('ledger-spent.sqlite');
    setCap(ledger, fx, 1);
    const first = await runCli(
      synthOn('data.csv', ledger, ['--epsilon', '1', '--out', 'spent-1.csv']),
      fx.dir,
    );
    expect(first.code).toBe(0);
    const spent = ledgerCounts(ledger);
    expect(spent.byStatus).toEqual({ committed: [expect.any(String)] });
    const r = await runCli(synthOn('data.csv', ledger, ['--epsilon', '0.5', '--out', 'spent-2.csv']), fx.dir);
    expect(r.code).toBe(3);
    expect(lastLine(r)).toMatch(
      /^rap-studio: Run refused: dataset "data\.csv" \(sha256 [0-9a-f]{12}…\) has remaining budget ε=0 at δ=1e-6 \(ρ=0\), 0% of the cap ε=1 \(ρ=[\d.e-]+\); this run needs ε=0.5 at δ=1e-6 \(ρ=[\d.e-]+\)\. Every reserved, committed and aborted run counts \(1 so far\)\. Ask for a smaller ε, or, if your oversight policy allows, raise the cap: rap-studio ledger set-cap --dataset FILE --epsilon E --delta D$/,
    );
    expect(ledgerCounts(ledger)).toEqual(spent);
    expect(existsSync(inDir('spent-2.csv'))).toBe(false);
  });
});

describe('synth output faults: exit 1, NOT written, the release stays reserved', () => {
  it.skipIf(readOnlyUnavailable !== null)(
    'a read-only output folder: exit 2 before anything is reserved',
    async () => {
      const ledger = inDir('ledger-ro.sqlite');
      mkdirSync(inDir('ro'));
      const writable = makeReadOnly(inDir('ro'));
      let r: CliResult;
      try {
        r = await runCli(
          synthOn('data.csv', ledger, [
            '--budget-epsilon',
            '3',
            '--confirm-cap',
            '--out',
            'ro/out.csv',
            '--report',
            'ro-report.json',
          ]),
          fx.dir,
        );
      } finally {
        writable();
      }
      // The output folder is tried before the ledger is touched: nothing reserved, nothing written.
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(/reserved release/);
      expect(lastLine(r)).toMatch(
        /^rap-studio: synthetic CSV .*ro\/out\.csv: the folder .*ro is not writable.*Nothing was reserved/,
      );
      expect(existsSync(ledger) ? ledgerCounts(ledger).byStatus : {}).toEqual({});
      expect(existsSync(inDir('ro/out.csv'))).toBe(false);
      expect(existsSync(inDir('ro-report.json'))).toBe(false);
    },
  );

  /** A run whose output (5,000 rows, about 40 KB) goes to an 8 KiB disk; the report goes elsewhere. */
  async function fullDiskRun(): Promise<{ r: CliResult; ledger: string; out: string }> {
    const ledger = inDir('ledger-full.sqlite');
    const unmount = mountTinyDisk(inDir('full'));
    try {
      const r = await runCli(
        synthOn('data.csv', ledger, [
          '--budget-epsilon',
          '3',
          '--confirm-cap',
          '--rows',
          '1000',
          '--out',
          'full/out.csv',
          '--report',
          'full-report.json',
        ]),
        fx.dir,
      );
      const out = inDir('full/out.csv');
      return { r, ledger, out: existsSync(out) ? `${statSync(out).size} bytes` : 'absent' };
    } finally {
      unmount();
    }
  }

  it.skipIf(diskFullUnavailable !== null)(
    'a full disk: exit 1, the file is NOT written, the release stays reserved',
    async () => {
      const full = await fullDiskRun();
      expect(full.out).toBe('absent');
      expect(full.r.code).toBe(1);
      expect(lastLine(full.r)).toMatch(/ENOSPC.*the file was NOT written/);
      expect(Object.keys(ledgerCounts(full.ledger).byStatus)).toEqual(['reserved']);
      withLedger(full.ledger, (x) => expect(x.verify().ok).toBe(true));
    },
  );
});
