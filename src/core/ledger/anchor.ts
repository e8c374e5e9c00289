/**
 * The ledger's anchor: a small file OUTSIDE the ledger's folder (the app's config directory)
 * that records which ledger this is and how far it has got — its id (the hash of event 1), the
 * number of events and the head hash. Nothing inside the ledger file can vouch for the file
 * itself: a deleted ledger silently gives a full budget again, and an older copy (or a
 * consistent rewrite with recomputed hashes) passes `verify`. With the anchor, opening a ledger
 * that is missing, behind, rewritten or another ledger altogether is refused (LedgerAnchorError)
 * with the documented recovery (README, "Ledger anchor").
 *
 * The anchor is rewritten atomically after every ledger transaction that appends events
 * (dataset registered, cap set, release reserved / committed / aborted), under the ledger's
 * write lock so that two processes write anchors in head order. A ledger AHEAD of its anchor is
 * accepted (a process died between its commit and the anchor write) and the anchor catches up.
 *
 * Where: `$RAP_STUDIO_ANCHOR_DIR`, else `$XDG_CONFIG_HOME/rap-studio/ledger-anchors`, else
 * `~/.config/rap-studio/ledger-anchors`; one file per ledger path (SHA-256 of its REAL path,
 * symbolic links resolved, so a folder reached through a link has the same anchor), so a test's
 * or a second ledger has its own anchor; and one file per ledger identity (its id, the hash of
 * event 1: `ledger-id-….json` beside the path anchors), written with it. The identity's anchor
 * follows the ledger wherever it is opened: an older copy of it at another path (or a rolled-back
 * one) is behind that anchor and refused, even where its own path has no anchor yet.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { tempPathBeside } from '../data/atomic-write.ts';
import { LedgerAnchorError } from './errors.ts';

export const ANCHOR_FORMAT = 'rap-studio-ledger-anchor';

export interface Anchor {
  readonly format: typeof ANCHOR_FORMAT;
  readonly version: 1;
  /** The ledger file this anchor vouches for (absolute). */
  readonly ledger: string;
  /** The ledger's id: the hash of its first event. */
  readonly ledgerId: string;
  /** Number of events (= the last event's sequence number). */
  readonly events: number;
  readonly headHash: string;
  readonly updatedAt: string;
}

/** What the ledger file holds, as the anchor compares it. */
export interface LedgerHead {
  readonly ledgerId: string | null;
  readonly events: number;
  readonly headHash: string | null;
  /** The hash of event `seq`, undefined when there is none. */
  hashAt(seq: number): string | undefined;
}

export type AnchorStatus =
  | 'none' // no anchor yet (a new ledger, or one from before anchors)
  | 'ok' // the ledger ends exactly at the anchored head
  | 'ahead' // the ledger holds the anchored head and more (the anchor catches up)
  | 'missing' // the ledger file is gone
  | 'behind' // fewer events than anchored: an older copy, or rolled back
  | 'rewritten' // the anchored event has another hash: the history was rewritten
  | 'other'; // a different ledger (another first event) sits at this path

export interface AnchorReport {
  readonly file: string;
  readonly status: AnchorStatus;
  readonly anchoredEvents: number | null;
  readonly anchoredHead: string | null;
  /** One sentence for the curator (and `ledger verify`). */
  readonly message: string;
}

export function defaultAnchorDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RAP_STUDIO_ANCHOR_DIR) return path.resolve(env.RAP_STUDIO_ANCHOR_DIR);
  const xdg = env.XDG_CONFIG_HOME;
  const configHome = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.config');
  return path.join(configHome, 'rap-studio', 'ledger-anchors');
}

/**
 * The ledger's real absolute path: symbolic links resolved (in the file itself, or in the
 * nearest folder above it that exists when the file does not yet).
 */
export function realLedgerPath(ledgerFile: string): string {
  const abs = path.resolve(ledgerFile);
  try {
    return realpathSync.native(abs);
  } catch {
    const parent = path.dirname(abs);
    if (parent === abs) return abs;
    return path.join(realLedgerPath(parent), path.basename(abs));
  }
}

/** The anchor file for the ledger at `ledgerFile` (keyed by its real path). */
export function anchorPathFor(ledgerFile: string, dir = defaultAnchorDir()): string {
  const key = createHash('sha256').update(realLedgerPath(ledgerFile)).digest('hex').slice(0, 32);
  return path.join(dir, `${key}.json`);
}

/** The anchor of the ledger with id `ledgerId`, beside the path anchor `anchorFile`. */
export function identityAnchorPathFor(anchorFile: string, ledgerId: string): string {
  return path.join(path.dirname(anchorFile), `ledger-id-${ledgerId.slice(0, 32)}.json`);
}

/** The anchor at `file`; null when there is none. Throws LedgerAnchorError for an unreadable one. */
export function readAnchor(file: string, ledgerFile: string): Anchor | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LedgerAnchorError(
      ledgerFile,
      file,
      `Cannot read the ledger's anchor ${file} (${(err as NodeJS.ErrnoException).code}): the ledger ` +
        `${ledgerFile} cannot be checked against it, so it is not used. Nothing was recorded. ` +
        'Make the anchor readable, then try again.',
    );
  }
  let a: Partial<Anchor>;
  try {
    a = JSON.parse(text) as Partial<Anchor>;
  } catch {
    a = {};
  }
  const hex64 = (x: unknown) => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x);
  if (
    a.format !== ANCHOR_FORMAT ||
    !hex64(a.ledgerId) ||
    !hex64(a.headHash) ||
    !Number.isSafeInteger(a.events) ||
    (a.events ?? 0) < 1
  ) {
    throw new LedgerAnchorError(
      ledgerFile,
      file,
      `The ledger's anchor ${file} is not a valid anchor file, so the ledger ${ledgerFile} cannot ` +
        'be checked against it. Nothing was recorded. Restore the anchor from a backup; see README, ' +
        '"Ledger anchor".',
    );
  }
  return a as Anchor;
}

