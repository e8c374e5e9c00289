/**
 * Missing values keep their source form per column (issue 28, item 6), through `rap-studio synth`
 * on a raw CSV: one column writes its missing values `?`, one leaves the cell empty, one writes
 * `NA`; the released CSV writes each column's missing values in that column's form (discovery's
 * level 1 counts the forms apart; the released form is the one of largest noisy count).
 *
 * Power: n = 4,000, 30% missing per column. At ε = 1 a column's level-1 σ₁ is about 45, so the
 * right form leads the others by 1,200 ± 64 (wrong with probability < 1e-60), and the missing
 * category passes its bar (3·2σ₁ ≈ 270; numeric) or partition selection with z > 10. With 400
 * synthetic rows and a released share near 30%, no missing value in a column has probability
 * below 1e-40 even at a share of 20%.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-missing-forms-'));
  const lines = ['ward,zip,charge,sex'];
  for (let i = 0; i < 4000; i++) {
    const gone = (i * 7) % 10 < 3;
    const ward = gone ? '?' : ['A', 'B', 'C'][i % 3];
    const zip = gone ? '' : ['02139', '10001', '94110'][(i * 5) % 3];
    const charge = gone ? 'NA' : String(100 + ((i * 37) % 900));
    lines.push(`${ward},${zip},${charge},${i % 2 ? 'F' : 'M'}`);
  }
  writeFileSync(path.join(dir, 'visits.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({
      thresholds: [
        { features: ['ward', 'zip'], r: 2 },
        { features: ['charge', 'sex'], r: 2 },
      ],
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('missing values in their source form', () => {
  it(
    'writes each column’s missing values as its records do: ?, empty, NA',
    async () => {
      const r = await runCli(
        [
          'synth',
          '--data',
          'visits.csv',
          '--header',
          'yes',
          '--workload',
          'w.json',
          '--epsilon',
          '1',
          '--budget-epsilon',
          '10',
          '--confirm-cap',
          '--rows',
          '400',
          '--oversample',
          '2',
          '--max-steps',
          '40',
          '--threads',
          '1',
          '--out',
          'out.csv',
          '--ledger',
          path.join(dir, 'l.sqlite'),
        ],
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const parsed = Papa.parse<Record<string, string>>(readFileSync(path.join(dir, 'out.csv'), 'utf8'), {
        header: true,
        skipEmptyLines: true,
      });
      const forms = (column: string) => {
        const seen = new Set<string>();
        for (const row of parsed.data) {
          const v = row[column];
          if (v === '?' || v === '' || v === 'NA') seen.add(v);
        }
        return [...seen];
      };
      expect(forms('ward')).toEqual(['?']);
      expect(forms('zip')).toEqual(['']);
      expect(forms('charge')).toEqual(['NA']);
      expect(forms('sex')).toEqual([]);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out.manifest.json'), 'utf8'));
      expect(manifest.schema.columns.map((c: { name: string }) => c.name)).toEqual([
        'ward',
        'zip',
        'charge',
        'sex',
      ]);
    },
    CLI_TIMEOUT,
  );
});
