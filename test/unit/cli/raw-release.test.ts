/**
 * Releases from a raw CSV through the real CLI (issue 17): private discovery by default, the
 * refusal of a domain read off the data (exit 2, ledger unchanged) and its override, n fixed on
 * a file with malformed values, and no hash of the input in any file written beside a release.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, QUICK_RUN, runCli, withLedger } from '../../support/cli.ts';

let dir: string;
let sha: string;
const N = 400;

/** Public test data with malformed values: text in a number column, a ragged row, blanks. */
function rawCsv(): string {
  const lines = ['age,city,income,note'];
  for (let i = 0; i < N - 1; i++) {
    const age = i === 3 ? 'unknown' : String(18 + ((i * 7) % 60));
    const city = i % 3 === 0 ? 'Oslo' : i % 3 === 1 ? 'Lima' : 'Pune';
    const income = String((i * 9173) % 90_000);
    lines.push(`${age},${city},${income},${i % 4 === 0 ? '' : 'x'}`);
  }
  lines.push('44,Oslo'); // ragged
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rap-raw-release-'));
  const text = rawCsv();
  writeFileSync(path.join(dir, 'raw.csv'), text);
  sha = createHash('sha256').update(text).digest('hex');
  writeFileSync(path.join(dir, 'quote.csv'), 'a,b\n1,2\n3,"x\n4,5\n');
  // The same table without its malformed records, for a release over its inferred schema.
  const clean = text.split('\n').filter((l, i) => i !== 4 && l !== '44,Oslo');
  writeFileSync(path.join(dir, 'clean.csv'), clean.join('\n'));
  const w = await runCli(
    [
      'workload',
      'random',
      '--data',
      'raw.csv',
      '--header',
      'yes',
      '--k',
      '2',
      '--r',
      '2',
      '--size',
      '4',
      '--seed',
      '1',
      '--out',
      'w.json',
    ],
    dir,
  );
  expect(w.code).toBe(0);
}, CLI_TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synth = (ledger: string, extra: string[] = []) => [
  'synth',
  '--data',
  'raw.csv',
  '--workload',
  'w.json',
  '--epsilon',
  '2',
  ...QUICK_RUN,
  '--out',
  'out.csv',
  '--ledger',
  ledger,
  '--seed',
  '3',
  '--insecure-seed',
  '--header',
  'yes',
  ...extra,
];

async function capped(name: string): Promise<string> {
  const ledger = path.join(dir, name);
  const r = await runCli(
    ['ledger', 'set-cap', '--dataset', 'raw.csv', '--epsilon', '10', '--delta', '1e-5', '--ledger', ledger],
    dir,
  );
  expect(r.code).toBe(0);
  return ledger;
}