/** Writes the anchor atomically (temp file, fsync, rename, fsync of the folder), mode 0600. */
export function writeAnchor(file: string, anchor: Anchor): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = tempPathBeside(file);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      const bytes = Buffer.from(`${JSON.stringify(anchor, null, 2)}\n`);
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // Not every file system lets a folder be fsynced; the rename is still atomic.
  }
}

export function anchorFor(ledgerFile: string, head: LedgerHead): Anchor | null {
  if (head.ledgerId === null || head.headHash === null || head.events === 0) return null;
  return {
    format: ANCHOR_FORMAT,
    version: 1,
    ledger: realLedgerPath(ledgerFile),
    ledgerId: head.ledgerId,
    events: head.events,
    headHash: head.headHash,
    updatedAt: new Date().toISOString(),
  };
}

const RECOVERY =
  'Recovery (README, "Ledger anchor"): put the newest copy of the ledger back at that path ' +
  '(the anchor tells which: its head hash is the last event `rap-studio ledger export` shows). ' +
  'Only if no copy holds the anchored events, accept the loss on purpose by moving the anchor ' +
  "aside (keep it for the record) and lowering each dataset's cap by what those lost releases spent.";

/** Compares the ledger with its anchor; `exists` says whether the ledger file was there before opening. */
export function checkAnchor(
  ledgerFile: string,
  anchorFile: string,
  anchor: Anchor | null,
  head: LedgerHead | null,
): AnchorReport {
  const base = {
    file: anchorFile,
    anchoredEvents: anchor?.events ?? null,
    anchoredHead: anchor?.headHash ?? null,
  };
  if (!anchor) {
    return {
      ...base,
      status: 'none',
      message: `No anchor yet at ${anchorFile} (written at the first event).`,
    };
  }
  const short = anchor.headHash.slice(0, 16);
  const anchored = `its anchor ${anchorFile} records ${anchor.events} event(s) ending in head ${short}… (ledger id ${anchor.ledgerId.slice(0, 16)}…)`;
  const refuse = (status: AnchorStatus, what: string): AnchorReport => ({
    ...base,
    status,
    message: `The privacy budget ledger ${ledgerFile} ${what}, but ${anchored}. Spends recorded there would be forgotten, so the ledger is not used and nothing was reserved. ${RECOVERY}`,
  });
  if (!head) return refuse('missing', 'is missing');
  if (head.ledgerId !== null && head.ledgerId !== anchor.ledgerId)
    return refuse('other', 'is a different ledger (its first event differs)');
  if (head.events < anchor.events)
    return refuse('behind', `holds only ${head.events} event(s): it is an older copy or was rolled back`);
  if (head.hashAt(anchor.events) !== anchor.headHash)
    return refuse(
      'rewritten',
      `has another event ${anchor.events} than the one anchored: its history was rewritten`,
    );
  if (head.events > anchor.events)
    return {
      ...base,
      status: 'ahead',
      message: `The ledger holds the anchored ${anchor.events} event(s) and ${head.events - anchor.events} more; the anchor ${anchorFile} is brought up to date.`,
    };
  return { ...base, status: 'ok', message: `The ledger ends at its anchored head (${anchorFile}).` };
}

/**
 * The ledger against both its anchors: the one of its path, then (when it has events) the one of
 * its identity. A refusal by either is the answer; otherwise the path anchor's report (so that a
 * ledger new at this path gets its path anchor written).
 */
export function checkAnchors(
  ledgerFile: string,
  anchorFile: string,
  pathAnchor: Anchor | null,
  head: LedgerHead | null,
): AnchorReport {
  const report = checkAnchor(ledgerFile, anchorFile, pathAnchor, head);
  if (isRefused(report) || !head?.ledgerId) return report;
  const idFile = identityAnchorPathFor(anchorFile, head.ledgerId);
  const idAnchor = readAnchor(idFile, ledgerFile);
  if (!idAnchor) return report;
  const byId = checkAnchor(ledgerFile, idFile, idAnchor, head);
  if (!isRefused(byId)) return report;
  const where =
    idAnchor.ledger === realLedgerPath(ledgerFile)
      ? ''
      : ` The newest copy of this ledger was last written at ${idAnchor.ledger}: use that one (--ledger or RAP_STUDIO_LEDGER).`;
  return { ...byId, message: `${byId.message}${where}` };
}

/** Writes the anchors of the ledger's path and of its identity for `head` (nothing for an empty ledger). */
export function writeAnchors(ledgerFile: string, anchorFile: string, head: LedgerHead): Anchor | null {
  const anchor = anchorFor(ledgerFile, head);
  if (!anchor) return null;
  writeAnchor(anchorFile, anchor);
  writeAnchor(identityAnchorPathFor(anchorFile, anchor.ledgerId), anchor);
  return anchor;
}

export function isRefused(report: AnchorReport): boolean {
  return !['none', 'ok', 'ahead'].includes(report.status);
}
