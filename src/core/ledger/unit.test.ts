/**
 * The unit of privacy is fixed with the cap (issue 27): ledger set-cap --unit-column records it in
 * the cap-set event; a release at another unit is refused with nothing reserved; a new cap cannot
 * change the unit once the dataset has a release; the chain still verifies.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../errors.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const files: string[] = [];
afterEach(() => {
  for (const f of files.splice(0)) rmSync(f, { force: true });
});

function open(): Ledger {
  const file = tempLedgerPath();
  files.push(file);
  return Ledger.open(file);
}

const personRequest = (fp: string, column: string) => {
  const r = requestFor(fp, 0.01);
  return { ...r, params: { ...r.params, unit: { kind: 'person', column } } };
};

describe('the unit fixed with the cap', () => {
  it('records the unit, admits releases at it and refuses the other unit (nothing reserved)', () => {
    const l = open();
    try {
      const fp = fingerprintOf('visits');
      l.ensureDataset({ fingerprint: fp, name: 'visits.csv', rows: 10 });
      expect(l.capUnit(fp)).toBeUndefined();
      l.setCap(fp, 5, 1e-6, 'patient_id');
      expect(l.capUnit(fp)).toBe('patient_id');
      expect(l.reserve(personRequest(fp, 'patient_id')).status).toBe('reserved');
      expect(() => l.reserve(requestFor(fp, 0.01))).toThrow(InputError);
      expect(() => l.reserve(requestFor(fp, 0.01))).toThrow(
        /per person \(identified by column patient_id\).*per row.*add --unit-column patient_id/,
      );
      expect(() => l.reserve(personRequest(fp, 'other'))).toThrow(
        /per person \(identified by column other\)/,
      );
      expect(l.releases()).toHaveLength(1);
      // With a release spent per person, a new cap keeps the unit or is refused.
      expect(() => l.setCap(fp, 6, 1e-6)).toThrow(/spent per person/);
      expect(l.setCap(fp, 6, 1e-6, 'patient_id').cap?.epsilon).toBe(6);
      expect(l.verify().ok).toBe(true);
    } finally {
      l.close();
    }
  });

  it('a per-row cap (no unit) refuses a person-level release; before any release the unit may change', () => {
    const l = open();
    try {
      const fp = fingerprintOf('claims');
      l.ensureDataset({ fingerprint: fp, name: 'claims.csv', rows: 10 });
      l.setCap(fp, 5, 1e-6);
      expect(l.capUnit(fp)).toBeNull();
      expect(() => l.reserve(personRequest(fp, 'member'))).toThrow(/per row, and this release is per person/);
      l.setCap(fp, 5, 1e-6, 'member');
      expect(l.reserve(personRequest(fp, 'member')).status).toBe('reserved');
      expect(l.verify().ok).toBe(true);
    } finally {
      l.close();
    }
  });
});
