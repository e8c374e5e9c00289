/**
 * The person as the unit of privacy, through the real release pipeline (issue 27): the CLI's
 * --unit-column on `ledger set-cap` and `synth` (the identifier never released, the unit in the
 * manifest and the ledger, n not published), a release at another unit refused before anything
 * is reserved, and the acceptance case — one person holds 2,000 rows with a value nobody else
 * has: released at the row level, never at the person level over 20 runs with secure noise.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintFile } from '../../../src/core/data/fingerprint.ts';
import { SCHEMA_VERSION } from '../../../src/core/data/schema.ts';
import { InputError } from '../../../src/core/errors.ts';
import { Ledger } from '../../../src/core/ledger/ledger.ts';
import { type ReleaseSpec, releaseStraightThrough } from '../../../src/core/release/release.ts';
import { CLI_TIMEOUT, QUICK_RUN, runCli, withLedger } from '../../support/cli.ts';
import { capArgs, visitsFolder, visitsSynthArgs, workloadJson } from './visits.ts';

const UNIQUE = 'zz-only-one-person';
const HEAVY_ROWS = 2000;

/** 400 persons with 1–3 rows each over common values, and one person with 2,000 rows of UNIQUE. */
function csv(): string {
  const lines = ['person,ward,diagnosis'];
  const wards = ['A', 'B', 'C'];
  const dx = ['flu', 'cold', 'sprain', 'asthma'];
  for (let p = 0; p < 400; p++) {
    for (let j = 0; j <= p % 3; j++) lines.push(`P${p},${wards[(p + j) % 3]},${dx[(p * 7 + j) % 4]}`);
  }
  for (let j = 0; j < HEAVY_ROWS; j++) lines.push(`HEAVY,${wards[j % 3]},${UNIQUE}`);
  return `${lines.join('\n')}\n`;
}

const dir = visitsFolder('person-release', csv(), { 'w-id.json': workloadJson(['person', 'ward']) });

