/**
 * Files whose value labels are the column's declared categories, through the real CLI
 * (`rap-studio synth`): an SPSS file (.sav, written by the test through data/formats/write-sav.ts) and a
 * labelled Stata file (fixtures/people-labelled-117.dta, written by pandas). For each: the
 * labelled column is declared (free, used exactly, a label no row uses included; the manifest
 * says declared), another column is discovered privately, the released CSV holds labels, not
 * codes; released in the input's own format (.sav, .dta) the file holds the same rows as the CSV
 * release of the same seed, the labelled column as the input's codes with its value labels (the
 * manifest states them); and a corrupt file of the format is refused with a message naming it, before anything
 * is reserved.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../src/core/data/csv.ts';
import { DTA } from '../../../src/core/data/formats/dta.ts';
import { labelledValueLabels } from '../../../src/core/data/formats/labelled.ts';
import { savValueLabels } from '../../../src/core/data/formats/sav.ts';
import { savBytes } from '../../../src/core/data/formats/write-sav.ts';
import { CLI_TIMEOUT, runCli } from '../../support/cli.ts';

let dir: string;

const FORMATS = [
  {
    name: 'an SPSS .sav file',
    file: 'survey.sav',
    write: (to: string) =>
      writeFileSync(
        to,
        savBytes(
          [
            {
              name: 'region',
              type: 'numeric',
              labels: [
                [1, 'North'],
                [2, 'South'],
                [3, 'East'],
              ],
            },
            { name: 'age', type: 'numeric' },
            { name: 'city', type: 'string' },
          ],
          Array.from({ length: 300 }, (_, i) => [
            (i % 3) + 1,
            i % 19 === 0 ? null : 18 + ((i * 7) % 60),
            ['Oslo', 'Lima', 'Pune'][i % 3],
          ]),
        ),
      ),
    workload: ['region', 'age', 'city'],
    header: 'region,age,city',
    labelled: { column: 'region', labels: ['North', 'South', 'East', '?'] },
    discovered: 'age',
    broken: Buffer.concat([Buffer.from('$FL2'), Buffer.alloc(40, 7)]),
    refusal: 'not a readable SPSS data file',
  },
  {
    name: 'a labelled Stata .dta file (pandas)',
    file: 'people.dta',
    write: (to: string) =>
      copyFileSync(path.join(import.meta.dirname, 'fixtures', 'people-labelled-117.dta'), to),
    workload: ['smoker', 'city'],
    header: 'age,city,income,smoker',
    labelled: { column: 'smoker', labels: ['daily', 'never', 'former', '?'] },
    discovered: 'city',
    broken: Buffer.concat([Buffer.from('<stata_dta><header><release>117</release>'), Buffer.alloc(64, 7)]),
    refusal: 'not a readable Stata data file (.dta)',
  },
] as const;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-labelled-release-'));
  for (const f of FORMATS) {
    f.write(path.join(dir, f.file));
    writeFileSync(path.join(dir, `broken-${f.file}`), f.broken);
    writeFileSync(
      path.join(dir, `w-${f.file}.json`),
      JSON.stringify({ thresholds: [{ features: f.workload, r: 2, weight: 1 }] }),
    );
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synth = (data: string, workload: string, ledger: string, out: string) => [
  'synth',
  ...['--data', data, '--workload', workload, '--epsilon', '2', '--rows', '40'],
  ...['--oversample', '2', '--max-steps', '20', '--threads', '1', '--out', out],
  ...['--ledger', ledger, '--seed', '5', '--insecure-seed'],
];

describe.each(FORMATS)('$name as the private source', (f) => {
  it(
    'value labels are declared categories; the released CSV holds labels',
    async () => {
      const ledger = path.join(dir, `${f.file}.sqlite`);
      const cap = await runCli(
        ['ledger', 'set-cap', '--dataset', f.file, '--epsilon', '10', '--delta', '1e-5', '--ledger', ledger],
        dir,
      );
      expect(cap.code).toBe(0);
      const out = `${f.file}.out.csv`;
      const r = await runCli(synth(f.file, `w-${f.file}.json`, ledger, out), dir);
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const lines = readFileSync(path.join(dir, out), 'utf8').trim().split(/\r?\n/);
      expect(lines[0]).toBe(f.header);
      const at = f.header.split(',').indexOf(f.labelled.column);
      for (const line of lines.slice(1)) expect(f.labelled.labels).toContain(line.split(',')[at]);
      const manifest = JSON.parse(readFileSync(path.join(dir, `${f.file}.out.manifest.json`), 'utf8'));
      const domain = new Map<string, string>(
        manifest.schema.columns.map((c: { name: string; domain: string }) => [c.name, c.domain]),
      );
      expect(domain.get(f.labelled.column)).toBe('declared');
      expect(domain.get(f.discovered)).toBe('discovered privately');
    },
    CLI_TIMEOUT,
  );

  it(
    'released in its own format (.sav to .sav, .dta to .dta): the rows of the same seeded CSV release, the labelled column as its codes with their labels',
    async () => {
      const ledger = path.join(dir, `${f.file}.sqlite`);
      const own = `${f.file}.own${path.extname(f.file)}`;
      const r = await runCli(synth(f.file, `w-${f.file}.json`, ledger, own), dir);
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/note: the input is/);
      const read = async (file: string) => {
        const out: string[][] = [];
        await readCsvRecords(path.join(dir, file), (fields) => out.push(fields));
        return out;
      };
      const csv = await read(`${f.file}.out.csv`);
      expect(csv.length).toBeGreaterThan(1);
      // The labelled column holds the input's codes with its value labels: read back as the
      // labels; its missing category ("?" in the CSV) is system-missing (read back empty).
      const at = csv[0].indexOf(f.labelled.column);
      const missingAsEmpty = csv.map((r, i) =>
        i > 0 && r[at] === '?' ? r.map((v, j) => (j === at ? '' : v)) : r,
      );
      expect(await read(own)).toEqual(missingAsEmpty);
      const sets = async (file: string) =>
        (f.file.endsWith('.sav') ? await savValueLabels(file) : await labelledValueLabels(file, DTA)).find(
          (s) => s.column === f.labelled.column,
        );
      const input = await sets(path.join(dir, f.file));
      expect(input?.labels.map((l) => l.label)).toEqual(f.labelled.labels.slice(0, -1));
      expect(await sets(path.join(dir, own))).toEqual(input);
      // The manifest states the codes (public metadata: the input's dictionary).
      const manifest = JSON.parse(readFileSync(path.join(dir, `${f.file}.own.manifest.json`), 'utf8'));
      expect(manifest.schema.valueLabels).toEqual([input]);
    },
    CLI_TIMEOUT,
  );

  it(
    '--value-labels discover: the labels are ignored, the column discovered privately like any other; no codes stated',
    async () => {
      const ledger = path.join(dir, `${f.file}.sqlite`);
      const out = `${f.file}.discovered.csv`;
      const r = await runCli(
        [...synth(f.file, `w-${f.file}.json`, ledger, out), '--value-labels', 'discover'],
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(dir, `${f.file}.discovered.manifest.json`), 'utf8'));
      const domain = new Map<string, string>(
        manifest.schema.columns.map((c: { name: string; domain: string }) => [c.name, c.domain]),
      );
      expect(domain.get(f.labelled.column)).toBe('discovered privately');
      expect(manifest.schema.valueLabels ?? []).toEqual([]);
      const bad = await runCli(
        [...synth(f.file, `w-${f.file}.json`, ledger, 'x.csv'), '--value-labels', 'keep'],
        dir,
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--value-labels.*declare.*discover/);
    },
    CLI_TIMEOUT,
  );

  it(
    'a corrupt file is refused with a message naming it; nothing is reserved',
    async () => {
      const broken = `broken-${f.file}`;
      const r = await runCli(
        synth(broken, `w-${f.file}.json`, path.join(dir, `${broken}.sqlite`), `${broken}.out.csv`),
        dir,
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(broken);
      expect(r.stderr).toContain(f.refusal);
    },
    CLI_TIMEOUT,
  );
});
