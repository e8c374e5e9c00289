/**
 * Why the ledger could not be used, as types the CLI and the app turn into specific messages
 * (not "Internal error"). Every one of them means: nothing was recorded by the failed call — a
 * write runs in one transaction, so a failure rolls it back whole — and nothing was reserved.
 *
 * CLI exit code 1 (a runtime failure, README's scheme); the app shows the message as is.
 */

export type LedgerProblem = 'locked' | 'read-only' | 'corrupt' | 'full' | 'anchor';

export class LedgerError extends Error {
  override readonly name: string = 'LedgerError';
  constructor(
    readonly problem: LedgerProblem,
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The ledger's anchor (anchor.ts) disagrees with the ledger file: missing, rolled back or replaced. */
export class LedgerAnchorError extends LedgerError {
  override readonly name = 'LedgerAnchorError';
  constructor(
    file: string,
    readonly anchorFile: string,
    message: string,
  ) {
    super('anchor', file, message);
  }
}

/**
 * The ledger's state tables or events disagree with its hash chain (an edit outside RAP Studio),
 * found when a reservation checks them: refused, as `ledger verify` would fail it.
 */
export class LedgerTamperedError extends LedgerError {
  override readonly name = 'LedgerTamperedError';
  constructor(file: string, what: string) {
    super(
      'corrupt',
      file,
      `The privacy budget ledger ${file} does not agree with its own event log (${what}): it was ` +
        'edited outside RAP Studio, so its budget cannot be trusted. Nothing was reserved. Run ' +
        '`rap-studio ledger verify` to see the first broken link, and restore the ledger from a backup.',
    );
  }
}

const NOTHING = 'Nothing was recorded and nothing was reserved.';

/** SQLite's and the file system's error codes for each problem (better-sqlite3 reports extended codes). */
function problemOf(err: unknown): Exclude<LedgerProblem, 'anchor'> | undefined {
  const code = String((err as { code?: unknown })?.code ?? '');
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'locked';
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return 'read-only';
  if (code.startsWith('SQLITE_CANTOPEN')) return 'read-only';
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) return 'corrupt';
  // A write that fails part-way on a full disk can surface as an I/O error on the journal.
  if (code.startsWith('SQLITE_IOERR')) return /full|space/i.test((err as Error).message) ? 'full' : undefined;
  return undefined;
}

/** The message for each problem: what happened, that nothing was spent, and what to do. */
export function ledgerMessage(
  problem: Exclude<LedgerProblem, 'anchor'>,
  file: string,
  busyMs: number,
): string {
  switch (problem) {
    case 'locked':
      return (
        `The privacy budget ledger ${file} is locked by another RAP Studio process (app or CLI) ` +
        `and stayed locked for ${busyMs / 1000} s. ${NOTHING} Wait for the other run to finish ` +
        '(or close the other window), then try again.'
      );
    case 'read-only':
      return (
        `The privacy budget ledger ${file} cannot be written (read-only file, folder or disk, or no ` +
        `permission). ${NOTHING} Make the file and its folder writable (or point RAP_STUDIO_LEDGER / ` +
        '--ledger at the right ledger), then try again.'
      );
    case 'full':
      return (
        `The disk holding the privacy budget ledger ${file} is full. ${NOTHING} Free some space on ` +
        'that disk, then try again.'
      );
    case 'corrupt':
      return (
        `The privacy budget ledger ${file} is damaged (SQLite reports a corrupt database). ${NOTHING} ` +
        'Do not delete it: restore it from a backup (with its anchor it must end at the anchored ' +
        'event), or ask for help to recover it; `rap-studio ledger verify` says what is wrong.'
      );
  }
}

/**
 * The typed LedgerError for a SQLite / file-system failure of the ledger at `file`, or `err`
 * itself when it is something else (a budget refusal, a bad request).
 */
export function asLedgerError(err: unknown, file: string, busyMs: number): unknown {
  if (err instanceof LedgerError) return err;
  const problem = problemOf(err);
  if (!problem) return err;
  return new LedgerError(problem, file, ledgerMessage(problem, file, busyMs), { cause: err });
}
