/**
 * Nothing the ledger hands to a public file is a deterministic function of the private file
 * (issue 26, item 2; audit #2 and #10): the id and head hash a release manifest carries, and the
 * dataset fingerprints and event chain of an export for an oversight body, are keyed with the
 * ledger's secret key (0600, beside the ledger). The audit's attack — rebuild event 1's hash from
 * SHA-256(file), the name, n and the timestamp, all known or guessable — must find nothing.
 */
import { createHash, createHmac } from 'node:crypto';
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { canonicalJson } from './canonical.ts';
import { GENESIS_HASH } from './events.ts';
import { keyPathFor } from './key.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('the private file, keyed');

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

function sample(file = tempLedgerPath()): Ledger {
  const l = Ledger.open(file);
  open.push(l);
  l.ensureDataset({ fingerprint: FP, name: 'small.csv', rows: 3000 });
  l.setCap(FP, 1, 1e-6);
  const r = l.reserve(requestFor(FP, rhoFromEpsilon(1, 1e-6) / 4));
  l.commit(r.id, { sha256: fingerprintOf('output'), path: '/out/a.csv' });
  return l;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The audit's probe B: event 1's hash from public or guessable values. */
function rebuiltEventOne(l: Ledger): string {
  const ts = (JSON.parse(l.export('json')) as { events: { ts: string }[] }).events[0].ts;
  const payload = canonicalJson({ fingerprint: FP, name: 'small.csv', rows: 3000 });
  return sha(`${GENESIS_HASH}\n1\n${ts}\ndataset-registered\n${payload}`);
}

describe("the ledger's public identity is keyed", () => {
  it('the id and head hash for manifests are HMACs under the key file (0600), not the raw hashes', () => {
    const l = sample();
    const raw = l.head();
    expect(raw.ledgerId).toBe(rebuiltEventOne(l)); // the raw id is what the audit rebuilt…
    const pub = l.identity();
    expect(pub.events).toBe(raw.events);
    expect(pub.ledgerId).not.toBe(raw.ledgerId); // …and is not what a manifest carries
    expect(pub.headHash).not.toBe(raw.headHash);
    const keyFile = keyPathFor(l.file);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
    expect(key).toHaveLength(32);
    const hmac = (label: string, v: string) =>
      createHmac('sha256', key).update(`${label}\n${v}`).digest('hex');
    // Recomputable by whoever holds the ledger and its key.
    expect(pub.ledgerId).toBe(hmac('ledger-id', raw.ledgerId as string));
    expect(pub.headHash).toBe(hmac('head', raw.headHash as string));
    // Stable across opens (the key is kept), different for another ledger with the same events.
    l.close();
    open.length = 0;
    const again = Ledger.open(l.file);
    open.push(again);
    expect(again.identity()).toEqual(pub);
  });

  it('a copy of the ledger with another key gives other public values (they depend on the key)', () => {
    const l = sample();
    const copy = path.join(path.dirname(l.file), 'copy.sqlite');
    const pub = l.identity();
    copyFileSync(l.file, copy);
    const other = Ledger.open(copy, { anchorFile: null });
    open.push(other);
    expect(other.head().ledgerId).toBe(l.head().ledgerId);
    expect(other.identity().ledgerId).not.toBe(pub.ledgerId);
  });
});

describe('the export for an oversight body carries keyed fingerprints only', () => {
  it('json: no raw fingerprint or raw chain hash anywhere; the keyed chain re-hashes from the export alone', () => {
    const l = sample();
    const text = l.export('json');
    expect(text).not.toContain(FP);
    expect(text).not.toContain(l.head().ledgerId as string);
    expect(text).not.toContain(l.head().headHash as string);
    const doc = JSON.parse(text);
    const key = Buffer.from(readFileSync(keyPathFor(l.file), 'utf8').trim(), 'hex');
    const keyedFp = createHmac('sha256', key).update(`dataset\n${FP}`).digest('hex');
    expect(doc.datasets[0].fingerprint).toBe(keyedFp);
    expect(doc.releases[0].datasetFingerprint).toBe(keyedFp);
    expect(JSON.parse(doc.events[0].payload).fingerprint).toBe(keyedFp);
    let prev = GENESIS_HASH;
    for (const e of doc.events) {
      expect(e.prevHash).toBe(prev);
      prev = sha(`${prev}\n${e.id}\n${e.ts}\n${e.kind}\n${e.payload}`);
      expect(e.hash).toBe(prev);
    }
    expect(doc.headHash).toBe(prev);
    expect(doc.releases[0].rowHash).toBe(doc.events[2].hash);
    expect(l.export('json')).toBe(text); // the curator regenerates the same export
  });

  it('csv: the keyed fingerprint, never the raw SHA-256', () => {
    const l = sample();
    const text = l.export('csv');
    expect(text).not.toContain(FP);
    const rows = Papa.parse<Record<string, string>>(text.trimEnd(), { header: true }).data;
    expect(rows[0].dataset_keyed_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].dataset_keyed_fingerprint).toBe(JSON.parse(l.export('json')).datasets[0].fingerprint);
  });
});
