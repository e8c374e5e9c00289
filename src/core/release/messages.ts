/**
 * Every warning and abort of a release as a typed code, with its text here and nowhere else:
 * callers choose by code (the app hides warnings its screens already show), never by wording.
 * The CLI and the app word failures for their own readers ("voice"), both from this file.
 */

import type { FitCheck, Misfit } from '../data/fit.ts';
import { formatTemporal } from '../data/formats.ts';
import { CancelledError, EngineCrashedError } from '../engine/process/errors.ts';
import { InputError } from '../errors.ts';

const warning = <C extends string>(code: C, message: string) => ({ code, message }) as const;

export const warnings = {
  /** δ ≥ 1/n: the text comes from the privacy module's check. */
  deltaLarge: (text: string) => warning('delta-large', text),
  /** The schema came from the data (inferred, or confirmed from an inferred one). */
  schemaFromData: (origin: string) => warning('schema-from-data', `the schema was ${origin}`),
  /** Rows of the wrong width: kept as records with every value missing (n counts them). */
  rowsKeptMissing: (rows: number, firstLine: number, file: string) =>
    warning(
      'rows-kept-missing',
      `${rows} row${rows === 1 ? '' : 's'} of ${file} ${rows === 1 ? 'has' : 'have'} the wrong number of fields ` +
        `(first at line ${firstLine}): kept as records with every value missing, so n is the file's record count`,
    ),
  /** The curator overrode the refusal of a domain read off the data without DP. */
  domainNotDp: (columns: readonly string[]) =>
    warning(
      'domain-not-dp',
      `domain not differentially private for ${columns.map((c) => `"${c}"`).join(', ')}: their categories and ranges ` +
        'were read from the private data; the ledger and the manifest say so',
    ),
  /** A query source whose plan can repeat a record (a join, UNION ALL, unnest): a result row is the unit. */
  queryRepeats: (steps: readonly string[]) =>
    warning(
      'query-repeats-rows',
      `the query has ${steps.join(', ')}: one row of its result is the unit of privacy, so a person with ` +
        'several result rows is protected less than ε says; release a query with one row per person ' +
        '(docs/privacy.md)',
    ),
  /** A cap was asked for (`--budget-epsilon`) but the dataset has one. */
  capExists: (name: string, epsilon: number, delta: number) =>
    warning(
      'cap-exists',
      `dataset "${name}" already has a budget cap (ε = ${epsilon} at δ = ${delta}); ` +
        '--budget-epsilon is ignored (change a cap with `rap-studio ledger set-cap`)',
    ),
};

export type ReleaseWarning = ReturnType<(typeof warnings)[keyof typeof warnings]>;
export type ReleaseWarningCode = ReleaseWarning['code'];

/** Who reads a failure: the CLI's stderr line, or the app's error banner. */
export type Voice = 'cli' | 'app';

/** Why a reserved release ended without a result. */
export type AbortCode = 'cancelled' | 'engine-crashed' | 'bad-input' | 'engine-error';

export function abortCode(err: unknown, cancelled: boolean): AbortCode {
  if (cancelled || err instanceof CancelledError) return 'cancelled';
  if (err instanceof EngineCrashedError) return 'engine-crashed';
  if (err instanceof InputError) return 'bad-input';
  return 'engine-error';
}

/**
 * The ledger's abort reason. Deliberately generic: an error message may quote a private value
 * (a CSV cell), and the ledger is shown to an oversight body.
 */
export function ledgerAbortReason(code: AbortCode, err: unknown): string {
  switch (code) {
    case 'cancelled':
      return 'cancelled';
    case 'engine-crashed': {
      const { signal, exitCode, outOfMemory } = err as EngineCrashedError;
      if (outOfMemory) return 'engine process ran out of memory';
      return `engine process ended unexpectedly (${signal ? `signal ${signal}` : `exit code ${exitCode}`})`;
    }
    case 'bad-input':
      return 'failed: bad input (private data or engine options)';
    case 'engine-error':
      return 'failed: engine error';
  }
}