async function cap(ledger: string, unit: string[] = []): Promise<void> {
  const r = await runCli(capArgs(ledger, 100, unit), dir);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

describe('synth --unit-column', () => {
  it(
    'releases without the identifier; the manifest and the ledger state the unit; n is not published',
    async () => {
      const ledger = path.join(dir, 'l1.sqlite');
      await cap(ledger, ['--unit-column', 'person']);
      const r = await runCli(
        visitsSynthArgs(ledger, 'out.csv', 1, [
          '--unit-column',
          'person',
          '--workload',
          'w.json',
          ...QUICK_RUN,
        ]),
        dir,
      );
      expect(r.stderr).not.toContain('rap-studio:');
      expect(r.code).toBe(0);
      const out = readFileSync(path.join(dir, 'out.csv'), 'utf8');
      expect(out.split(/\r?\n/)[0]).toBe('ward,diagnosis');
      expect(out).not.toContain('HEAVY');
      expect(out).not.toContain('P1');
      const manifest = JSON.parse(readFileSync(path.join(dir, 'out.manifest.json'), 'utf8'));
      expect(manifest.unit.kind).toBe('person');
      expect(manifest.unit.column).toBe('person');
      expect(manifest.unit.statement).toMatch(
        /^person, identified by column person, at most \d+ rows each \(k chosen privately\)$/,
      );
      expect(manifest.unit.boundChosen.grid).toEqual([1, 2, 4, 8, 16, 32, 64]);
      expect(manifest.unit.noisyRowCount.rows).toBeGreaterThan(0);
      expect(manifest.mechanism).toBe('person-bounding+domain-discovery+rap-table');
      // The file's row count (and δ = 1/n², which would state it) are not published.
      const text = JSON.stringify(manifest);
      const n = csv().trim().split('\n').length - 1;
      expect(manifest.dataset.rows).toBeNull();
      expect(text).not.toContain(`${n}`);
      expect(manifest.privacy.delta).toBe(1e-10);
      expect(manifest.parameters.rounds).toBeUndefined();
      expect(manifest.schema.columns.map((c: { name: string }) => c.name)).toEqual(['ward', 'diagnosis']);
      const listed = await runCli(['ledger', 'list', '--ledger', ledger], dir);
      expect(listed.stdout).toContain('unit: person (column person)');
      const report = JSON.parse(readFileSync(path.join(dir, 'out.REPORT.private.json'), 'utf8'));
      expect(report.unit).toBe(manifest.unit.statement);
      withLedger(ledger, (l) => {
        const [release] = l.releases();
        expect(release.status).toBe('committed');
        expect(release.params.unit).toMatchObject({
          kind: 'person',
          column: 'person',
          identifierReleased: false,
        });
        expect(String((release.params.unit as { rowsPerPerson: unknown }).rowsPerPerson)).toMatch(
          /chosen privately/,
        );
      });
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses a workload on the identifier, and a release at another unit than the cap’s (exit 2, nothing reserved)',
    async () => {
      const ledger = path.join(dir, 'l2.sqlite');
      await cap(ledger, ['--unit-column', 'person']);
      const base = visitsSynthArgs(ledger, 'o2.csv', 1, QUICK_RUN);
      const onId = await runCli([...base, '--workload', 'w-id.json', '--unit-column', 'person'], dir);
      expect(onId.code).toBe(2);
      expect(onId.stderr).toContain('the workload names the unit column "person"');
      const rowLevel = await runCli([...base, '--workload', 'w.json'], dir);
      expect(rowLevel.code).toBe(2);
      expect(rowLevel.stderr).toContain('per person (identified by column person)');
      expect(rowLevel.stderr).toContain('add --unit-column person');
      const missing = await runCli([...base, '--workload', 'w.json', '--unit-column', 'patient'], dir);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('the unit column "patient" is not in the table');
      withLedger(ledger, (l) => expect(l.releases()).toHaveLength(0));
    },
    CLI_TIMEOUT,
  );
});

/** The release pipeline itself (what the CLI and the app call), secure noise unless seeded. */
async function release(
  ledger: Ledger,
  out: string,
  unit: ReleaseSpec['unit'],
  seed?: number,
): Promise<string> {
  const spec: ReleaseSpec = {
    source: {
      path: path.join(dir, 'visits.csv'),
      schema: { version: SCHEMA_VERSION, origin: 'declared', columns: [] },
      header: true,
      discover: {},
    },
    workload: { thresholds: [{ features: [0, 1], r: 2, weight: 1 }] },
    epsilon: 1,
    delta: 1e-6,
    overrides: { rows: 20, oversample: 2, maxSteps: 10, threads: 1 },
    noise: seed === undefined ? { mode: 'secure' } : { mode: 'insecure-seed', seed },
    ...(unit ? { unit } : {}),
  };
  const csvPath = path.join(dir, out);
  await releaseStraightThrough(ledger, spec, {
    outPath: csvPath,
    reportPath: `${csvPath}.REPORT.private.json`,
  });
  return readFileSync(csvPath, 'utf8');
}

describe('acceptance: one person holds 2,000 rows with a value no one else has', () => {
  it(
    'at the row level the value is released; at the person level it is not, in 20 runs with secure noise',
    async () => {
      const fingerprint = await fingerprintFile(path.join(dir, 'visits.csv'));
      const rowLedger = Ledger.open(path.join(dir, 'row.sqlite'));
      const personLedger = Ledger.open(path.join(dir, 'person.sqlite'));
      try {
        for (const [l, unit] of [
          [rowLedger, undefined],
          [personLedger, 'person'],
        ] as const) {
          l.ensureDataset({ fingerprint, name: 'visits.csv', rows: 0 });
          l.setCap(fingerprint, 100, 1e-5, unit);
        }
        // Row level: the value's 2,000 rows pass partition selection (τ ≈ 1 + 6σ ≈ 300 here).
        expect(await release(rowLedger, 'row.csv', undefined)).toContain(UNIQUE);
        // Person level: the value is held by one person, a distinct-person count of 1.
        for (let run = 0; run < 20; run++) {
          const out = await release(personLedger, `person-${run}.csv`, {
            column: 'person',
            bound: 'private',
          });
          expect(out).not.toContain(UNIQUE);
          expect(out).not.toContain('HEAVY');
        }
        expect(personLedger.releases().filter((r) => r.status === 'committed')).toHaveLength(20);
        expect(personLedger.releases().every((r) => r.seedMode === 'secure')).toBe(true);
        // A release at the row level on the person-level budget is refused before reserving.
        await expect(release(personLedger, 'refused.csv', undefined)).rejects.toBeInstanceOf(InputError);
        expect(personLedger.releases()).toHaveLength(20);
      } finally {
        rowLedger.close();
        personLedger.close();
      }
    },
    CLI_TIMEOUT,
  );
});
