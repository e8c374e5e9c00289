import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { rhoFromEpsilon } from '../privacy/accounting.ts';
import { type Anchor, anchorPathFor, defaultAnchorDir } from './anchor.ts';
import { LedgerAnchorError } from './errors.ts';
import { Ledger } from './ledger.ts';
import { fingerprintOf, requestFor, tempLedgerPath } from './testing/fixtures.ts';

const FP = fingerprintOf('anchored.csv bytes');
const CAP_RHO = rhoFromEpsilon(1, 1e-6);

const open: Ledger[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

function setup(): { file: string; anchorFile: string; ledger: Ledger } {
  const file = tempLedgerPath();
  const anchorFile = path.join(mkdtempSync(path.join(tmpdir(), 'rap-anchor-')), 'config', 'a.json');
  const ledger = Ledger.open(file, { anchorFile });
  open.push(ledger);
  ledger.ensureDataset({ fingerprint: FP, name: 'a.csv', rows: 100 });
  ledger.setCap(FP, 1, 1e-6);
  return { file, anchorFile, ledger };
}

const anchorOf = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Anchor;

function refusal(fn: () => unknown): LedgerAnchorError {
  try {
    fn();
  } catch (err) {
    if (err instanceof LedgerAnchorError) return err;
    throw err;
  }
  throw new Error('expected LedgerAnchorError');
}

describe('the ledger anchor', () => {
  it('follows every write: id = hash of event 1, events, head hash; 0600 in a 0700 folder', () => {
    const { file, anchorFile, ledger } = setup();
    const r = ledger.reserve(requestFor(FP, CAP_RHO / 4));
    let a = anchorOf(anchorFile);
    const head = ledger.head();
    expect(a).toMatchObject({
      ledger: path.resolve(file),
      events: 3,
      ledgerId: head.ledgerId,
      headHash: head.headHash,
    });
    expect(head.ledgerId).toBe(head.hashAt(1));
    ledger.commit(r.id, { sha256: fingerprintOf('out') });
    a = anchorOf(anchorFile);
    expect(a.events).toBe(4);
    expect(statSync(anchorFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(anchorFile)).mode & 0o777).toBe(0o700);
    expect(ledger.verify()).toMatchObject({ ok: true, anchor: { status: 'ok', anchoredEvents: 4 } });
  });

  it('the main file alone holds every commit (a copy of it without -journal/-wal is current)', () => {
    const { file, ledger } = setup();
    ledger.reserve(requestFor(FP, CAP_RHO / 4));
    const copy = path.join(path.dirname(file), 'copy.sqlite');
    copyFileSync(file, copy);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const raw = new Database(copy, { readonly: true });
    expect(raw.prepare('SELECT count(*) FROM releases').pluck().get()).toBe(1);
    raw.close();
  });

  it('refuses a deleted ledger, naming the anchor; nothing is created in its place', () => {
    const { file, anchorFile, ledger } = setup();
    ledger.close();
    open.length = 0;
    rmSync(file);
    const err = refusal(() => Ledger.open(file, { anchorFile }));
    expect(err.message).toContain(anchorFile);
    expect(err.message).toMatch(/is missing.*records 2 event\(s\).*Recovery/);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses an older copy at open and at reserve time; verify reports it', () => {
    const { file, anchorFile, ledger } = setup();
    const older = `${file}.older`;
    copyFileSync(file, older);
    ledger.reserve(requestFor(FP, CAP_RHO / 2));
    ledger.close();
    open.length = 0;
    copyFileSync(older, file);
    const err = refusal(() => Ledger.open(file, { anchorFile }));
    expect(err.message).toMatch(/holds only 2 event\(s\).*older copy.*records 3 event\(s\)/);
    const reported = Ledger.open(file, { anchorFile, anchorCheck: 'report' });
    open.push(reported);
    expect(reported.verify()).toMatchObject({
      ok: false,
      firstBrokenTable: 'anchor',
      anchor: { status: 'behind' },
    });
    // A process that opened the file before it was swapped still checks at reserve time.
    expect(() => reported.reserve(requestFor(FP, CAP_RHO / 4))).toThrow(LedgerAnchorError);
    expect(reported.releases()).toHaveLength(0);
  });

  it('refuses another ledger put at the anchored path', () => {
    const { file, anchorFile, ledger } = setup();
    ledger.close();
    open.length = 0;
    rmSync(file);
    const other = Ledger.open(file, { anchorFile: null });
    for (let i = 0; i < 3; i++)
      other.ensureDataset({ fingerprint: fingerprintOf(`x${i}`), name: `x${i}`, rows: 1 });
    other.close();
    expect(refusal(() => Ledger.open(file, { anchorFile })).message).toMatch(/different ledger/);
  });

  it('a ledger ahead of its anchor (died between commit and anchor write) is accepted and the anchor catches up', () => {
    const { file, anchorFile, ledger } = setup();
    ledger.close();
    open.length = 0;
    const noAnchor = Ledger.open(file, { anchorFile: null });
    noAnchor.reserve(requestFor(FP, CAP_RHO / 4));
    noAnchor.close();
    const again = Ledger.open(file, { anchorFile });
    open.push(again);
    expect(anchorOf(anchorFile).events).toBe(3);
    expect(again.anchor?.status).toBe('ok');
  });

  it('lives in the config directory by default, one file per ledger path', () => {
    const env = { HOME: '/home/c', XDG_CONFIG_HOME: '/cfg' };
    expect(defaultAnchorDir(env)).toBe('/cfg/rap-studio/ledger-anchors');
    expect(defaultAnchorDir({ HOME: '/home/c' })).toBe('/home/c/.config/rap-studio/ledger-anchors');
    expect(defaultAnchorDir({ ...env, RAP_STUDIO_ANCHOR_DIR: '/t/a' })).toBe('/t/a');
    expect(anchorPathFor('/x/l.sqlite', '/d')).not.toBe(anchorPathFor('/y/l.sqlite', '/d'));
  });
});

describe('a ledger swapped while open', () => {
  it('refuses to reserve once the file at its path is another one', () => {
    const { file, ledger } = setup();
    const older = `${file}.older`;
    copyFileSync(file, older);
    rmSync(file);
    copyFileSync(older, file);
    expect(() => ledger.reserve(requestFor(FP, CAP_RHO / 4))).toThrow(
      /deleted or replaced.*while RAP Studio had it open/,
    );
  });
});
