/**
 * CSV injection: a released categorical value that starts with =, +, -, @ (and is not a number)
 * is written with a leading apostrophe, through `rap-studio synth`; numbers and numeric columns
 * are untouched; the manifest states the policy; `evaluate` reads the released file as written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeFormula } from '../../../src/core/release/output.ts';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

let dir: string;
/** The CSV reader trims cells, so a tab- or CR-led value cannot be a category of a read file. */
const RISKY = ['=HYPERLINK("http://x","y")', '@SUM(1+1)', '+cmd', '-x'];
const CATEGORIES = [...RISKY, 'plain', '-3'];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-formula-'));
  const lines = ['kind,delta'];
  for (let i = 0; i < 700; i++) {
    const kind = CATEGORIES[i % CATEGORIES.length];
    lines.push(`${Papa.unparse([[kind]], { newline: '' })},${(i % 11) - 5}`);
  }
  writeFileSync(path.join(dir, 'd.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 's.json'),
    JSON.stringify({
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'kind', kind: 'categorical', categories: CATEGORIES },
        { name: 'delta', kind: 'numeric', lower: -5, upper: 6, bins: 11, integer: true },
      ],
    }),
  );
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({ thresholds: [{ features: ['kind', 'delta'], r: 2 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('formula-like values in a release (CSV injection)', { timeout: CLI_TIMEOUT }, () => {
  it('escapeFormula: a leading apostrophe for = + - @ tab CR texts, never for numbers or plain text', () => {
    expect(RISKY.map(escapeFormula)).toEqual(RISKY.map((v) => `'${v}`));
    expect(['-3', '+4.5', '-1e3', 'plain', '', 'a=b', "'=x"].map(escapeFormula)).toEqual([
      '-3',
      '+4.5',
      '-1e3',
      'plain',
      '',
      'a=b',
      "'=x",
    ]);
    expect(escapeFormula('\rx')).toBe("'\rx");
    expect(escapeFormula('\tx')).toBe("'\tx");
  });

  it('synth writes no cell a spreadsheet would run; the manifest says so; evaluate reads it back', async () => {
    const ledger = path.join(dir, 'l.sqlite');
    const r = await runCli(
      [
        'synth',
        '--data',
        'd.csv',
        '--schema',
        's.json',
        '--workload',
        'w.json',
        '--epsilon',
        '5',
        '--rows',
        '200',
        '--oversample',
        '5',
        '--max-steps',
        '50',
        '--out',
        'out.csv',
        '--ledger',
        ledger,
        '--budget-epsilon',
        '10',
        '--confirm-cap',
      ],
      dir,
    );
    expect(r.stderr).not.toContain('rap-studio:');
    expect(r.code).toBe(0);
    const parsed = Papa.parse<string[]>(readFileSync(path.join(dir, 'out.csv'), 'utf8').trim(), {
      newline: '\r\n',
    });
    const [header, ...rows] = parsed.data;
    expect(header).toEqual(['kind', 'delta']);
    const kinds = new Set(rows.map((row) => row[0]));
    const deltas = rows.map((row) => row[1]);
    for (const cell of rows.flat()) {
      // Only numbers may start with + or -; nothing starts with =, @, tab or CR.
      if (/^[=+\-@\t\r]/.test(cell)) expect(Number.isFinite(Number(cell))).toBe(true);
    }
    expect([...kinds].every((k) => CATEGORIES.map(escapeFormula).includes(k))).toBe(true);
    expect([...kinds].some((k) => k.startsWith("'"))).toBe(true);
    expect(deltas.some((d) => d.startsWith('-'))).toBe(true); // negative numbers stay numbers
    const manifest = JSON.parse(readFileSync(path.join(dir, 'out.manifest.json'), 'utf8'));
    expect(manifest.csv.formulaEscape).toMatch(/leading ' so that spreadsheets do not run them as formulas/);
    const ev = await runCli(
      [
        'evaluate',
        '--data',
        'd.csv',
        '--synthetic',
        'out.csv',
        '--schema',
        's.json',
        '--workload',
        'w.json',
        '--json',
      ],
      dir,
    );
    expect(ev.code).toBe(0);
    expect(ev.stderr).not.toMatch(/rejected/);
    expect(JSON.parse(ev.stdout).synthetic.rows).toBe(rows.length);
  });
});
