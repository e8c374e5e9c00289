/**
 * The ledger's secret key: 32 random bytes (node:crypto) in a file beside the ledger
 * (`<ledger>.key`, mode 0600, created once, exclusively). Everything the ledger hands out for a
 * public file — the ledger's id and head hash in a release manifest, the dataset fingerprints and
 * the event chain in an export for an oversight body — is keyed with it (HMAC-SHA256), because
 * the raw values are deterministic functions of the private file: event 1's hash is SHA-256 over
 * the file's SHA-256, its name, its row count and a millisecond timestamp, so an adversary who
 * knows all rows but one could test guesses of the last one against it (issue 26, audit #2).
 * Without the key a keyed value says nothing about the file; with it (the curator's, or an
 * auditor's given the key) it is recomputed from the ledger.
 *
 * Losing the key costs no budget (the ledger's identities and spends do not depend on it); only
 * the link between published manifests and the ledger is lost. Keep it with the ledger's backups.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE, tempPathBeside } from '../data/atomic-write.ts';
import { LedgerError } from './errors.ts';

const KEY_BYTES = 32;

/** Where the ledger at `ledgerFile` keeps its key. */
export function keyPathFor(ledgerFile: string): string {
  return `${ledgerFile}.key`;
}

/**
 * The key of the ledger at `ledgerFile`, created (0600, exclusively: two processes creating it at
 * once end with one key) when there is none yet.
 */
export function loadLedgerKey(ledgerFile: string): Buffer {
  const file = keyPathFor(ledgerFile);
  const existing = readKey(file, ledgerFile);
  if (existing) return existing;
  const temp = tempPathBeside(file);
  const fd = openSync(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, `${randomBytes(KEY_BYTES).toString('hex')}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file); // fails if another process created it first: then its key is the key
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      rmSync(temp, { force: true });
      throw err;
    }
  }
  rmSync(temp, { force: true });
  const key = readKey(file, ledgerFile);
  if (!key) throw new Error(`could not create the ledger key ${file}`);
  return key;
}

function readKey(file: string, ledgerFile: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new LedgerError(
      'corrupt',
      ledgerFile,
      `The ledger's key ${file} is damaged (not 64 hex digits). Nothing was recorded. Restore it from ` +
        'the backup kept with the ledger; only if there is none, move it aside: a new key is then made, ' +
        'and manifests published before can no longer be matched to this ledger (no budget is affected).',
    );
  }
  return Buffer.from(hex, 'hex');
}

/** A key for a ledger that lives in memory only (tests): never written anywhere. */
export function ephemeralLedgerKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/** HMAC-SHA256 under the ledger's key of `label \n value`, as lower-case hex. */
export function keyed(key: Buffer, label: 'ledger-id' | 'head' | 'dataset' | 'event', value: string): string {
  return createHmac('sha256', key).update(`${label}\n${value}`).digest('hex');
}
