/**
 * Hierarchical codes at the person level through the real CLI (issue 28): `synth --unit-column
 * patient_id --hierarchy diagnosis=icd10` on a hospital-visits-like file (patients with 1–3 visits
 * over common ICD-10 codes, and one patient with 2,000 visits of a code nobody else has). The
 * levels count distinct patients per key (discovery/hierarchy-counts.ts), so the heavy patient's
 * code is one patient's at every level and is not released as a full code at the person level,
 * while at the row level (the same file, no unit) its 2,000 rows release it. Common codes come out
 * at their finest released level; the manifest and the ledger name the hierarchy and the unit.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, runCli, withLedger } from '../../support/cli.ts';
import { capArgs, visitsFolder, visitsSynthArgs } from './visits.ts';

const RARE = 'Q99.9';
const PATIENTS = 1500;
/** Common codes, by weight: categories (I10, J45) and full codes under C34, J18, E11. */
const COMMON = ['I10', 'I10', 'I10', 'J18.9', 'J18.9', 'C34.90', 'C34.10', 'E11.9', 'J45'];

function csv(): string {
  const lines = ['patient_id,ward,diagnosis'];
  const wards = ['Oncology', 'Cardiology', 'Emergency'];
  for (let p = 0; p < PATIENTS; p++) {
    for (let j = 0; j <= p % 3; j++)
      lines.push(`P${100000 + p},${wards[(p + j) % 3]},${COMMON[(p * 7 + j) % COMMON.length]}`);
  }
  for (let j = 0; j < 2000; j++) lines.push(`P999999,${wards[j % 3]},${RARE}`);
  return `${lines.join('\n')}\n`;
}

const dir = visitsFolder('hierarchy-person', csv());

const TINY = ['--rows', '200', '--oversample', '2', '--max-steps', '20'];

async function synth(out: string, unit: string[]) {
  const ledger = path.join(dir, `${out}.sqlite`);
  const capUnit = unit[0] === '--unit-column' ? unit : [];
  const set = await runCli(capArgs(ledger, 20, capUnit), dir);
  expect(set.code).toBe(0);
  const r = await runCli(
    visitsSynthArgs(ledger, `${out}.csv`, 4, [
      ...unit,
      '--hierarchy',
      'diagnosis=icd10',
      '--workload',
      'w.json',
      '--seed',
      '7',
      '--insecure-seed',
      ...TINY,
    ]),
    dir,
  );
  expect(r.stderr).not.toContain('rap-studio:');
  expect(r.code).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(dir, `${out}.manifest.json`), 'utf8'));
  // The released domain: the Data Package's Table Schema enum (the manifest states the mechanism).
  const pkg = JSON.parse(readFileSync(path.join(dir, `${out}.datapackage.json`), 'utf8'));
  const field = pkg.resources[0].schema.fields.find((f: { name: string }) => f.name === 'diagnosis');
  const dx = { categories: field.constraints.enum as string[] };
  const text = readFileSync(path.join(dir, `${out}.csv`), 'utf8')
    .trim()
    .split(/\r?\n/);
  const j = text[0].split(',').indexOf('diagnosis');
  const released = text.slice(1).map((l) => l.split(',')[j]);
  return { ledger, manifest, dx, released };
}

describe('synth --unit-column with --hierarchy', () => {
  it(
    'discovers the ICD-10 levels on distinct patients: common codes at their finest level, the one heavy patient’s code not as a full code',
    async () => {
      const person = await synth('person', ['--unit-column', 'patient_id']);
      expect(person.manifest.unit.kind).toBe('person');
      // Letters and categories held by hundreds of patients pass; the rare code is one patient's.
      expect(person.dx.categories).toEqual(expect.arrayContaining(['C', 'C34', 'I', 'I10', 'J', 'J18']));
      expect(person.dx.categories).not.toContain(RARE);
      // "(other)" is always in the domain at the person level (no row estimate from persons).
      expect(person.dx.categories).toContain('(other)');
      // Every released value is a released key: a code at its finest released level, never finer.
      const domain = new Set(person.dx.categories);
      expect(person.released.length).toBeGreaterThan(0);
      for (const v of person.released) expect(domain.has(v)).toBe(true);
      expect(person.released).not.toContain(RARE);
      withLedger(person.ledger, (l) => {
        const [release] = l.releases();
        expect(release.status).toBe('committed');
        const discovery = release.params.discovery as { hierarchies: Record<string, string> };
        expect(discovery.hierarchies).toEqual({ diagnosis: 'icd10' });
        expect(release.params.unit).toMatchObject({ kind: 'person', column: 'patient_id' });
      });

      // The same file at the row level: the heavy patient's 2,000 rows release the full code.
      const rows = await synth('rows', ['--exclude', 'patient_id']);
      expect(rows.dx.categories).toContain(RARE);
    },
    CLI_TIMEOUT,
  );
});