describe('a release from a raw CSV', () => {
  it(
    'discovers the domain privately by default; n is the record count everywhere; no input hash is written',
    async () => {
      const ledger = await capped('l1.sqlite');
      const r = await runCli(synth(ledger), dir);
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      // The one rule for rows of the wrong width, said by synth as by the app's Data step.
      expect(r.stderr).toContain(
        'warning: 1 row of raw.csv has the wrong number of fields (first at line 401): kept as records with every value missing',
      );
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out.manifest.json'), 'utf8'));
      expect(manifest.schema.origin).toBe('discovered');
      expect(manifest.schema.columns.map((c: { domain: string }) => c.domain)).toEqual(
        Array(4).fill('discovered privately'),
      );
      expect(manifest.privacy.discovery.rho).toBeGreaterThan(0);
      expect(manifest.notARelease).toContain('insecure-seed');
      const report = JSON.parse(readFileSync(path.join(dir, 'out.REPORT.private.json'), 'utf8'));
      expect(report.dataset.rows).toBe(N);
      expect(report.dataset.engineRows).toBe(N);
      // The budget spent once: every column's one-way is discovery's, so the plan spends no
      // one-way share (its ρ goes to the workload), and what ran adds up to what was reserved.
      expect(manifest.plan.shares.oneWay).toBe(0);
      const trace = report.tableMode;
      const oneWay = trace.strategy === 'direct' ? trace.direct.oneWay : trace.oneWay;
      expect(oneWay).toMatchObject({ rho: 0, paid: 4 });
      withLedger(ledger, (l) => {
        const [release] = l.releases();
        expect(l.dataset(release.datasetFingerprint)?.rows).toBe(N);
        expect(release.params.discovery).toMatchObject({ share: 0.2 });
        const discovery = release.params.discovery as { rho: number; synthesisRho: number };
        expect(trace.rhoSpent).toBeCloseTo(discovery.synthesisRho, 9);
        expect(discovery.rho + discovery.synthesisRho).toBeCloseTo(release.rho, 12);
        // Ledger schema 3: the release is recorded as what it was, not as 'declared'.
        expect(release.schema.origin).toBe('discovered');
      });
      const listed = await runCli(['ledger', 'list', '--ledger', ledger], dir);
      expect(listed.stdout).toContain('domain discovered privately');
      expect(listed.stdout).toContain('insecure-seed: NOT a release');
      for (const f of readdirSync(dir).filter((f) => f.startsWith('out'))) {
        expect(readFileSync(path.join(dir, f), 'utf8')).not.toContain(sha);
      }
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses an inferred (non-private) domain with exit 2, naming the columns and the ways out; the ledger is unchanged',
    async () => {
      const inferred = await runCli(['schema', 'infer', 'raw.csv', '--out', 'inferred.json'], dir);
      expect(inferred.code).toBe(0);
      const ledger = await capped('l2.sqlite');
      const before = withLedger(ledger, (l) => l.releases().length);
      const r = await runCli(synth(ledger, ['--schema', 'inferred.json', '--out', 'inferred.csv']), dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('"age", "city", "income", "note"');
      expect(r.stderr).toContain('declare these columns');
      expect(r.stderr).toContain('discover them privately');
      expect(withLedger(ledger, (l) => l.releases().length)).toBe(before);
    },
    CLI_TIMEOUT,
  );

  it(
    'with --allow-non-private-domain, the ledger event and the manifest say "domain not differentially private"',
    async () => {
      const inferred = await runCli(['schema', 'infer', 'clean.csv', '--out', 'clean-inferred.json'], dir);
      expect(inferred.code).toBe(0);
      const ledger = path.join(dir, 'l3.sqlite');
      const r = await runCli(
        [
          ...synth(ledger, [
            '--schema',
            'clean-inferred.json',
            '--allow-non-private-domain',
            '--out',
            'leaky.csv',
          ]),
          '--data',
          'clean.csv',
          '--budget-epsilon',
          '10',
          '--confirm-cap',
        ],
        dir,
      );
      expect(r.stderr).toContain('domain not differentially private');
      expect(r.code).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'leaky.manifest.json'), 'utf8'));
      expect(manifest.schema.origin).toBe('inferred');
      expect(new Set(manifest.schema.columns.map((c: { domain: string }) => c.domain))).toEqual(
        new Set(['domain not differentially private']),
      );
      withLedger(ledger, (l) => {
        const [release] = l.releases();
        expect(JSON.stringify(release.params.columns)).toContain('domain not differentially private');
        expect(release.schema.origin).toBe('inferred');
      });
    },
    CLI_TIMEOUT,
  );

  it(
    'an unclosed quote gives exit 2 naming the line, before any reservation',
    async () => {
      const ledger = path.join(dir, 'l4.sqlite');
      const r = await runCli([...synth(ledger), '--data', 'quote.csv', '--out', 'quote-out.csv'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('quote.csv, line 3: a quote (") opened on this line is never closed');
    },
    CLI_TIMEOUT,
  );

  it(
    '--budget-epsilon no longer sets a cap in passing',
    async () => {
      const ledger = path.join(dir, 'l5.sqlite');
      const r = await runCli(synth(ledger, ['--budget-epsilon', '5', '--out', 'budget.csv']), dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--confirm-cap');
    },
    CLI_TIMEOUT,
  );

  /** city and note declared (the ragged row is missing in both); age and income left to discovery. */
  function declared(cities: string[], cityMissing: boolean): string {
    return JSON.stringify({
      version: 1,
      origin: 'declared',
      columns: [
        { name: 'city', kind: 'categorical', categories: cities, missing: cityMissing },
        { name: 'note', kind: 'categorical', categories: ['x'], missing: true },
      ],
    });
  }

  it(
    'a declared column that cannot hold a record is refused before any reservation (exit 2): file, line, column, value, what to do',
    async () => {
      writeFileSync(path.join(dir, 'two-cities.json'), declared(['Oslo', 'Lima'], false));
      const ledger = await capped('l6.sqlite');
      const before = withLedger(ledger, (l) => [
        l.releases().length,
        (l.verify() as { headHash?: string }).headHash,
      ]);
      const r = await runCli(
        synth(ledger, ['--schema', 'two-cities.json', '--discover-undeclared', '--out', 'misfit.csv']),
        dir,
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'raw.csv, line 4, column "city": the value "Pune" is not one of its 2 declared categories. ' +
          '134 of the 400 records do not fit the declared domain, and nothing was reserved',
      );
      expect(r.stderr).toContain("add the category to the column's declared categories");
      expect(r.stderr).toContain('discovers its domain privately');
      // 133 Pune rows and the ragged row (missing in every column; city has no missing category).
      expect(
        withLedger(ledger, (l) => [l.releases().length, (l.verify() as { headHash?: string }).headHash]),
      ).toEqual(before);
      expect(readdirSync(dir).filter((f) => f.startsWith('misfit'))).toEqual([]);
    },
    CLI_TIMEOUT,
  );

  it(
    'declared and discovered columns mixed: the manifest and the ledger event say which is which',
    async () => {
      writeFileSync(path.join(dir, 'three-cities.json'), declared(['Oslo', 'Lima', 'Pune'], true));
      const ledger = await capped('l7.sqlite');
      const r = await runCli(
        synth(ledger, ['--schema', 'three-cities.json', '--discover-undeclared', '--out', 'mixed.csv']),
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'mixed.manifest.json'), 'utf8'));
      const domains = Object.fromEntries(
        manifest.schema.columns.map((c: { name: string; domain: string }) => [c.name, c.domain]),
      );
      expect(domains).toEqual({
        age: 'discovered privately',
        city: 'declared',
        income: 'discovered privately',
        note: 'declared',
      });
      // Discovery paid for age's and income's one-ways; the engine measures the declared two.
      const share = manifest.plan.strategy === 'direct' ? 0.1 : 0.2;
      expect(manifest.plan.shares.oneWay).toBeCloseTo((share * 2) / 4, 12);
      withLedger(ledger, (l) => {
        const [release] = l.releases();
        expect(release.schema.origin).toBe('discovered');
        const cols = release.params.columns as { name: string; domain: string }[];
        expect(cols.filter((c) => c.domain === 'declared').map((c) => c.name)).toEqual(['city', 'note']);
      });
      // Declared categories are used exactly: no "(other)" in a declared column.
      const rows = readFileSync(path.join(dir, 'mixed.csv'), 'utf8').trim().split('\n').slice(1);
      const header = readFileSync(path.join(dir, 'mixed.csv'), 'utf8').split('\n')[0].split(',');
      const cities = new Set(rows.map((line) => line.split(',')[header.indexOf('city')]));
      expect([...cities].every((c) => ['Oslo', 'Lima', 'Pune', '?'].includes(c))).toBe(true);
    },
    CLI_TIMEOUT,
  );

  it(
    'a schema read off the data with one column declared (as the app exports it): --discover-undeclared discovers the rest',
    async () => {
      const inferred = await runCli(['schema', 'infer', 'raw.csv', '--out', 'app-edited.json'], dir);
      expect(inferred.code).toBe(0);
      const schema = JSON.parse(readFileSync(path.join(dir, 'app-edited.json'), 'utf8'));
      schema.columns = schema.columns.map((c: { name: string }) =>
        c.name === 'city'
          ? { ...c, categories: ['Lima', 'Oslo', 'Pune'], missing: true, provenance: { source: 'declared' } }
          : c,
      );
      writeFileSync(path.join(dir, 'app-edited.json'), JSON.stringify(schema));
      const ledger = await capped('l8.sqlite');
      const r = await runCli(
        synth(ledger, ['--schema', 'app-edited.json', '--discover-undeclared', '--out', 'edited.csv']),
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'edited.manifest.json'), 'utf8'));
      expect(manifest.schema.columns.map((c: { domain: string }) => c.domain)).toEqual([
        'discovered privately',
        'declared',
        'discovered privately',
        'discovered privately',
      ]);
    },
    CLI_TIMEOUT,
  );
});