/** A reserved release that ended without a result; its spend stays counted. */
export class ReleaseAbortedError extends Error {
  override readonly name = 'ReleaseAbortedError';
  constructor(
    readonly code: AbortCode,
    readonly error: unknown,
    readonly releaseId: string,
    /** False when the ledger could not be written: the release then stays reserved. */
    readonly marked: boolean,
  ) {
    super(`release ${releaseId} ended: ${code}`, { cause: error });
  }

  /** The CLI's error: its class keeps the exit code (cancel 1, bad input 2, other 1). */
  forCli(): Error {
    const { code, error, releaseId } = this;
    const tail = this.marked
      ? `release ${releaseId} was marked aborted; its privacy spend stays counted`
      : `release ${releaseId} stays reserved (the ledger could not be updated); its privacy spend stays counted`;
    if (code === 'cancelled') return new CancelledError(`the run was cancelled: ${tail}`);
    if (error instanceof InputError) return new InputError(`${error.message} (${tail})`, error.where);
    return new Error(`${(error as Error).message ?? String(error)} (${tail})`, { cause: error });
  }

  /** The app's banner: kind and message. */
  forApp(): { kind: 'cancelled' | 'internal' | 'input'; message: string } {
    const { code, error, releaseId } = this;
    const tail = `Release ${releaseId} was marked aborted; its privacy spend stays counted in the ledger.`;
    switch (code) {
      case 'cancelled':
        return { kind: 'cancelled', message: `The run was cancelled. ${tail}` };
      case 'engine-crashed': {
        const m = (error as Error).message;
        return { kind: 'internal', message: `${m.charAt(0).toUpperCase()}${m.slice(1)}. ${tail}` };
      }
      case 'bad-input':
        return { kind: 'input', message: `${(error as Error).message} ${tail}` };
      case 'engine-error':
        return {
          kind: 'internal',
          message: `The engine failed (see the application log). ${tail} Start a new run when the problem is fixed.`,
        };
    }
  }
}

/** Thrown when the synthetic CSV or its sidecar cannot be written; the release stays reserved. */
export class OutputNotWrittenError extends Error {
  override readonly name = 'OutputNotWrittenError';
}

export function outputNotWritten(
  voice: Voice,
  what: string,
  file: string,
  releaseId: string,
  err: unknown,
  /** The CLI's release CSV, kept where its conversion to `file`'s format failed (publish.ts keepCsv). */
  keptCsv: string | null = null,
): OutputNotWrittenError {
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  const tail = `Release ${releaseId} stays reserved and its privacy spend stays counted; `;
  const kept = keptCsv
    ? `The release's synthetic CSV (the same rows, not committed) was kept at ${keptCsv}. `
    : '';
  return new OutputNotWrittenError(
    voice === 'cli'
      ? `could not write the ${what} to ${file} (${code}): the file was NOT written. ${kept}${tail}` +
          (keptCsv
            ? 'that CSV is what was paid for: publish it, or convert it with another tool (a new release spends again)'
            : 'free space or fix permissions before running again')
      : `Could not write the ${what} to ${file} (${code}): the file was NOT written. ${tail}` +
          'choose another folder or free some space, then export again.',
  );
}

export const NON_PRIVATE_NOTE =
  'The error metrics (presentError, roundedPresentError, meanError, roundedMeanError, all0Error, ' +
  'relativeErrorProfile, perThresholdError, futureError, roundedFutureError, errorTables) compare against the EXACT answers on the ' +
  'private data: they are non-private diagnostics for the curator only. Do not publish them with ' +
  'the synthetic data; the release is the synthetic CSV alone.';

export const CANCELLED_BEFORE_RESERVE = 'cancelled before the budget was reserved: nothing was spent';

export function fileChangedWhileRead(file: string): InputError {
  return new InputError(
    `${file}: the file changed while it was being read (its SHA-256 differs between two reads); ` +
      'run again once nothing is writing to it',
    { file },
  );
}

