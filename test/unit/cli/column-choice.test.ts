/**
 * Column choice through the real CLI and release pipeline (issue 28, item 1): `synth --exclude`
 * and `--columns`, `workload random|default --data` with the same flags. A column left out is
 * never read: a release without it is the release of the file without the column (same seeded
 * CSV, same ρ and δ in the ledger, same per-column cost), and its name is in no output.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, runCli, withLedger } from '../../support/cli.ts';

let dir: string;

/** A hospital-visits-shaped file: a unique identifier, a few categories, numbers, a postcode. */
function rows(withId: boolean): string {
  const lines = [`${withId ? 'patient_id,' : ''}ward,diagnosis,age,zip`];
  const wards = ['Oncology', 'Emergency', 'Cardiology'];
  const dx = ['I10', 'C34', 'J45', 'E11'];
  for (let i = 0; i < 600; i++) {
    const id = withId ? `P${100000 + i * 37}-${i % 97},` : '';
    lines.push(`${id}${wards[i % 3]},${dx[(i * 7) % 4]},${20 + ((i * 13) % 60)},${10000 + ((i * 11) % 50)}`);
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-column-choice-'));
  writeFileSync(path.join(dir, 'visits.csv'), rows(true));
  writeFileSync(path.join(dir, 'visits-without-id.csv'), rows(false));
  writeFileSync(
    path.join(dir, 'w.json'),
    JSON.stringify({
      thresholds: [
        { features: ['ward', 'diagnosis'], r: 2 },
        { features: ['age', 'zip'], r: 1 },
      ],
    }),
  );
  writeFileSync(
    path.join(dir, 'w-id.json'),
    JSON.stringify({ thresholds: [{ features: ['patient_id', 'ward'], r: 2 }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--rows', '20', '--oversample', '2', '--max-steps', '20', '--threads', '1'];
const SEEDED = ['--seed', '7', '--insecure-seed'];

function synth(data: string, out: string, ledger: string, extra: readonly string[]): string[] {
  return [
    'synth',
    '--data',
    data,
    '--header',
    'yes',
    '--workload',
    'w.json',
    '--epsilon',
    '1',
    '--out',
    out,
    '--ledger',
    ledger,
    '--budget-epsilon',
    '100',
    '--confirm-cap',
    ...TINY,
    ...extra,
  ];
}

describe('synth --exclude / --columns', () => {
  it(
    'an excluded column is in no output and costs nothing: the release equals the one of the file without it',
    async () => {
      const withLedgerPath = path.join(dir, 'l-with.sqlite');
      const withoutLedgerPath = path.join(dir, 'l-without.sqlite');
      const a = await runCli(
        synth('visits.csv', 'out-excl.csv', withLedgerPath, [...SEEDED, '--exclude', 'patient_id']),
        dir,
      );
      expect(a.stderr).not.toContain('rap-studio:');
      expect(a.code).toBe(0);
      const b = await runCli(
        synth('visits-without-id.csv', 'out-without.csv', withoutLedgerPath, SEEDED),
        dir,
      );
      expect(b.code).toBe(0);
      const excluded = readFileSync(path.join(dir, 'out-excl.csv'), 'utf8');
      const without = readFileSync(path.join(dir, 'out-without.csv'), 'utf8');
      expect(excluded.split(/\r?\n/)[0]).toBe('ward,diagnosis,age,zip');
      // Same seed, same bytes: nothing of the excluded column reached discovery or the engine.
      expect(excluded).toBe(without);
      // Absent from every output the release wrote (CSV, manifest, private report, HTML reports).
      const outputs = readdirSync(dir).filter((f) => f.startsWith('out-excl'));
      expect(outputs.length).toBeGreaterThanOrEqual(4);
      for (const f of outputs) expect(readFileSync(path.join(dir, f), 'utf8')).not.toContain('patient_id');
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out-excl.manifest.json'), 'utf8'));
      expect(manifest.schema.columns.map((c: { name: string }) => c.name)).toEqual([
        'ward',
        'diagnosis',
        'age',
        'zip',
      ]);
      // The ledger's cost: the same ρ, δ and per-column charges as the file without the column.
      const cost = (ledger: string) =>
        withLedger(ledger, (l) => {
          const [r] = l.releases();
          expect(r.status).toBe('committed');
          return { epsilon: r.epsilon, delta: r.delta, rho: r.rho, columns: r.params.columns };
        });
      expect(cost(withLedgerPath)).toEqual(cost(withoutLedgerPath));
    },
    CLI_TIMEOUT,
  );

  it(
    '--columns releases only the listed columns, in the header’s order',
    async () => {
      const ledger = path.join(dir, 'l-only.sqlite');
      const r = await runCli(
        synth('visits.csv', 'out-only.csv', ledger, ['--columns', 'zip,ward,diagnosis,age']),
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const out = readFileSync(path.join(dir, 'out-only.csv'), 'utf8');
      expect(out.split(/\r?\n/)[0]).toBe('ward,diagnosis,age,zip');
      expect(out).not.toMatch(/P1\d{5}/);
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses unknown names, a workload on an excluded column, and both lists, before anything is reserved',
    async () => {
      const ledger = path.join(dir, 'l-refused.sqlite');
      const unknown = await runCli(synth('visits.csv', 'o1.csv', ledger, ['--exclude', 'patient']), dir);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(
        'the columns to leave out (--exclude) name "patient", which is not a column of the table ' +
          '(its header: patient_id, ward, diagnosis, age, zip)',
      );
      const onExcluded = await runCli(
        [...synth('visits.csv', 'o2.csv', ledger, ['--exclude', 'patient_id']), '--workload', 'w-id.json'],
        dir,
      );
      expect(onExcluded.code).toBe(2);
      expect(onExcluded.stderr).toContain(
        'names the column "patient_id", which the column choice leaves out',
      );
      const notListed = await runCli(
        [...synth('visits.csv', 'o3.csv', ledger, ['--columns', 'ward,diagnosis'])],
        dir,
      );
      expect(notListed.code).toBe(2);
      expect(notListed.stderr).toContain('names the column "age", which the column choice leaves out');
      const both = await runCli(
        synth('visits.csv', 'o4.csv', ledger, ['--columns', 'ward,age', '--exclude', 'zip']),
        dir,
      );
      expect(both.code).toBe(2);
      expect(both.stderr).toContain(
        '--exclude: give the columns to release or the columns to leave out, not both',
      );
      const one = await runCli(synth('visits.csv', 'o5.csv', ledger, ['--columns', 'ward']), dir);
      expect(one.code).toBe(2);
      expect(one.stderr).toContain('leave 1 column to release; a release needs at least two');
      withLedger(ledger, (l) => expect(l.releases()).toHaveLength(0));
    },
    CLI_TIMEOUT,
  );
});

describe('--columns / --exclude with --unit-column', () => {
  it(
    'keeps the unit column for bounding though --columns does not list it; refuses to leave it out',
    async () => {
      const ledger = path.join(dir, 'l-unit.sqlite');
      const unit = ['--unit-column', 'patient_id'];
      const ok = await runCli(
        synth('visits.csv', 'out-unit.csv', ledger, [...unit, '--columns', 'ward,diagnosis,age,zip']),
        dir,
      );
      expect(ok.stderr).not.toContain('rap-studio:');
      expect(ok.code).toBe(0);
      expect(readFileSync(path.join(dir, 'out-unit.csv'), 'utf8').split(/\r?\n/)[0]).toBe(
        'ward,diagnosis,age,zip',
      );
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out-unit.manifest.json'), 'utf8'));
      expect(manifest.unit).toMatchObject({
        kind: 'person',
        column: 'patient_id',
        identifierReleased: false,
      });
      const refused = await runCli(
        synth('visits.csv', 'out-unit2.csv', ledger, [...unit, '--exclude', 'patient_id']),
        dir,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('the columns to leave out name the unit column "patient_id"');
    },
    CLI_TIMEOUT,
  );
});

describe('workload random|default --data with --columns / --exclude', () => {
  const workload = (kind: 'random' | 'default', out: string, extra: string[]) => [
    ...['workload', kind, '--data', 'visits.csv', '--header', 'yes'],
    ...[...extra, '--out', out],
  ];

  it(
    'draws over the kept columns only; an unknown name is refused with the header',
    async () => {
      const r = await runCli(workload('default', 'wd.json', ['--exclude', 'patient_id']), dir);
      expect(r.code).toBe(0);
      const features = new Set(
        JSON.parse(readFileSync(path.join(dir, 'wd.json'), 'utf8')).thresholds.flatMap(
          (t: { features: string[] }) => t.features,
        ),
      );
      expect([...features].sort()).toEqual(['age', 'diagnosis', 'ward', 'zip']);
      const random = await runCli(
        workload('random', 'wr.json', [
          '--columns',
          'ward,age',
          '--k',
          '2',
          '--r',
          '1',
          '--size',
          '1',
          '--seed',
          '1',
        ]),
        dir,
      );
      expect(random.code).toBe(0);
      const drawn = JSON.parse(readFileSync(path.join(dir, 'wr.json'), 'utf8'));
      expect(drawn.thresholds[0].features.sort()).toEqual(['age', 'ward']);
      const bad = await runCli(workload('default', 'x.json', ['--exclude', 'nope']), dir);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('name "nope", which is not a column of the table (its header: patient_id');
    },
    CLI_TIMEOUT,
  );
});
