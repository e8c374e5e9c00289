import { createHash } from 'node:crypto';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { CSV_COLUMNS, csvField } from './export.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('adult.csv bytes');
const CAP_RHO = rhoFromEpsilon(1, 1e-6);

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

function sample(): { l: Ledger; ids: string[] } {
  const l = Ledger.open(tempLedgerPath());
  open.push(l);
  l.ensureDataset({ fingerprint: FP, name: '=adult, "2024".csv', rows: 48842 });
  l.setCap(FP, 1, 1e-6);
  const ids = [0, 1, 2].map(() => l.reserve(requestFor(FP, CAP_RHO / 10)).id);
  l.commit(ids[0], { sha256: fingerprintOf('out'), path: '/data/out, final.csv' });
  l.abort(ids[1], 'cancelled: "too slow"\nretrying tomorrow');
  return { l, ids };
}

describe('export', () => {
  it('json carries datasets with totals, full releases and an event log an auditor can re-hash', () => {
    const { l, ids } = sample();
    const doc = JSON.parse(l.export('json'));
    expect(doc.format).toBe('rap-studio-ledger');
    // The keyed fingerprint (keyed-identity.test.ts), never the file's SHA-256.
    expect(doc.datasets[0]).toMatchObject({ totals: { releases: 3 } });
    expect(doc.datasets[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.datasets[0].fingerprint).not.toBe(FP);
    expect(doc.releases.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(doc.releases[0].workload.json).toContain('thresholds');
    // Recompute the chain from the export alone, with nothing from the ledger module.
    let prev = '0'.repeat(64);
    for (const e of doc.events) {
      expect(e.prevHash).toBe(prev);
      const hash = createHash('sha256')
        .update(`${prev}\n${e.id}\n${e.ts}\n${e.kind}\n${e.payload}`)
        .digest('hex');
      expect(e.hash).toBe(hash);
      prev = hash;
    }
    expect(doc.events).toHaveLength(7);
    expect(doc.headHash).toBe(prev);
    // The export's chain is over the keyed payloads, so it is not the ledger's own chain.
    const verified = l.verify();
    expect(verified.ok && verified.headHash).not.toBe(prev);
    expect(l.export('json')).toBe(l.export('json'));
  });

  it('csv is one RFC 4180 row per release that a CSV parser reads back field for field', () => {
    const { l, ids } = sample();
    const text = l.export('csv');
    const parsed = Papa.parse<Record<string, string>>(text.trimEnd(), { header: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([...CSV_COLUMNS]);
    const rows = parsed.data;
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.map((r) => r.status)).toEqual(['committed', 'aborted', 'reserved']);
    expect(rows[0].output_path).toBe('/data/out, final.csv');
    expect(rows[1].abort_reason).toBe('cancelled: "too slow"\nretrying tomorrow');
    expect(rows[0].dataset_name).toBe(`'=adult, "2024".csv`); // neutralised for spreadsheets
    expect(Number(rows[2].rho)).toBe(CAP_RHO / 10);
    expect(JSON.parse(rows[2].params_json)).toEqual(requestFor(FP, 1).params);
    expect(rows[2].output_sha256).toBe('');
    expect(rows[0].row_hash).toBe(JSON.parse(l.export('json')).releases[0].rowHash);
  });

  it('an empty ledger exports a header and an empty document', () => {
    const l = Ledger.open(':memory:');
    open.push(l);
    expect(l.export('csv')).toBe(`${CSV_COLUMNS.join(',')}\n`);
    expect(JSON.parse(l.export('json'))).toMatchObject({ datasets: [], releases: [], events: [] });
  });

  it('quotes only when needed', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "x"')).toBe('"say ""x"""');
    expect(csvField(-0.5)).toBe('-0.5');
    expect(csvField('-cmd')).toBe("'-cmd");
    expect(csvField(undefined)).toBe('');
  });
});