/**
 * n is public and fixed, so a declared domain that cannot hold every record refuses the run
 * before any reservation (dropping the records would make the engine's n differ from the
 * ledger's and every σ depend on how many rows failed).
 */
export function recordsDoNotFit(
  loaded: {
    readonly dataset: { readonly n: number };
    readonly summary: {
      readonly file: string;
      readonly rejected: readonly { reason: string; count: number; firstLine: number }[];
    };
  },
  records: number,
): InputError {
  const { file, rejected } = loaded.summary;
  const first = [...rejected].sort((a, b) => a.firstLine - b.firstLine)[0];
  const where = first ? `, line ${first.firstLine}: ${first.reason}` : '';
  return new InputError(
    `${file}${where}; ${records - loaded.dataset.n} of the ${records} records do not fit the declared domain. ` +
      'n is public and fixed, so no record may be dropped: fix those rows, or add the values to the declared ' +
      'domain (a missing category, "(other)", wider bounds), or leave the columns undeclared so that RAP Studio ' +
      'discovers them privately.',
    first ? { file, line: first.firstLine } : { file },
  );
}

/** A cell as the curator's error quotes it: JSON-quoted, cut at 80 characters. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function misfitText(m: Misfit): { what: string; fix: string } {
  const c = m.column;
  switch (m.problem) {
    case 'missing':
      return {
        what: m.ragged
          ? 'the row has the wrong number of fields (kept as missing in every column), and the declared column has no category for missing values'
          : `the value ${quoted(m.value)} is missing, and the declared column has no category for missing values`,
        fix:
          'add a category for missing values to the column (the schema editor\'s "a category for missing values"; ' +
          `"missing": true in a schema file)${m.ragged ? ' or fix the row' : ''}`,
      };
    case 'category':
      return {
        what: `the value ${quoted(m.value)} is not one of its ${c.kind === 'categorical' ? c.categories.length : 0} declared categories`,
        fix: "add the category to the column's declared categories (or fix the value)",
      };
    case 'not-a-number':
      if (c.kind === 'numeric' && c.temporal) {
        return {
          what: `the value ${quoted(m.value)} is not a valid ${c.temporal.kind} in the column's declared format ${c.temporal.format}`,
          fix: "fix the value (a date that exists, written in the declared format), or declare the column's format as the file writes it",
        };
      }
      return {
        what: `the value ${quoted(m.value)} is not a number, and the column is declared numeric`,
        fix: 'fix the value, or declare the column categorical',
      };
    case 'range': {
      const edges = c.kind === 'numeric' ? c.edges : [];
      const bound = (x: number | undefined) =>
        c.kind === 'numeric' && c.temporal && x !== undefined ? formatTemporal(c.temporal, x) : x;
      return {
        what: `the value ${quoted(m.value)} is outside its declared bounds [${bound(edges[0])}, ${bound(edges[edges.length - 1])}]`,
        fix: "widen the column's declared bounds (its lower or upper bound: the first or last bin edge)",
      };
    }
  }
}

/**
 * A declared column that cannot hold a record refuses the run before any reservation: a declared
 * domain is used exactly (no "(other)", no clamping) and n is public and fixed (no record
 * dropped). For the curator's eyes only: it quotes the first such value (checkDeclaredFit).
 */
export function declaredDomainMisfit(file: string, check: FitCheck & { readonly first: Misfit }): InputError {
  const { first, misfits, records } = check;
  const { what, fix } = misfitText(first);
  return new InputError(
    `${file}, line ${first.line}, column "${first.column.name}": ${what}. ${misfits} of the ${records} records ` +
      'do not fit the declared domain, and nothing was reserved: a declared column is used exactly and n is ' +
      `public and fixed, so no record may be dropped or changed. To release, ${fix}; or leave the column ` +
      'undeclared so that RAP Studio discovers its domain privately.',
    { file, line: first.line, column: first.column.name },
  );
}
